//! Stopping a search that runs on blocking threads when its caller
//! stops waiting (a tool timeout, a cancelled run).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Set when the search should stop; walkers and readers check it
/// between entries and files.
#[derive(Clone, Debug, Default)]
pub(super) struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// True once the caller gave up.
    pub(super) fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// A guard that cancels the search when dropped: held by the async
    /// side, so dropping its future stops the blocking threads.
    pub(super) fn guard(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }
}

/// Cancels on drop (see [`Cancel::guard`]).
#[derive(Debug)]
pub(super) struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0 .0.store(true, Ordering::Relaxed);
    }
}

/// Runs `work` on a blocking thread, stopping it (through the
/// [`Cancel`] it receives) when the returned future is dropped.
pub(super) async fn run_blocking<T, F>(work: F) -> Result<T, std::io::Error>
where
    T: Send + 'static,
    F: FnOnce(Cancel) -> T + Send + 'static,
{
    let cancel = Cancel::default();
    let _guard = cancel.guard();
    let worker = cancel.clone();
    tokio::task::spawn_blocking(move || work(worker))
        .await
        .map_err(|error| std::io::Error::other(format!("the search stopped unexpectedly: {error}")))
}
