//! A server's stderr, drained continuously into a bounded ring buffer so
//! the pipe never fills and blocks the server; its tail goes into error
//! messages.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};

/// Bytes of stderr kept: the last 8 KiB.
pub(crate) const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// The last bytes a server wrote to stderr.
#[derive(Clone, Debug, Default)]
pub(crate) struct StderrTail {
    buffer: Arc<Mutex<VecDeque<u8>>>,
}

impl StderrTail {
    /// Starts draining `pipe` until it closes.
    pub(crate) fn drain(pipe: impl AsyncRead + Send + Unpin + 'static) -> Self {
        let tail = Self::default();
        let buffer = Arc::clone(&tail.buffer);
        tokio::spawn(async move {
            let mut pipe = pipe;
            let mut chunk = vec![0_u8; 8 * 1024];
            loop {
                match pipe.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => push(&buffer, &chunk[..read]),
                }
            }
        });
        tail
    }

    /// The kept bytes as text (lossy), starting at a line when it can.
    pub(crate) fn text(&self) -> String {
        let bytes: Vec<u8> = {
            let buffer = self
                .buffer
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            buffer.iter().copied().collect()
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if bytes.len() >= STDERR_TAIL_BYTES {
            if let Some(start) = text.find('\n') {
                return text[start + 1..].to_string();
            }
        }
        text
    }
}

fn push(buffer: &Mutex<VecDeque<u8>>, bytes: &[u8]) {
    let mut buffer = buffer
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let bytes = if bytes.len() > STDERR_TAIL_BYTES {
        &bytes[bytes.len() - STDERR_TAIL_BYTES..]
    } else {
        bytes
    };
    let overflow = (buffer.len() + bytes.len()).saturating_sub(STDERR_TAIL_BYTES);
    buffer.drain(..overflow);
    buffer.extend(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_the_tail_is_kept_and_the_pipe_is_read_to_its_end() {
        let mut text = String::new();
        for line in 0..10_000 {
            text.push_str(&format!("line {line}\n"));
        }
        let tail = StderrTail::drain(std::io::Cursor::new(text.into_bytes()));
        for _ in 0..100 {
            if tail.text().contains("line 9999") {
                break;
            }
            tokio::task::yield_now().await;
        }
        let kept = tail.text();
        assert!(kept.len() <= STDERR_TAIL_BYTES);
        assert!(kept.starts_with("line "), "{kept:.40}");
        assert!(kept.ends_with("line 9999\n"));
        assert!(!kept.contains("line 1\n"));
    }
}
