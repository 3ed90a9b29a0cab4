//! Running commands: what to run, the policy that decides whether it
//! may, what comes back, and background processes.

mod attach;
mod command;
mod limits;
mod output;
mod policy;
mod process;
mod signal;

pub use attach::{
    attach_process_shell, attached_process_shell, tool_process_shell, PROCESS_SHELL_CAPABILITY,
};
pub use command::{
    Command, CommandOptions, CommandRequest, Program, ProgramCommand, Shell, ShellCommand,
};
pub use limits::{
    ProcessLimits, DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_COMPLETED_PROCESS_RETENTION,
    DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_INHERITED_ENV, DEFAULT_KILL_GRACE_MS,
    DEFAULT_MAX_CONCURRENT_PROCESSES, DEFAULT_MAX_OUTPUT_BYTES,
};
pub use output::{ProcessOutput, ProcessSnapshot, ProcessStatus, StreamCapture};
pub use policy::{
    ShellPolicy, RULE_ENV_UNDER_ALLOWLIST, RULE_EXECUTION_DISABLED, RULE_PROGRAM_NOT_ALLOWED,
    RULE_SHELL_UNDER_ALLOWLIST,
};
pub use process::{DynProcessShell, ProcessShellProvider};
pub use signal::ProcessSignal;
