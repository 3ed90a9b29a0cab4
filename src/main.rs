//! The `starweaver` command line: `run` runs an agent manifest, `check` reports every problem
//! in agent manifests, `schema` prints the manifest JSON Schema for editors, `tools` lists what
//! the model would see, and `completions` writes shell completion scripts.

use std::io::Write as _;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod cli;
use starweaver_config::check::{print_outcome, run_schema, CheckArgs, SchemaArgs};

/// Declarative, config-driven agents: check and describe agent manifests.
#[derive(Parser)]
#[command(
    name = "starweaver",
    version,
    after_help = "Examples:\n  starweaver run agents/repo-helper.yaml --prompt \"Where is the loader?\"\n  starweaver check                      check every manifest under agents/\n  starweaver check agents/scout.yaml --format json\n  starweaver tools agents/repo-helper.yaml --all\n  starweaver schema > schema/agent.schema.json\n  starweaver completions bash > ~/.local/share/bash-completion/completions/starweaver"
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
    /// List the tools the model would see on its first request (`--all`: and later).
    Tools(cli::tools::ToolsArgs),
    /// Print a shell completion script (bash, zsh or fish).
    Completions(cli::completions::CompletionsArgs),
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
    }
}
