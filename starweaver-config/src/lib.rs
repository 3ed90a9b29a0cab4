//! Agent manifests: the format's types (from which the JSON Schema and
//! the reference are generated), the position-keeping YAML reader, and
//! the checker that reports every problem with its line and column.
//!
//! An application's own checker binary is one line, with the tools linked
//! into it as the catalog:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     starweaver_config::check_main()
//! }
//! ```

pub mod check;
pub mod diagnostics;
pub mod files;
pub mod load;
pub mod manifest;
pub mod paths;
pub mod reference;
pub mod report;
pub mod template;
pub mod validate;
pub mod yaml;

#[cfg(feature = "cli")]
pub use check::entry::check_main;
