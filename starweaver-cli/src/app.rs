//! The `starweaver` program: `run` runs an agent manifest, `check` reports every problem
//! in agent manifests, `schema` prints the manifest JSON Schema for editors, `tools` lists what
//! the model would see, `completions` writes shell completion scripts, and `submit`, `worker`
//! and `runs` keep runs in a run store.

use std::io::Write as _;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate as cli;
use crate::check::{print_outcome, run_schema, CheckArgs, SchemaArgs};

/// Declarative, config-driven agents: run, check and describe agent manifests.
#[derive(Parser)]
#[command(
    name = "starweaver",
    version,
    after_help = HELP_EXAMPLES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The examples under the top-level help. Every manifest they name is in `agents/` (a test
/// checks it), so a newcomer can paste any of them in a clone.
const HELP_EXAMPLES: &str = "Examples:
  starweaver run agents/repo-helper.yaml --prompt \"Where is the manifest loader?\"
  starweaver check                      check every manifest under agents/
  starweaver check agents/triage.yaml --format json
  starweaver check --explain agents/repo-helper.yaml
  starweaver tools agents/repo-helper.yaml --all
  starweaver mcp serve agents/repo-helper.yaml
  starweaver run agents/release-checklist.yaml --prompt \"Prepare the release\" --store sqlite:runs.db
  starweaver submit agents/repo-helper.yaml --prompt \"Where is the manifest loader?\" --store sqlite:runs.db
  starweaver worker --store sqlite:runs.db --agents agents --concurrency 2
  starweaver runs list --store sqlite:runs.db --json
  starweaver schema > schema/agent.schema.json
  starweaver completions bash > ~/.local/share/bash-completion/completions/starweaver";

#[derive(Subcommand)]
enum Command {
    /// Run an agent manifest on a prompt, showing each step, tool call and result.
    Run(cli::run::RunArgs),
    /// Check agent manifests and report every problem with its line and column.
    Check(CheckArgs),
    /// Print the manifest JSON Schema (for editors and other tools).
    Schema(SchemaArgs),
    /// List the tools the model would see on its first request (`--all`: and later).
    Tools(cli::tools::ToolsArgs),
    /// Print a shell completion script (bash, zsh or fish).
    Completions(cli::completions::CompletionsArgs),
    /// Queue a run in a run store for a worker; prints the run's id.
    #[cfg(feature = "store")]
    Submit(cli::durable::submit::SubmitArgs),
    /// Claim queued runs from a run store and drive them until stopped.
    #[cfg(feature = "store")]
    Worker(cli::durable::worker::WorkerArgs),
    /// List, show, approve, answer, resume and cancel the runs in a run store.
    #[cfg(feature = "store")]
    Runs(cli::durable::runs::RunsArgs),
    /// Serve a manifest's toolsets over MCP (`mcp serve MANIFEST`).
    #[cfg(feature = "mcp")]
    Mcp(cli::mcp::McpArgs),
}

/// The whole `starweaver` program: parses the process's arguments, runs the command and
/// returns its exit status, so the binary's `main` is one call (and a test or an application's
/// own binary can run the same program).
#[must_use]
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Check(args) => print_outcome(&args),
        Command::Run(args) => cli::run::run_main(&args),
        Command::Schema(args) => match run_schema(&args) {
            Ok(text) => {
                let _ = std::io::stdout().lock().write_all(text.as_bytes());
                ExitCode::SUCCESS
            }
            Err((message, status)) => {
                let _ = std::io::stderr().lock().write_all(message.as_bytes());
                status.into()
            }
        },
        Command::Tools(args) => {
            let outcome = cli::tools::run_tools(&args);
            let _ = std::io::stdout()
                .lock()
                .write_all(outcome.stdout.as_bytes());
            let _ = std::io::stderr()
                .lock()
                .write_all(outcome.stderr.as_bytes());
            ExitCode::from(outcome.code)
        }
        Command::Completions(args) => {
            cli::completions::write(args.shell, &mut Cli::command(), &mut std::io::stdout());
            ExitCode::SUCCESS
        }
        #[cfg(feature = "mcp")]
        Command::Mcp(args) => cli::mcp::mcp_main(&args),
        #[cfg(feature = "store")]
        Command::Submit(args) => cli::durable::submit::submit_main(&args),
        #[cfg(feature = "store")]
        Command::Worker(args) => cli::durable::worker::worker_main(&args),
        #[cfg(feature = "store")]
        Command::Runs(args) => cli::durable::runs::runs_main(&args),
    }
}
