//! The arguments of `starweaver tools`.

use std::path::PathBuf;

/// The arguments of `starweaver tools`.
#[derive(Clone, Debug, Default, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver tools agents/repo-helper.yaml\n  starweaver tools agents/docs-assistant.yaml --all\n  starweaver tools agents/triage.yaml --json | jq '.tools[].name'\n  starweaver tools agents/triage.yaml --catalog tools.json --all --json"
)]
pub struct ToolsArgs {
    /// The manifest whose agent is listed.
    pub manifest: PathBuf,
    /// Also list the tools reachable later: behind a proxy (`call_tool`) or loaded by a tool
    /// search, each marked with how it is reached.
    #[arg(long)]
    pub all: bool,
    /// Print the exact tool definitions (name, description, parameters schema, metadata) the
    /// model request carries, as JSON, instead of a table.
    #[arg(long)]
    pub json: bool,
    /// A tool catalog (JSON, as exported by the application) describing the code tools the
    /// manifest names; without it they are listed unverified, with no parameters.
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
    /// How large the manifest file may be.
    #[command(flatten)]
    pub limit: crate::check::ManifestLimitArgs,
}
