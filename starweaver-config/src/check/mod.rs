//! The `starweaver check` and `starweaver schema` commands: which files to read, how to run the
//! checker over them, what to print and which exit status to give.
//!
//! The argument structs derive [`clap::Args`], so the `starweaver` binary embeds them as
//! subcommands and an application's own binary can call [`check_main`] directly.

mod catalog;
mod collect;
mod command;
mod entry;
mod explain;
mod schema;
mod status;

pub use catalog::{CatalogError, CatalogNames};
pub use collect::{collect_files, CollectError, DEFAULT_PATH, MAX_FILES};
pub use command::{run_check, CheckArgs, CheckOutcome};
pub use entry::{check_main, print_outcome};
pub use explain::{
    run_explain, Explanation, Explanations, FileFacts, ModelFacts, RuntimeFacts, ShellFacts,
    SkillFact, SkillFacts, SkillProblem, ToolFacts, EXPLAIN_FORMAT_VERSION,
};
pub use schema::{manifest_schema, run_schema, SchemaArgs, SCHEMA_DIALECT};
pub use status::{status_of, CheckStatus};
