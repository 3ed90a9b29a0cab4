//! Agent manifests: the format's types (from which the JSON Schema and
//! the reference are generated), the position-keeping YAML reader, the
//! checker that reports every problem with its line and column, and the
//! loader. A manifest goes through them in one pass: the checker reads the
//! file once and runs every rule; what it passes is a
//! [`validate::Checked`], which nothing else can make; [`load::load()`]
//! takes only that, so it has no rule of its own to repeat.
//!
//! This is a library with no argument parser, terminal or report
//! renderer: the `check`, `schema` and `--explain` commands, the report
//! formats and `check_main` are the command line's, in `starweaver-cli`.

pub mod check;
pub mod diagnostics;
pub mod files;
pub mod load;
pub mod manifest;
pub mod paths;
pub mod providers;
pub mod reference;
pub mod script;
pub mod secrets;
pub mod template;
pub mod validate;
pub mod yaml;
