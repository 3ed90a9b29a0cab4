//! Background processes: the trait behind `shell_exec` with
//! `background: true`, `shell_wait`, `shell_status`, `shell_input`,
//! `shell_signal` and `shell_kill`.

use std::fmt;
use std::sync::Arc;

use super::{ProcessSignal, ProcessSnapshot, ProgramCommand, ShellCommand};
use crate::environment::EnvironmentError;
use crate::BoxFuture;

/// A shared, type-erased process-capable provider.
pub type DynProcessShell = Arc<dyn ProcessShellProvider>;

/// A provider that keeps processes running between tool calls and hands
/// out handles for them. The local provider runs real process groups;
/// the in-memory provider simulates a few builtin commands
/// deterministically, for tests.
///
/// Every method that takes an id fails with
/// [`EnvironmentError::UnknownProcess`] for an id it never issued or no
/// longer retains.
pub trait ProcessShellProvider: Send + Sync + fmt::Debug {
    /// Starts a shell script in the background (the policy applies as
    /// for [`crate::environment::EnvironmentProvider::run_shell`]).
    fn start_shell<'a>(
        &'a self,
        command: &'a ShellCommand,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>>;

    /// Starts a program in the background, without a shell.
    fn start_program<'a>(
        &'a self,
        command: &'a ProgramCommand,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>>;

    /// Waits up to `timeout_ms` for the process to end; the snapshot says
    /// whether it did.
    fn wait<'a>(
        &'a self,
        id: &'a str,
        timeout_ms: u64,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>>;

    /// The process's state and output so far.
    fn status<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>>;

    /// Writes to the process's standard input; `close` closes it after.
    fn write_stdin<'a>(
        &'a self,
        id: &'a str,
        input: &'a [u8],
        close: bool,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>>;

    /// Sends a signal to the process's group.
    fn signal<'a>(
        &'a self,
        id: &'a str,
        signal: ProcessSignal,
    ) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>>;

    /// Terminates the process's group (TERM, then KILL after a grace
    /// period) and returns its final state.
    fn kill<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessSnapshot, EnvironmentError>>;

    /// Running processes and retained completed ones, oldest first.
    fn list(&self) -> BoxFuture<'_, Result<Vec<ProcessSnapshot>, EnvironmentError>>;
}
