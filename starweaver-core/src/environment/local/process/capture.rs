//! Bounded capture of one output stream: a reader task drains the pipe
//! continuously (so the process never blocks on a full pipe), keeps the
//! first bytes up to the bound and counts the rest.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::Instant;

use super::task::TaskGuard;
use crate::environment::StreamCapture;

/// Bytes read from a pipe at a time.
const READ_CHUNK: usize = 64 * 1024;

/// What a stream produced so far.
#[derive(Debug, Default)]
struct Kept {
    bytes: Vec<u8>,
    total: u64,
    failed: bool,
}

/// A read-only view of a stream being captured, for snapshots of
/// running processes.
#[derive(Clone, Debug, Default)]
pub(super) struct CaptureView {
    kept: Arc<Mutex<Kept>>,
}

impl CaptureView {
    /// The stream so far (not drain-timed-out: it may still be running).
    pub(super) fn snapshot(&self) -> StreamCapture {
        self.capture(false)
    }

    fn capture(&self, drain_timed_out: bool) -> StreamCapture {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let captured = u64::try_from(kept.bytes.len()).unwrap_or(u64::MAX);
        StreamCapture {
            text: String::from_utf8_lossy(&kept.bytes).into_owned(),
            bytes: kept.total,
            captured_bytes: captured,
            truncated: kept.total > captured,
            drain_timed_out,
            capture_failed: kept.failed,
        }
    }

    /// Adds a chunk read from the pipe, keeping at most `limit` bytes in
    /// all. Growth is capped at the bound, so the buffer never holds
    /// more than `limit` bytes of capacity.
    fn push(&self, chunk: &[u8], limit: usize) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.total = kept
            .total
            .saturating_add(u64::try_from(chunk.len()).unwrap_or(u64::MAX));
        let room = limit.saturating_sub(kept.bytes.len());
        let take = room.min(chunk.len());
        if take == 0 {
            return;
        }
        let needed = kept.bytes.len() + take;
        if needed > kept.bytes.capacity() {
            let grown = (kept.bytes.capacity() * 2).max(needed).min(limit);
            let extra = grown - kept.bytes.len();
            kept.bytes.reserve_exact(extra);
        }
        kept.bytes.extend_from_slice(&chunk[..take]);
    }

    fn fail(&self) {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .failed = true;
    }
}

/// A stream being captured: the view plus the reader task.
#[derive(Debug)]
pub(super) struct Capture {
    view: CaptureView,
    reader: TaskGuard<()>,
}

impl Capture {
    /// Starts draining `pipe`, keeping the first `limit` bytes.
    pub(super) fn start(pipe: impl AsyncRead + Unpin + Send + 'static, limit: u64) -> Self {
        let view = CaptureView::default();
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let reader = TaskGuard::spawn(drain(pipe, view.clone(), limit));
        Self { view, reader }
    }

    /// The view snapshots read.
    pub(super) fn view(&self) -> CaptureView {
        self.view.clone()
    }

    /// The complete stream once the reader reaches the end, or what it
    /// had at `deadline`, marked drain-timed-out (the reader is aborted
    /// then, closing the pipe on this side).
    pub(super) async fn finish(self, deadline: Instant) -> StreamCapture {
        let Self { view, reader } = self;
        let ended = reader.join_until(deadline).await.is_some();
        view.capture(!ended)
    }
}

async fn drain(mut pipe: impl AsyncRead + Unpin, view: CaptureView, limit: usize) {
    let mut chunk = vec![0; READ_CHUNK];
    loop {
        match pipe.read(&mut chunk).await {
            Ok(0) => return,
            Ok(read) => view.push(&chunk[..read], limit),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => {
                view.fail();
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;

    use crate::environment::local::process::task::deadline_after;

    #[tokio::test]
    async fn keeps_the_first_bytes_and_counts_the_rest() {
        let (mut writer, reader) = tokio::io::duplex(1024);
        let capture = Capture::start(reader, 10);
        let view = capture.view();
        for _ in 0..100 {
            writer.write_all(b"0123456789abcdef").await.unwrap();
        }
        drop(writer);
        let stream = capture
            .finish(deadline_after(Duration::from_secs(30)))
            .await;
        assert_eq!(stream.text, "0123456789");
        assert_eq!(stream.bytes, 1600);
        assert_eq!(stream.captured_bytes, 10);
        assert!(stream.truncated && !stream.drain_timed_out && !stream.capture_failed);
        assert_eq!(view.snapshot().bytes, 1600);
        assert!(view.kept.lock().unwrap().bytes.capacity() <= 10);
    }

    #[tokio::test]
    async fn a_stream_left_open_is_marked_and_abandoned() {
        let (mut writer, reader) = tokio::io::duplex(1024);
        let capture = Capture::start(reader, 1024);
        writer.write_all("né".as_bytes()).await.unwrap();
        tokio::task::yield_now().await;
        let stream = capture
            .finish(deadline_after(Duration::from_millis(50)))
            .await;
        assert!(stream.drain_timed_out);
        assert!(!stream.truncated);
        drop(writer);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let view = CaptureView::default();
        view.push(&[b'a', 0xff, b'b'], 16);
        let stream = view.snapshot();
        assert_eq!(stream.text, "a\u{fffd}b");
        assert_eq!(stream.captured_bytes, 3);
    }
}
