//! The `starweaver check` and `starweaver schema` commands: which files to read, how to run the
//! checker over them, what to print and which exit status to give.
//!
//! The argument structs derive `clap::Args`, so the `starweaver` binary embeds them as
//! subcommands; an application's own binary calls [`crate::check_main`] instead, so the tools linked
//! into it are the catalog. The checker itself, file collection, catalogs and the manifest
//! schema are the manifest library's (`starweaver_config::check` and `validate`); this module
//! holds what turns them into a command.

mod command;
pub(crate) mod entry;
mod explain;
mod limit;
mod schema;
mod status;

pub use command::{run_check, CheckArgs, CheckOutcome};
pub use entry::print_outcome;
pub use explain::{
    load_checked, run_explain, ExplainedTool, Explanation, Explanations, FileFacts, ModelFacts,
    OutputFacts, PathReach, RuntimeFacts, SandboxFacts, SandboxMode, ServerFacts, ServerTool,
    ShellFacts, ShellReach, SkillFact, SkillFacts, SkillProblem, SubAgentFacts,
    EXPLAIN_FORMAT_VERSION,
};
pub use limit::ManifestLimitArgs;
pub use schema::{run_schema, SchemaArgs};
pub use status::{status_of, CheckStatus};
