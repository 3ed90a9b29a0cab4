//! The calls of one batch, polled where they lie: in model order, or
//! together, each writing its return into its own slot.
//!
//! A response asks for a few calls, and most of them end on their first
//! poll. Polling them in one vector costs one allocation for the batch;
//! a `FuturesUnordered` allocates a task per call, moves each call's
//! future into it, and wakes through the task. Past [`SCAN_UP_TO`] calls a
//! wake would poll every call still running, so larger batches go through
//! `FuturesUnordered`, which polls only the calls that were woken.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::stream::{FuturesUnordered, Stream};
use tracing::instrument::Instrumented;

use crate::model::ToolReturnPart;

/// The most calls a batch polls in one vector; larger ones go through
/// `FuturesUnordered`.
pub(super) const SCAN_UP_TO: usize = 8;

/// One call of a batch: its dispatch, under its span, and the slot its
/// return goes to (taken when the call ends).
pub(super) struct SlottedCall<'s, F> {
    running: Instrumented<F>,
    slot: Option<&'s mut Option<ToolReturnPart>>,
}

impl<'s, F> SlottedCall<'s, F> {
    pub(super) fn new(running: Instrumented<F>, slot: &'s mut Option<ToolReturnPart>) -> Self {
        Self {
            running,
            slot: Some(slot),
        }
    }

    fn ended(&self) -> bool {
        self.slot.is_none()
    }
}

impl<'s, F> Future for SlottedCall<'s, F>
where
    F: Future<Output = ToolReturnPart> + Unpin,
{
    type Output = &'s ToolReturnPart;

    /// The return, written into the call's slot. Polled again after it
    /// ended, the call stays pending (the batch never does so).
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let Some(slot) = this.slot.take() else {
            return Poll::Pending;
        };
        let Poll::Ready(part) = Pin::new(&mut this.running).poll(cx) else {
            this.slot = Some(slot);
            return Poll::Pending;
        };
        super::super::spans::tool_returned(this.running.span(), &part);
        Poll::Ready(slot.insert(part))
    }
}

/// A batch's running calls, yielding each return as its call ends.
pub(super) enum Batch<'s, F> {
    /// Polled in one vector: in model order when `sequential` (a call
    /// starts when the one before it ended), else all at once.
    InPlace {
        calls: Vec<SlottedCall<'s, F>>,
        sequential: bool,
        /// Where the current pass over the calls goes on.
        cursor: usize,
    },
    /// Many calls at once: only the woken ones are polled.
    Unordered(FuturesUnordered<SlottedCall<'s, F>>),
}

impl<'s, F> Batch<'s, F>
where
    F: Future<Output = ToolReturnPart> + Unpin,
{
    /// The batch of `calls`.
    pub(super) fn new(calls: impl Iterator<Item = SlottedCall<'s, F>>, sequential: bool) -> Self {
        let calls: Vec<_> = calls.collect();
        if sequential || calls.len() <= SCAN_UP_TO {
            Self::InPlace {
                calls,
                sequential,
                cursor: 0,
            }
        } else {
            Self::Unordered(calls.into_iter().collect())
        }
    }
}

