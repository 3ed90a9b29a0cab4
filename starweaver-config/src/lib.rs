//! Agent manifests: the format's types (from which the JSON Schema and
//! the reference are generated), the position-keeping YAML reader, the
//! checker that reports every problem with its line and column, and the
//! loader. A manifest goes through them in one pass: the checker reads the
//! file once and runs every rule; what it passes is a
//! [`validate::Checked`], which nothing else can make; [`load::load()`]
//! takes only that, so it has no rule of its own to repeat.
//!
//! The `cli` feature (on by default) adds the command-line pieces: the
//! `check` and `schema` commands, `--explain`, the human report and
//! `check_main`. Without it the crate reads, checks and loads manifests as
//! a library, with no argument parser or report renderer.
#![cfg_attr(
    feature = "cli",
    doc = r#"
An application's own checker binary is one line, with the tools linked
into it as the catalog:

```no_run
fn main() -> std::process::ExitCode {
    starweaver_config::check_main()
}
```
"#
)]

pub mod check;
pub mod diagnostics;
pub mod files;
pub mod load;
pub mod manifest;
pub mod paths;
pub mod reference;
pub mod report;
pub mod script;
pub mod template;
pub mod validate;
pub mod yaml;

#[cfg(feature = "cli")]
pub use check::entry::check_main;
