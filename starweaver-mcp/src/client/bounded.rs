//! The bound on one message from a stdio server: a reader that counts the
//! bytes of the line being read and ends the stream once one passes the
//! bound, so no answer fills memory before it is refused.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// Wraps a server's stdout; trips when a line passes `limit` bytes.
pub(crate) struct BoundedLines<R> {
    inner: R,
    limit: usize,
    current: usize,
    tripped: Arc<AtomicBool>,
}

impl<R> BoundedLines<R> {
    /// `inner` with lines bounded by `limit`; `tripped` is set when one
    /// was not.
    pub(crate) fn new(inner: R, limit: usize, tripped: Arc<AtomicBool>) -> Self {
        Self {
            inner,
            limit,
            current: 0,
            tripped,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for BoundedLines<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.tripped.load(Ordering::Relaxed) {
            return Poll::Ready(Err(too_large(self.limit)));
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let fresh = &buf.filled()[before..];
            let current = match fresh.iter().rposition(|&byte| byte == b'\n') {
                Some(end) => fresh.len() - end - 1,
                None => self.current.saturating_add(fresh.len()),
            };
            self.current = current;
            if current > self.limit {
                // An error return hands back nothing read.
                buf.set_filled(before);
                self.tripped.store(true, Ordering::Relaxed);
                return Poll::Ready(Err(too_large(self.limit)));
            }
        }
        polled
    }
}

fn too_large(limit: usize) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("the server sent a message larger than {limit} bytes"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn short_lines_pass_and_a_long_one_trips() {
        let tripped = Arc::new(AtomicBool::new(false));
        let text = b"0123456789\nabc\n".to_vec();
        let mut reader = BoundedLines::new(std::io::Cursor::new(text), 10, tripped.clone());
        let mut out = Vec::new();
        assert!(reader.read_to_end(&mut out).await.is_ok());
        assert!(!tripped.load(Ordering::Relaxed));
        let mut reader =
            BoundedLines::new(std::io::Cursor::new(vec![b'x'; 100]), 10, tripped.clone());
        assert!(reader.read_to_end(&mut Vec::new()).await.is_err());
        assert!(tripped.load(Ordering::Relaxed));
    }
}
