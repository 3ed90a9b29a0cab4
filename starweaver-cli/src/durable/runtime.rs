//! The async runtime and signals of the store-facing commands.

use std::io::Write as _;
use std::process::ExitCode;

use tokio::signal::unix::{signal, SignalKind};
use tokio_util::sync::CancellationToken;

use crate::run::Stop;

/// Runs `work` on a multi-threaded runtime and exits with its status, or prints its [`Stop`].
pub(crate) fn block_on(work: impl std::future::Future<Output = Result<u8, Stop>>) -> ExitCode {
    let status = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| Stop {
            message: format!("cannot start the async runtime: {error}"),
            status: 1,
        })
        .and_then(|runtime| runtime.block_on(work));
    match status {
        Ok(code) => ExitCode::from(code),
        Err(stop) => {
            // A check report starts with its own `error[rule]` lines.
            let message = stop.message.trim_end();
            let text = if message.starts_with("error") {
                message.to_string()
            } else {
                format!("error: {message}")
            };
            let _ = writeln!(std::io::stderr().lock(), "{text}");
            ExitCode::from(stop.status)
        }
    }
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

/// The run command's Ctrl-C: the first cancels the run (its calls get a grace to stop), a
/// second stops waiting for them.
///
/// # Errors
/// When Ctrl-C cannot be watched.
pub(crate) fn cancel_on_ctrl_c(interrupt: &crate::run::Interrupt) -> Result<(), Stop> {
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
