//! `shell_tools()`: the bundle and what its tools share.

use std::sync::Arc;

use super::exec::shell_exec_tool;
use super::input::shell_input_tool;
use super::signal::{shell_kill_tool, shell_signal_tool};
use super::status::shell_status_tool;
use super::wait::shell_wait_tool;
use crate::environment::{ENVIRONMENT_CAPABILITY, PROCESS_SHELL_CAPABILITY};
use crate::tools::DynToolset;
use crate::tools::{ToolDependencyRequirements, ToolInstruction};
use crate::toolsets::StaticToolset;

/// Name (and instruction group) of the shell toolset.
pub const SHELL_TOOLSET_NAME: &str = "shell";
/// Tag of the tools that run or change processes.
const MUTATING_TAG: &str = "mutating";
/// Tag of the tools that only look at processes.
const READ_ONLY_TAG: &str = "read_only";

/// What the model is told about the shell tools once, for the toolset.
const INSTRUCTION: &str = "Shell tools run commands in the attached environment, from its root \
unless `cwd` says otherwise. shell_exec takes either `command`, a shell script (pipes, `&&`, \
redirection and expansion work), or `program` with `args`, run directly without a shell so every \
argument is literal; when the host allows only listed programs, only the second form runs, with \
the program named exactly as listed and no `env`. A non-zero exit is a normal result: read \
`status`, `exit_code` and `stderr`. Each output stream is kept up to a bound; when one was cut, \
`note` says so: filter the output (grep, tail) or write it to a file and read parts of it. For \
servers, watchers and long jobs pass `background: true`: it returns a process `id` at once; \
follow it with shell_wait, shell_status, shell_input (writes to its standard input), \
shell_signal and shell_kill. Commands are never retried automatically: after a failure, check \
what the command changed before running it again.";

/// The shell bundle. Its tools resolve the environment
/// (`attach_environment`, `AgentSession::with_environment`) for
/// foreground commands and the process-capable shell
/// (`attach_process_shell`) for background ones, through a Filtered
/// profile that requests only those two capabilities and the host's
/// shell settings (`AgentContext::shell_environment`).
///
/// Every tool is tagged `shell`; `shell_exec`, `shell_input`,
/// `shell_signal` and `shell_kill` also `mutating` (and sequential, so
/// calls in one batch act in the model's order), `shell_wait` and
/// `shell_status` `read_only`. None is retried internally: running a
/// command again is not harmless, so failures return to the model.
///
/// ```
/// use starweaver_core::bundles::shell_tools;
/// use starweaver_core::tools::ToolRegistry;
/// let registry = ToolRegistry::new().with_toolset(&shell_tools());
/// assert_eq!(
///     registry.names(),
///     ["shell_exec", "shell_input", "shell_kill", "shell_signal", "shell_status", "shell_wait"]
/// );
/// ```
#[must_use]
pub fn shell_tools() -> DynToolset {
    Arc::new(
        StaticToolset::new(SHELL_TOOLSET_NAME)
            .with_tools([
                shell_exec_tool(),
                shell_wait_tool(),
                shell_status_tool(),
                shell_input_tool(),
                shell_signal_tool(),
                shell_kill_tool(),
            ])
            .with_instruction(ToolInstruction::new(SHELL_TOOLSET_NAME, INSTRUCTION)),
    )
}

/// The Filtered profile every shell tool declares: the environment, the
/// process shell and the host's shell settings, nothing broader.
pub(super) fn requirements() -> ToolDependencyRequirements {
    ToolDependencyRequirements::filtered([ENVIRONMENT_CAPABILITY, PROCESS_SHELL_CAPABILITY])
        .with_shell_environment(true)
}

/// Tags of the tools that run or change processes.
pub(super) fn mutating() -> [&'static str; 2] {
    [SHELL_TOOLSET_NAME, MUTATING_TAG]
}

/// Tags of the tools that only look at processes.
pub(super) fn observing() -> [&'static str; 2] {
    [SHELL_TOOLSET_NAME, READ_ONLY_TAG]
}