impl<'s, F> Stream for Batch<'s, F>
where
    F: Future<Output = ToolReturnPart> + Unpin,
{
    type Item = &'s ToolReturnPart;

    /// A pass polls each call still running once and hands on a return as
    /// soon as one ends; the next poll goes on where the pass stopped, so
    /// no call is polled twice in one pass. A pass that ends with calls
    /// still running is pending: each of them was polled in it, so each
    /// has registered the waker. In model order, a pass stops at the first
    /// call still running.
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let (calls, sequential, cursor) = match self.get_mut() {
            Self::Unordered(calls) => return Pin::new(calls).poll_next(cx),
            Self::InPlace {
                calls,
                sequential,
                cursor,
            } => (calls, *sequential, cursor),
        };
        while let Some(call) = calls.get_mut(*cursor) {
            if call.ended() {
                *cursor += 1;
                continue;
            }
            match Pin::new(call).poll(cx) {
                Poll::Ready(part) => {
                    *cursor += 1;
                    return Poll::Ready(Some(part));
                }
                Poll::Pending if sequential => return Poll::Pending,
                Poll::Pending => *cursor += 1,
            }
        }
        *cursor = 0;
        // Calls still running were each polled in this pass, some before a return was handed on.
        if calls.iter().any(|call| !call.ended()) {
            Poll::Pending
        } else {
            Poll::Ready(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::Pin;
    use std::sync::{Arc, Mutex};
    use std::task::{Context, Poll, Wake, Waker};

    use futures::StreamExt;
    use tracing::Instrument;

    use super::{Batch, SlottedCall, SCAN_UP_TO};
    use crate::model::{ToolReturnKind, ToolReturnPart};

    /// A call that ends on its `polls`-th poll, waking itself before then,
    /// and logs each poll.
    struct Scripted {
        id: usize,
        polls: usize,
        log: Arc<Mutex<Vec<usize>>>,
    }

    impl Future for Scripted {
        type Output = ToolReturnPart;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolReturnPart> {
            self.log
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(self.id);
            self.polls = self.polls.saturating_sub(1);
            if self.polls > 0 {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Poll::Ready(ToolReturnPart {
                tool_call_id: self.id.to_string().into(),
                tool_name: "t".into(),
                content: serde_json::Value::Null,
                kind: ToolReturnKind::Success,
                metadata: crate::JsonMap::new(),
                private_metadata: crate::JsonMap::new(),
            })
        }
    }

    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }

    /// Runs a batch of calls ending after `polls[i]` polls; the order the
    /// returns came in, the polls in order, and the slots.
    fn run(polls: &[usize], sequential: bool) -> (Vec<String>, Vec<usize>, Vec<Option<String>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut slots: Vec<Option<ToolReturnPart>> = Vec::new();
        slots.resize_with(polls.len(), || None);
        let mut returned = Vec::new();
        {
            let calls =
                polls
                    .iter()
                    .zip(slots.iter_mut())
                    .enumerate()
                    .map(|(id, (polls, slot))| {
                        let call = Scripted {
                            id,
                            polls: *polls,
                            log: log.clone(),
                        };
                        SlottedCall::new(call.instrument(tracing::Span::none()), slot)
                    });
            let mut batch = Batch::new(calls, sequential);
            let waker = Waker::from(Arc::new(Noop));
            let mut cx = Context::from_waker(&waker);
            loop {
                match batch.poll_next_unpin(&mut cx) {
                    Poll::Ready(Some(part)) => returned.push(part.tool_call_id.to_string()),
                    Poll::Ready(None) => break,
                    Poll::Pending => {}
                }
            }
        }
        let polled = log.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let slots = slots
            .into_iter()
            .map(|slot| slot.map(|part| part.tool_call_id.to_string()))
            .collect();
        (returned, polled, slots)
    }

    #[test]
    fn calls_together_are_polled_once_per_pass_and_return_as_they_end() {
        let (returned, polled, slots) = run(&[2, 1, 3], false);
        assert_eq!(returned, ["1", "0", "2"]);
        // Pass one polls all three (1 ends), pass two polls 0 and 2 (0 ends), then 2 alone.
        assert_eq!(polled, [0, 1, 2, 0, 2, 2]);
        assert_eq!(
            slots,
            [Some("0".into()), Some("1".into()), Some("2".into())]
        );
    }

    #[test]
    fn calls_in_model_order_start_when_the_one_before_ended() {
        let (returned, polled, _) = run(&[2, 1, 3], true);
        assert_eq!(returned, ["0", "1", "2"]);
        assert_eq!(polled, [0, 0, 1, 2, 2, 2]);
    }

    #[test]
    fn a_large_batch_returns_every_call_once() {
        let polls: Vec<usize> = (0..SCAN_UP_TO * 2).map(|index| 1 + index % 3).collect();
        let (mut returned, _, slots) = run(&polls, false);
        returned.sort_by_key(|id| id.parse::<usize>().unwrap_or(usize::MAX));
        let expected: Vec<String> = (0..polls.len()).map(|id| id.to_string()).collect();
        assert_eq!(returned, expected);
        assert!(slots.iter().all(Option::is_some));
    }

    #[test]
    fn an_empty_batch_ends_at_once() {
        let (returned, polled, _) = run(&[], false);
        assert!(returned.is_empty() && polled.is_empty());
    }
}
