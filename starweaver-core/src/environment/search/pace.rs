//! Yield points for long searches.

/// Entries, files or bytes a search handles between yields.
///
/// A tool timeout or cancellation only acts while the tool's future is
/// `Pending`. Over an in-memory provider every `list_dir` and
/// `read_bytes` is ready at once, so without yields a search over a big
/// tree would run to the end, blocking its runtime thread meanwhile.
#[derive(Debug, Default)]
pub(crate) struct Pace {
    steps: usize,
    bytes: usize,
}

impl Pace {
    /// Entries or files between yields.
    const STEPS: usize = 64;
    /// Bytes searched between yields.
    const BYTES: usize = 1024 * 1024;

    /// Counts one step of `bytes` bytes, yielding to the runtime once
    /// enough work was done since the last yield.
    pub(crate) async fn step(&mut self, bytes: usize) {
        self.steps += 1;
        self.bytes = self.bytes.saturating_add(bytes);
        if self.steps >= Self::STEPS || self.bytes >= Self::BYTES {
            self.steps = 0;
            self.bytes = 0;
            tokio::task::yield_now().await;
        }
    }
}
