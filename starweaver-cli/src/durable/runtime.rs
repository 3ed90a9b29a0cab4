//! The store-facing commands' process: the runtime every command runs on, and a worker's
//! shutdown on Ctrl-C or SIGTERM.

use std::process::ExitCode;

use tokio::signal::unix::{signal, SignalKind};
use tokio_util::sync::CancellationToken;

use crate::run::{exit_with, runtime, Stop};

/// Runs `work` on the commands' runtime and exits with its status, or prints its [`Stop`].
pub(crate) fn block_on(work: impl std::future::Future<Output = Result<u8, Stop>>) -> ExitCode {
    exit_with(runtime().and_then(|runtime| runtime.block_on(work)))
}

/// Fires `token` on the first Ctrl-C or SIGTERM.
///
/// # Errors
/// When the signals cannot be watched.
pub(crate) fn stop_on_signals(token: CancellationToken) -> Result<(), Stop> {
    let watch = |kind: SignalKind, name: &str| {
        signal(kind).map_err(|error| Stop {
            message: format!("cannot watch for {name}: {error}"),
            status: 1,
        })
    };
    let mut interrupt = watch(SignalKind::interrupt(), "Ctrl-C")?;
    let mut terminate = watch(SignalKind::terminate(), "SIGTERM")?;
    tokio::spawn(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        token.cancel();
    });
    Ok(())
}
