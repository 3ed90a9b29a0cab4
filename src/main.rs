//! The `starweaver` command line: `run` runs an agent manifest, `check` reports every problem
//! in agent manifests, `schema` prints the manifest JSON Schema for editors.

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;
use starweaver_config::check::{print_outcome, run_schema, CheckArgs, SchemaArgs};

/// Declarative, config-driven agents: check and describe agent manifests.
#[derive(Parser)]
#[command(
    name = "starweaver",
    version,
    after_help = "Examples:\n  starweaver check                      check every manifest under agents/\n  starweaver check agents/scout.yaml --format json\n  starweaver schema > schema/agent.schema.json\n  starweaver run agents/repo-helper.yaml --prompt \"Where is the loader?\""
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check agent manifests and report every problem with its line and column.
    Check(CheckArgs),
    /// Print the manifest JSON Schema (for editors and other tools).
    Schema(SchemaArgs),
    /// Run an agent manifest on a prompt, showing each step, tool call and result.
    Run(cli::run::RunArgs),
}

fn main() -> ExitCode {
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
    }
}
