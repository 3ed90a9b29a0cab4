//! Server-sent events over an answer's bytes, parsed by `eventsource-stream` and bounded in
//! total size. The stream never reconnects: a broken stream is a failed request, never a
//! second (billed) one.

use eventsource_stream::{EventStreamError, Eventsource};
use futures::stream::{BoxStream, StreamExt};

use super::client::transport_error;
use super::HttpOptions;
use starweaver_core::model::ModelError;

/// Largest streamed answer read, all events together.
pub(crate) const MAX_STREAM_BYTES: usize = 32 * 1024 * 1024;

/// One event: its `event:` name (empty when none) and its `data:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The event name.
    pub event: String,
    /// The data lines, joined.
    pub data: String,
}

/// Why the byte stream under the events stopped.
#[derive(Debug)]
enum ByteError {
    Transport(reqwest::Error),
    TooLarge,
}

impl std::fmt::Display for ByteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Transport(error) => error.fmt(f),
            Self::TooLarge => write!(f, "the stream is larger than {MAX_STREAM_BYTES} bytes"),
        }
    }
}

/// The events of a streamed answer.
pub(crate) fn events(
    model: &str,
    response: reqwest::Response,
    options: &HttpOptions,
) -> BoxStream<'static, Result<SseEvent, ModelError>> {
    let model = model.to_string();
    let options = options.clone();
    let mut total = 0usize;
    let bytes = response.bytes_stream().map(move |chunk| {
        let chunk = chunk.map_err(ByteError::Transport)?;
        total = total.saturating_add(chunk.len());
        if total > MAX_STREAM_BYTES {
            return Err(ByteError::TooLarge);
        }
        Ok(chunk)
    });
    bytes
        .eventsource()
        .map(move |event| match event {
            Ok(event) => Ok(SseEvent {
                event: event.event,
                data: event.data,
            }),
            Err(EventStreamError::Transport(ByteError::Transport(error))) => {
                Err(transport_error(&model, &error, &options))
            }
            Err(error) => Err(ModelError::Request {
                model: model.clone(),
                message: format!("the event stream broke: {error}"),
            }),
        })
        .boxed()
}
