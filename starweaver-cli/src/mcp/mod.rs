//! `starweaver mcp`: the Model Context Protocol. `mcp serve MANIFEST` serves the manifest's
//! toolsets to MCP clients over stdio or streamable HTTP.

mod serve;

pub use serve::{serve_main, ServeArgs};

/// The `mcp` command's subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum McpCommand {
    /// Serve the manifest's toolsets to MCP clients, over stdio (the default) or streamable
    /// HTTP.
    Serve(ServeArgs),
}

/// The arguments of `starweaver mcp`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver mcp serve agents/repo-helper.yaml\n  starweaver mcp serve agents/repo-helper.yaml --http 127.0.0.1:3001"
)]
pub struct McpArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: McpCommand,
}

/// Runs `starweaver mcp ...` and returns its exit status.
#[must_use]
pub fn mcp_main(args: &McpArgs) -> std::process::ExitCode {
    match &args.command {
        McpCommand::Serve(serve) => serve_main(serve),
    }
}
