//! Turns a provider's server-sent events into the runtime's stream: text deltas as they
//! arrive, then the calls and the assembled response. Reading stops at the protocol's end
//! marker; a stream that breaks or ends early is an error, never a partial answer.

use std::collections::VecDeque;

use futures::stream::{self, BoxStream, StreamExt};

use super::{request_error, scrubbed, Plans, SseEvent};
use starweaver_core::model::{ModelError, ModelResponse, ModelResponseStream, ModelStreamEvent};

/// A protocol's stream state.
pub trait Assemble: Send + 'static {
    /// Takes one event; returns the text it adds.
    fn push(&mut self, event: &SseEvent) -> Result<Option<String>, String>;
    /// Whether the protocol's end marker arrived.
    fn is_done(&self) -> bool;
    /// The assembled response, or why the answer is incomplete.
    fn finish(self) -> Result<ModelResponse, String>;
}

struct State<A> {
    model: String,
    events: BoxStream<'static, Result<SseEvent, ModelError>>,
    assembler: Option<A>,
    plans: Plans,
    queue: VecDeque<Result<ModelStreamEvent, ModelError>>,
    /// The key the request was sent with, scrubbed from every error (a server may echo it in
    /// an error event or a chunk the parser quotes).
    key: String,
}

/// The runtime stream over `events`; `key` is scrubbed from its errors.
pub(crate) fn drive<A: Assemble>(
    model: &str,
    events: BoxStream<'static, Result<SseEvent, ModelError>>,
    assembler: A,
    plans: Plans,
    key: String,
) -> ModelResponseStream {
    let state = State {
        model: model.to_string(),
        events,
        assembler: Some(assembler),
        plans,
        queue: VecDeque::new(),
        key,
    };
    stream::unfold(state, |mut state| async move {
        loop {
            if let Some(item) = state.queue.pop_front() {
                let item = item.map_err(|error| scrubbed(error, &state.key));
                return Some((item, state));
            }
            let assembler = state.assembler.as_mut()?;
            let next = if assembler.is_done() {
                drain(&mut state.events).await;
                None
            } else {
                state.events.next().await
            };
            match next {
                Some(Ok(event)) => match assembler.push(&event) {
                    Ok(Some(delta)) => state
                        .queue
                        .push_back(Ok(ModelStreamEvent::TextDelta(delta))),
                    Ok(None) => {}
                    Err(message) => {
                        state.assembler = None;
                        state
                            .queue
                            .push_back(Err(request_error(&state.model, message)));
                    }
                },
                Some(Err(error)) => {
                    state.assembler = None;
                    state.queue.push_back(Err(error));
                }
                None => {
                    let finished = state.assembler.take().map(Assemble::finish);
                    match finished {
                        Some(Ok(mut response)) => {
                            state.plans.restore(&mut response);
                            for call in response.calls() {
                                state
                                    .queue
                                    .push_back(Ok(ModelStreamEvent::ToolCall(call.clone())));
                            }
                            state
                                .queue
                                .push_back(Ok(ModelStreamEvent::Finished(response)));
                        }
                        Some(Err(message)) => {
                            state
                                .queue
                                .push_back(Err(request_error(&state.model, message)));
                        }
                        None => {}
                    }
                }
            }
        }
    })
    .boxed()
}

/// Reads what follows the protocol's end marker (normally only the body's end), so the
/// connection goes back to the pool for the next step instead of a new (TLS) connection; a
/// server that keeps the stream open past its end is left after a moment and a few events.
async fn drain(events: &mut BoxStream<'static, Result<SseEvent, ModelError>>) {
    const MOST_EVENTS: usize = 16;
    let _ = tokio::time::timeout(std::time::Duration::from_millis(250), async {
        for _ in 0..MOST_EVENTS {
            if !matches!(events.next().await, Some(Ok(_))) {
                break;
            }
        }
    })
    .await;
}
