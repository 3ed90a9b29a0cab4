//! [`check_main`]: `starweaver check` as a whole program, for an application that wants the
//! checker in its own binary (where its own tools are registered in the catalog).

use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser;

use super::command::{run_check, CheckArgs};

#[derive(Parser)]
#[command(about = "Check agent manifests and report every problem")]
struct Standalone {
    #[command(flatten)]
    args: CheckArgs,
}

/// Parses the process's arguments as `check`'s, runs the check, prints the report and returns
/// the exit status (0 clean, 1 problems found, 2 bad usage or unreadable input). The tools
/// registered in the binary count as the catalog (for the check and for `--explain`) unless
/// `--catalog` names another.
///
/// An application whose tools register in its own binary gets a checker that knows them:
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     starweaver_config::check::check_main()
/// }
/// ```
#[must_use]
pub fn check_main() -> ExitCode {
    let standalone = match Standalone::try_parse() {
        Ok(standalone) => standalone,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
        }
    };
    let mut args = standalone.args;
    // The application's own tools are linked in: they are the catalog unless one is given.
    args.linked_catalog = true;
    print_outcome(&args)
}

/// Runs a check and writes its report to standard output and problems to standard error.
#[must_use]
pub fn print_outcome(args: &CheckArgs) -> ExitCode {
    let outcome = run_check(args);
    let _ = std::io::stdout()
        .lock()
        .write_all(outcome.stdout.as_bytes());
    let _ = std::io::stderr()
        .lock()
        .write_all(outcome.stderr.as_bytes());
    outcome.status.into()
}
