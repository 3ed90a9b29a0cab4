//! The `starweaver check` and `starweaver schema` commands: which files to read, how to run the
//! checker over them, what to print and which exit status to give.
//!
//! The argument structs derive [`clap::Args`], so the `starweaver` binary embeds them as
//! subcommands; an application's own binary calls [`crate::check_main`] (at the crate root)
//! instead, so the tools linked into it are the catalog.

mod catalog;
mod collect;
mod command;
pub(crate) mod entry;
mod explain;
mod schema;
mod status;

pub use catalog::{CatalogError, CatalogNames};
pub use collect::{collect_files, CollectError, DEFAULT_PATH, MAX_FILES};
pub use command::{run_check, CheckArgs, CheckOutcome};
pub use entry::print_outcome;
pub use explain::{
    load_checked, run_explain, Explanation, Explanations, FileFacts, ModelFacts, RuntimeFacts,
    ShellFacts, SkillFact, SkillFacts, SkillProblem, ToolFacts, EXPLAIN_FORMAT_VERSION,
};
pub use schema::{manifest_schema, run_schema, SchemaArgs, SCHEMA_DIALECT};
pub use status::{status_of, CheckStatus};
