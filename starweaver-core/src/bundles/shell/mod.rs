//! The shell bundle: `shell_exec` runs a command in the attached
//! environment (in the foreground, or in the background through the
//! attached process-capable shell), and `shell_wait`, `shell_status`,
//! `shell_input`, `shell_signal` and `shell_kill` work the background
//! processes by id. One toolset for every provider that runs commands.

mod errors;
mod exec;
mod input;
mod output;
mod settings;
mod signal;
mod status;
mod toolset;
mod wait;

pub use exec::{ShellExecArgs, SHELL_EXEC_TOOL_NAME};
pub use input::{ShellInputArgs, SHELL_INPUT_TOOL_NAME};
pub use signal::{ShellKillArgs, ShellSignalArgs, SHELL_KILL_TOOL_NAME, SHELL_SIGNAL_TOOL_NAME};
pub use status::{ShellStatusArgs, SHELL_STATUS_TOOL_NAME};
pub use toolset::{shell_tools, SHELL_TOOLSET_NAME};
pub use wait::{ShellWaitArgs, DEFAULT_SHELL_WAIT_MS, MAX_SHELL_WAIT_MS, SHELL_WAIT_TOOL_NAME};

use toolset::{mutating, observing, requirements};
