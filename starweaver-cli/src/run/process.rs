//! What every command that runs agents does with its process: one async runtime, Ctrl-C
//! watched before anything runs, and an exit status with the message of a [`Stop`].

use std::io::Write as _;
use std::process::ExitCode;

use tokio::signal::unix::{signal, SignalKind};

use super::{Interrupt, Stop};

/// The multi-threaded runtime commands run on.
///
/// # Errors
/// Status 1 when it cannot be started.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, Stop> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| Stop {
            message: format!("cannot start the async runtime: {error}"),
            status: 1,
        })
}

/// Ctrl-C as a run sees it: the first fires `interrupt.cancel` (the run's calls get a grace to
/// stop), a second `interrupt.force`. Registered before anything runs, so no Ctrl-C falls to
/// the default action (which would end the process and leave the shell's process groups
/// running). Call it inside the runtime.
///
/// # Errors
/// Status 1 when Ctrl-C cannot be watched.
pub(crate) fn watch_ctrl_c(interrupt: &Interrupt) -> Result<(), Stop> {
    let mut ctrl_c = signal(SignalKind::interrupt()).map_err(|error| Stop {
        message: format!("cannot watch for Ctrl-C: {error}"),
        status: 1,
    })?;
    let watcher = interrupt.clone();
    tokio::spawn(async move {
        if ctrl_c.recv().await.is_some() {
            watcher.cancel.cancel();
        }
        if ctrl_c.recv().await.is_some() {
            watcher.force.cancel();
        }
    });
    Ok(())
}

/// The exit status of a command: its code, or its [`Stop`]'s status with the message on
/// standard error (`error: ` in front, unless it is a check report, which starts with its own
/// `error[rule]` lines).
#[must_use]
pub(crate) fn exit_with(status: Result<u8, Stop>) -> ExitCode {
    match status {
        Ok(code) => ExitCode::from(code),
        Err(stop) => {
            let mut text = if stop.message.starts_with("error") {
                stop.message
            } else {
                format!("error: {}", stop.message)
            };
            if !text.ends_with('\n') {
                text.push('\n');
            }
            let _ = std::io::stderr().lock().write_all(text.as_bytes());
            ExitCode::from(stop.status)
        }
    }
}
