//! `shell_exec`: run a shell script or a program, in the foreground or
//! the background.

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::errors::{process_shell, shell_error};
use super::output::Report;
use super::settings::HostSettings;
use super::{mutating, requirements};
use crate::bundles::environment::environment;
use crate::environment::{
    CommandOptions, CommandRequest, EnvironmentError, Program, ProgramCommand, Shell, ShellCommand,
    RULE_ENV_UNDER_ALLOWLIST,
};
use crate::tools::ToolContext;
use crate::tools::{typed_tool, DynTool, ToolError, ToolResult};

/// Name of the command-running tool.
pub const SHELL_EXEC_TOOL_NAME: &str = "shell_exec";

/// Arguments of `shell_exec`: exactly one of `command` or `program`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct ShellExecArgs {
    /// A shell script, run by the environment's shell: pipes, `&&`,
    /// redirection and expansion work (`cargo test 2>&1 | tail -20`).
    /// Give either this or `program`.
    #[serde(default, alias = "cmd", alias = "script")]
    pub command: Option<String>,
    /// A program run directly, without a shell (`git`): each entry of
    /// `args` reaches it literally. Give either this or `command`. The
    /// only form a host that allows only listed programs accepts, with
    /// the name exactly as listed.
    #[serde(default)]
    pub program: Option<String>,
    /// Arguments of `program`, passed as given (no quoting, globbing or
    /// expansion).
    #[serde(default)]
    pub args: Vec<String>,
    /// Working directory, relative to the environment root (default: the
    /// root, or the directory the host configured).
    #[serde(default, alias = "working_directory", alias = "workdir")]
    pub cwd: Option<String>,
    /// Environment variables for this command. Refused when the host
    /// allows only listed programs.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Text written to the command's standard input (a background
    /// process's input stays open for `shell_input`).
    #[serde(default)]
    pub stdin: Option<String>,
    /// Time limit in milliseconds; past it the command is stopped
    /// (default: the host's or the environment's for foreground
    /// commands; none for background ones).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Run in the background and return a process `id` at once, for
    /// servers, watchers and long jobs; follow it with `shell_wait`,
    /// `shell_status`, `shell_input`, `shell_signal` and `shell_kill`.
    #[serde(default)]
    pub background: bool,
}

pub(super) fn shell_exec_tool() -> DynTool {
    let tool = typed_tool::<ShellExecArgs, _, _>(
        SHELL_EXEC_TOOL_NAME,
        Some(
            "Run a command in the environment: `command` for a shell script, or `program` with \
             `args` to run a program directly with literal arguments. Returns status, exit_code, \
             signal, stdout, stderr and duration_ms; a non-zero exit is a normal result. With \
             `background: true` it returns a process id at once for the other shell tools."
                .to_string(),
        ),
        |ctx: ToolContext, args: ShellExecArgs| async move { shell_exec(&ctx, args).await },
    )
    .with_dependencies(requirements())
    .with_tags(mutating())
    // Commands in one batch run in the model's order.
    .with_sequential(true);
    // Not retried internally: every failure is returned (running a
    // command twice is not harmless).
    Arc::new(tool)
}

async fn shell_exec(ctx: &ToolContext, args: ShellExecArgs) -> Result<ToolResult, ToolError> {
    let background = args.background;
    let mut request = request(args)?;
    let settings = HostSettings::of(ctx);
    settings.check(&request)?;
    let asked_env = !request.options().env.is_empty();
    settings.apply(options_mut(&mut request), !background);
    let refused = |error| provider_error(error, asked_env, &settings);
    let bound = settings.max_output_bytes();
    if background {
        let shell = process_shell(ctx)?;
        let started = match &request {
            CommandRequest::Shell(command) => shell.start_shell(command).await,
            CommandRequest::Program(command) => shell.start_program(command).await,
        }
        .map_err(refused)?;
        let report = Report::of_snapshot(started, bound);
        let report = if report.is_running() {
            report.with_note(
                "started in the background: follow it with shell_wait or shell_status, send it \
                 input with shell_input, stop it with shell_kill",
            )
        } else {
            report
        };
        return Ok(report.into_result());
    }
    let provider = environment(ctx)?;
    let output = match &request {
        CommandRequest::Shell(command) => provider.run_shell(command).await,
        CommandRequest::Program(command) => provider.run_program(command).await,
    }
    .map_err(refused)?;
    Ok(Report::of_output(output, bound).into_result())
}

