//! What the loopback server answers: one [`Reply`] per request, and the
//! [`Split`] that cuts a streamed body into separate writes.

use std::time::Duration;

use serde_json::Value;

use super::fixtures::{fixture, fixture_json, sse_events};

/// One scripted answer; each request the server reads takes the next one.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A complete JSON response (`content-type: application/json`).
    Json {
        /// HTTP status code.
        status: u16,
        /// Response headers; framing headers are the server's own.
        headers: Vec<(String, String)>,
        /// The body, serialized compactly.
        body: Value,
    },
    /// A complete response whose body is sent as is: malformed JSON, an
    /// HTML error page from a proxy, an empty body.
    Text {
        /// HTTP status code.
        status: u16,
        /// Response headers (`content-type: text/plain` unless replaced).
        headers: Vec<(String, String)>,
        /// The body, byte for byte.
        body: String,
    },
    /// A server-sent-events stream, written chunked: the events
    /// concatenated, cut into writes by `split`, flushed after each write
    /// and separated by `pause`.
    Sse {
        /// HTTP status code.
        status: u16,
        /// Response headers (`content-type: text/event-stream` unless
        /// replaced).
        headers: Vec<(String, String)>,
        /// Raw SSE text, each event with its terminating blank line (as
        /// [`sse_events`] returns them).
        events: Vec<String>,
        /// Where the body is cut into writes.
        split: Split,
        /// Wait between writes, so the client's reads see them apart.
        pause: Duration,
    },
    /// A 200 event-stream head and `bytes` as the start of its chunked
    /// body, then the socket is closed without ending the body: a
    /// connection dropped mid-stream.
    DropAfter {
        /// What the client receives before the drop.
        bytes: String,
    },
    /// `bytes` written verbatim, then the socket is closed: anything a
    /// test needs that is not well-formed HTTP (empty: closed before any
    /// answer).
    Raw {
        /// The bytes on the wire.
        bytes: Vec<u8>,
    },
    /// Reads the request and never answers; the connection ends when the
    /// client hangs up or the server is dropped.
    Hang,
}

/// Where a streamed body is cut into separate writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Split {
    /// One write per event.
    #[default]
    Events,
    /// The whole body in one write.
    Whole,
    /// Writes of at most this many bytes (`Every(1)`: one byte per write;
    /// 0 counts as 1).
    Every(usize),
    /// Cut at these byte offsets of the concatenated body, which may fall
    /// inside a line or a UTF-8 character (see [`awkward_cuts`] and
    /// [`utf8_cut`]); offsets out of range are ignored.
    At(Vec<usize>),
}

impl Reply {
    /// A JSON response with `status`.
    pub fn json(status: u16, body: Value) -> Reply {
        Reply::Json {
            status,
            headers: vec![header("content-type", "application/json")],
            body,
        }
    }

    /// A plain-text response with `status`.
    pub fn text(status: u16, body: impl Into<String>) -> Reply {
        Reply::Text {
            status,
            headers: vec![header("content-type", "text/plain; charset=utf-8")],
            body: body.into(),
        }
    }

    /// A 200 event stream of `events`, one write per event.
    pub fn sse(events: Vec<String>) -> Reply {
        Reply::Sse {
            status: 200,
            headers: vec![
                header("content-type", "text/event-stream"),
                header("cache-control", "no-cache"),
            ],
            events,
            split: Split::Events,
            pause: Duration::ZERO,
        }
    }

    /// The provider fixture `name` as a JSON response with `status`.
    pub fn json_file(status: u16, provider: &str, name: &str) -> Reply {
        Reply::json(status, fixture_json(provider, name))
    }

    /// The provider fixture `name` (a `.sse` file) as a 200 event stream.
    pub fn sse_file(provider: &str, name: &str) -> Reply {
        Reply::sse(sse_events(&fixture(provider, name)))
    }

    /// The same reply with header `name: value`, replacing any header of
    /// that name (compared case-insensitively); `DropAfter`, `Raw` and
    /// `Hang` are unchanged. `connection: close` closes the connection
    /// after the reply.
    #[must_use]
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Json { headers, .. }
        | Reply::Text { headers, .. }
        | Reply::Sse { headers, .. } = &mut self
        {
            headers.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
            headers.push(header(name, value));
        }
        self
    }

    /// The same reply with `status` (not for `DropAfter`, `Raw` or
    /// `Hang`, which have none).
    #[must_use]
    pub fn with_status(mut self, new: u16) -> Reply {
        if let Reply::Json { status, .. } | Reply::Text { status, .. } | Reply::Sse { status, .. } =
            &mut self
        {
            *status = new;
        }
        self
    }

    /// The same stream cut by `split` (other replies are unchanged).
    #[must_use]
    pub fn with_split(mut self, new: Split) -> Reply {
        if let Reply::Sse { split, .. } = &mut self {
            *split = new;
        }
        self
    }

    /// The same stream with `wait` between writes (other replies are
    /// unchanged).
    #[must_use]
    pub fn with_pause(mut self, wait: Duration) -> Reply {
        if let Reply::Sse { pause, .. } = &mut self {
            *pause = wait;
        }
        self
    }
}

impl Split {
    /// The writes `body` is cut into; never an empty one (an empty chunk
    /// would end a chunked body early).
    pub(super) fn pieces<'a>(&self, events: &'a [String], body: &'a [u8]) -> Vec<&'a [u8]> {
        let pieces: Vec<&[u8]> = match self {
            Split::Events => events.iter().map(String::as_bytes).collect(),
            Split::Whole => vec![body],
            Split::Every(size) => body.chunks((*size).max(1)).collect(),
            Split::At(cuts) => {
                let mut cuts: Vec<usize> = cuts
                    .iter()
                    .copied()
                    .filter(|cut| *cut > 0 && *cut < body.len())
                    .collect();
                cuts.sort_unstable();
                cuts.dedup();
                let mut pieces = Vec::with_capacity(cuts.len() + 1);
                let mut start = 0;
                for cut in cuts {
                    pieces.push(&body[start..cut]);
                    start = cut;
                }
                pieces.push(&body[start..]);
                pieces
            }
        };
        pieces
            .into_iter()
            .filter(|piece| !piece.is_empty())
            .collect()
    }
}

/// The first byte offset of `text` that falls inside a multi-byte UTF-8
/// character, so a cut there leaves half a character in each write; none
/// when `text` is ASCII.
pub fn utf8_cut(text: &str) -> Option<usize> {
    (1..text.len()).find(|offset| !text.is_char_boundary(*offset))
}

/// Cuts that land where a careless SSE reader breaks: inside the `data:`
/// field name of every line, in the middle of every line, between the two
/// newlines that end each event, and inside every multi-byte character.
/// Sorted, no duplicates, all inside `text`.
pub fn awkward_cuts(text: &str) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches('\n').len();
        if content > 2 {
            cuts.push(line_start + 2);
            cuts.push(line_start + content / 2);
        }
        if content == 0 {
            // The second newline of an event's terminator: cut just
            // before it.
            cuts.push(line_start);
        }
        line_start += line.len();
    }
    cuts.extend(
        text.char_indices()
            .filter(|(_, character)| character.len_utf8() > 1)
            .map(|(offset, _)| offset + 1),
    );
    cuts.retain(|cut| *cut > 0 && *cut < text.len());
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// One header pair.
fn header(name: &str, value: &str) -> (String, String) {
    (name.to_string(), value.to_string())
}
