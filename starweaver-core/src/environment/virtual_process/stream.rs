//! One simulated output stream: every byte counted, the first ones kept
//! up to the provider's per-stream bound.

use crate::environment::StreamCapture;

/// An output stream being written.
#[derive(Clone, Debug, Default)]
pub(super) struct Stream {
    kept: Vec<u8>,
    bytes: u64,
    max_bytes: u64,
}

impl Stream {
    /// An empty stream keeping at most `max_bytes`.
    pub(super) fn new(max_bytes: u64) -> Self {
        Self {
            kept: Vec::new(),
            bytes: 0,
            max_bytes,
        }
    }

    /// Writes `data`: counted in full, kept while there is room.
    pub(super) fn push(&mut self, data: &[u8]) {
        let room = self.max_bytes.saturating_sub(self.kept.len() as u64);
        let take = usize::try_from(room).unwrap_or(usize::MAX).min(data.len());
        self.kept
            .extend_from_slice(data.get(..take).unwrap_or(data));
        self.bytes = self.bytes.saturating_add(data.len() as u64);
    }

    /// Moves what `other` holds to the end of this stream (its dropped
    /// bytes stay counted, and stay dropped).
    pub(super) fn append(&mut self, other: Stream) {
        let dropped = other.bytes.saturating_sub(other.kept.len() as u64);
        self.push(&other.kept);
        self.bytes = self.bytes.saturating_add(dropped);
    }

    /// The stream as providers report it.
    pub(super) fn capture(&self) -> StreamCapture {
        StreamCapture {
            text: String::from_utf8_lossy(&self.kept).into_owned(),
            bytes: self.bytes,
            captured_bytes: self.kept.len() as u64,
            truncated: self.bytes > self.kept.len() as u64,
            drain_timed_out: false,
            capture_failed: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_count_everything_and_keep_the_head() {
        let mut stream = Stream::new(4);
        stream.push(b"ab");
        stream.push(b"cdef");
        let capture = stream.capture();
        assert_eq!(
            (capture.text.as_str(), capture.bytes, capture.captured_bytes),
            ("abcd", 6, 4)
        );
        assert!(capture.truncated);
        let mut held = Stream::new(2);
        held.push(b"xyz");
        let mut out = Stream::new(10);
        out.push(b"1");
        out.append(held);
        let capture = out.capture();
        assert_eq!((capture.text.as_str(), capture.bytes), ("1xy", 4));
        assert!(capture.truncated);
        let empty = Stream::new(0);
        assert!(!empty.capture().truncated);
    }
}
