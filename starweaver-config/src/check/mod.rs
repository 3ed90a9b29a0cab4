//! The `starweaver check` and `starweaver schema` commands: which files to read, how to run the
//! checker over them, what to print and which exit status to give.
//!
//! The argument structs derive `clap::Args`, so the `starweaver` binary embeds them as
//! subcommands; an application's own binary calls `crate::check_main` (at the crate root)
//! instead, so the tools linked into it are the catalog.
//!
//! The commands themselves (the argument structs, `run_check`, `run_explain`, `run_schema`,
//! `check_main`) come with the `cli` feature (the default); file collection, catalogs, the
//! exit-status rules and the manifest schema are always built.

mod catalog;
mod collect;
#[cfg(feature = "cli")]
mod command;
#[cfg(feature = "cli")]
pub(crate) mod entry;
#[cfg(feature = "cli")]
mod explain;
mod limit;
mod schema;
mod status;

pub use catalog::{CatalogError, CatalogNames};
pub use collect::{collect_files, CollectError, DEFAULT_PATH, MAX_FILES};
#[cfg(feature = "cli")]
pub use command::{run_check, CheckArgs, CheckOutcome};
#[cfg(feature = "cli")]
pub use entry::print_outcome;
#[cfg(feature = "cli")]
pub use explain::{
    load_checked, run_explain, Explanation, Explanations, FileFacts, ModelFacts, PathReach,
    RuntimeFacts, SandboxFacts, SandboxMode, ShellFacts, ShellReach, SkillFact, SkillFacts,
    SkillProblem, ToolFacts, EXPLAIN_FORMAT_VERSION,
};
pub use limit::{ManifestLimit, DEFAULT_MAX_MANIFEST_BYTES, MAX_MANIFEST_BYTES_FLAG};
pub use schema::{manifest_schema, SCHEMA_DIALECT};
#[cfg(feature = "cli")]
pub use schema::{run_schema, SchemaArgs};
pub use status::{status_of, CheckStatus};
