//! `check_main`: `starweaver check` as a whole program, for an application that wants the
//! checker in its own binary (where its own tools are registered in the catalog).

use std::ffi::OsString;
use std::io::Write as _;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};

use super::command::{run_check, CheckArgs};

#[derive(Parser)]
#[command(about = "Check agent manifests and report every problem")]
struct Standalone {
    #[command(flatten)]
    args: CheckArgs,
}

/// Parses the process's arguments as `check`'s, runs the check with the tools linked into this
/// binary as the catalog (for the check and for `--explain`), prints the report and returns the
/// exit status (0 clean, 1 problems found, 2 bad usage or unreadable input).
///
/// An application whose tools register in its own binary (`#[starweaver::tool]`) gets a
/// checker that knows them, so a manifest naming a tool the application lacks is an
/// `unknown-tool` error, with no catalog file to export and keep in step. `--catalog FILE`
/// still replaces the linked tools when given.
///
/// A first argument of exactly `check` is skipped, so a binary with several commands can pass
/// `app check agents/` straight through (check a file named `check` as `./check`).
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     starweaver_cli::check_main()
/// }
/// ```
#[must_use]
pub fn check_main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().collect();
    let mut command = Standalone::command();
    if args.get(1).is_some_and(|first| first == "check") {
        args.remove(1);
        // Usage and help then read `app check [OPTIONS] [PATHS]...`, as the user typed it.
        let program = args
            .first()
            .map(std::path::Path::new)
            .and_then(std::path::Path::file_name)
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        command = command.bin_name(format!("{program} check"));
    }
    let parsed = command
        .try_get_matches_from(args)
        .and_then(|mut matches| Standalone::from_arg_matches_mut(&mut matches));
    let standalone = match parsed {
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