/// A provider's refusal as the tool returns it. Variables refused
/// under the provider's allowlist that only the host's settings added
/// are the host's mistake, not the model's: a user error naming them.
fn provider_error(error: EnvironmentError, asked_env: bool, settings: &HostSettings) -> ToolError {
    let host_env = settings.env_names();
    match &error {
        EnvironmentError::PolicyDenied { rule, .. }
            if *rule == RULE_ENV_UNDER_ALLOWLIST && !asked_env && !host_env.is_empty() =>
        {
            let names: Vec<String> = host_env
                .iter()
                .take(8)
                .map(|name| format!("`{}`", crate::bounds::echo(name)))
                .collect();
            ToolError::user_error(format!(
                "the host's shell settings (`ShellEnvironmentSnapshot::env`) add the variables \
                 {}{}, but this environment runs only listed programs and refuses variables \
                 (shell policy rule `{RULE_ENV_UNDER_ALLOWLIST}`); set them on the provider \
                 instead (`with_env`), or remove them from the settings",
                names.join(", "),
                if host_env.len() > names.len() {
                    ", ..."
                } else {
                    ""
                }
            ))
        }
        _ => shell_error(error),
    }
}

/// The command the arguments describe.
fn request(args: ShellExecArgs) -> Result<CommandRequest, ToolError> {
    let invalid = |message: &str| ToolError::invalid_arguments(SHELL_EXEC_TOOL_NAME, message);
    check_env(&args.env)?;
    let options = CommandOptions {
        working_directory: args.cwd,
        env: args.env,
        stdin: args.stdin.map(String::into_bytes),
        timeout_ms: args.timeout_ms,
    };
    match (args.command, args.program) {
        (Some(_), Some(_)) => Err(invalid(
            "give either `command` (a shell script) or `program` with `args` (run directly), \
             not both",
        )),
        (None, None) => Err(invalid(
            "give `command` (a shell script) or `program` with `args` (a program run directly)",
        )),
        (Some(_), None) if !args.args.is_empty() => Err(invalid(
            "`args` goes with `program`; put the arguments in the `command` script, or run the \
             program with `program` and `args`",
        )),
        (Some(script), None) if script.trim().is_empty() => {
            Err(invalid("`command` is empty; give the shell script to run"))
        }
        (None, Some(program)) if program.trim().is_empty() => Err(invalid(
            "`program` is empty; give the program to run, such as `git`",
        )),
        (Some(script), None) => Ok(ShellCommand {
            form: Shell { script },
            options,
        }
        .into()),
        (None, Some(executable)) => Ok(ProgramCommand {
            form: Program {
                executable,
                args: args.args,
            },
            options,
        }
        .into()),
    }
}

/// Variable names a process environment can hold: not empty, no `=`,
/// no NUL (and no NUL in values).
fn check_env(env: &BTreeMap<String, String>) -> Result<(), ToolError> {
    for (variable, value) in env {
        if variable.is_empty() || variable.contains(['=', '\0']) || value.contains('\0') {
            return Err(ToolError::invalid_arguments(
                SHELL_EXEC_TOOL_NAME,
                format!(
                    "`env` entry `{}` is not a valid variable: names are non-empty without `=` \
                     or NUL, values without NUL",
                    crate::bounds::echo(&variable.replace('\0', "\\0"))
                ),
            ));
        }
    }
    Ok(())
}

/// The options of either command form, to add the host's defaults.
fn options_mut(request: &mut CommandRequest) -> &mut CommandOptions {
    match request {
        CommandRequest::Shell(command) => &mut command.options,
        CommandRequest::Program(command) => &mut command.options,
    }
}
