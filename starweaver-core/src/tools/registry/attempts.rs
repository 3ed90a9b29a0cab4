//! Running a tool, again after an unexpected failure while internal
//! retries remain: one small future that owns the call's context once.
//!
//! Written by hand rather than as an `async fn`: a generator keeps each
//! argument of each nested `async fn` in a slot of its own for its whole
//! life, so the context (and the child futures) were stored, and copied
//! at every poll boundary, several times over. Here the context has one
//! slot, and the attempt in flight is the tool's own boxed future.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::Value;

use super::{CallLimits, ToolEntry};
use crate::tools::panic_guard::panicked;
use crate::tools::{ToolContext, ToolError, ToolResult};
use crate::BoxFuture;

/// The attempts of one call; resolves to the last result and how many
/// times the tool ran.
pub(super) struct Attempts<'a> {
    entry: &'a ToolEntry,
    arguments: &'a Value,
    limits: CallLimits,
    /// The context of the attempts still to start: earlier attempts run
    /// on a copy, the last one takes it.
    ctx: Option<ToolContext>,
    /// Attempts started so far.
    started: u32,
    /// The attempt in flight.
    running: Option<BoxFuture<'a, Result<ToolResult, ToolError>>>,
}

/// How starting an attempt went.
enum Start {
    /// The attempt is in flight.
    Running,
    /// The tool panicked before it returned a future: the attempt's result.
    Ended(Result<ToolResult, ToolError>),
    /// The call was cancelled before this attempt: no attempt is counted.
    Cancelled,
}

impl<'a> Attempts<'a> {
    /// The attempts of a call that passed its gate; nothing runs until the
    /// first poll.
    pub(super) fn new(
        entry: &'a ToolEntry,
        ctx: ToolContext,
        arguments: &'a Value,
        limits: CallLimits,
    ) -> Self {
        Self {
            entry,
            arguments,
            limits,
            ctx: Some(ctx),
            started: 0,
            running: None,
        }
    }

    fn name(&self) -> &'a str {
        self.entry.definition.name.as_str()
    }

    /// Starts the next attempt under its cancellation token and timeout.
    fn start(&mut self) -> Start {
        let Some(ctx) = self.ctx.as_ref() else {
            // Unreachable: the last attempt is never followed by another.
            return Start::Cancelled;
        };
        if ctx.is_cancelled() {
            return Start::Cancelled;
        }
        let mut attempt_ctx = if self.started >= self.limits.internal_retries {
            match self.ctx.take() {
                Some(ctx) => ctx,
                None => return Start::Cancelled,
            }
        } else {
            ctx.clone()
        };
        attempt_ctx.set_execution_attempt(self.started);
        let token = attempt_ctx.cancellation_token().cloned();
        let (tool, arguments) = (&self.entry.tool, self.arguments);
        let call = match catch_unwind(AssertUnwindSafe(|| tool.call(attempt_ctx, arguments))) {
            Ok(call) => call,
            Err(panic) => return Start::Ended(Err(panicked(self.name(), &*panic))),
        };
        let timeout_ms = self.limits.timeout_ms;
        self.running = Some(if token.is_none() && timeout_ms.is_none() {
            call
        } else {
            Box::pin(limited(call, token, timeout_ms, self.name()))
        });
        Start::Running
    }
}

impl Future for Attempts<'_> {
    type Output = (Result<ToolResult, ToolError>, u32);

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        loop {
            let result = match this.running.as_mut() {
                // A panic while polling ends the attempt as a failure.
                Some(running) => match catch_unwind(AssertUnwindSafe(|| running.as_mut().poll(cx)))
                {
                    Ok(Poll::Pending) => return Poll::Pending,
                    Ok(Poll::Ready(result)) => result,
                    Err(panic) => Err(panicked(this.name(), &*panic)),
                },
                None => match this.start() {
                    Start::Running => continue,
                    Start::Ended(result) => result,
                    Start::Cancelled => {
                        let cancelled = ToolError::Cancelled {
                            tool: this.entry.definition.name.clone(),
                        };
                        return Poll::Ready((Err(cancelled), this.started));
                    }
                },
            };
            this.running = None;
            this.started += 1;
            // Another attempt only after an unexpected failure, while the
            // context for one is left.
            let again = this.ctx.is_some()
                && result
                    .as_ref()
                    .err()
                    .is_some_and(ToolError::is_retryable_execution);
            if !again {
                return Poll::Ready((result, this.started));
            }
        }
    }
}

/// Runs a call under its cancellation token and timeout.
async fn limited(
    call: impl Future<Output = Result<ToolResult, ToolError>>,
    token: Option<tokio_util::sync::CancellationToken>,
    timeout_ms: Option<u64>,
    name: &str,
) -> Result<ToolResult, ToolError> {
    let cancellable = async {
        match token {
            Some(token) => tokio::select! {
                biased;
                result = call => result,
                () = token.cancelled() => Err(ToolError::Cancelled { tool: name.to_string() }),
            },
            None => call.await,
        }
    };
    match timeout_ms {
        Some(timeout_ms) => tokio::time::timeout(Duration::from_millis(timeout_ms), cancellable)
            .await
            .unwrap_or_else(|_| {
                Err(ToolError::Timeout {
                    tool: name.to_string(),
                    timeout_ms,
                })
            }),
        None => cancellable.await,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    use serde_json::json;

    use crate::model::ToolCallPart;
    use crate::tools::{FunctionTool, ToolContext, ToolError, ToolRegistry, ToolResult};

    /// A tool that counts its runs and fails unexpectedly on the first
    /// `failures` of them: with an error from its future, or, when
    /// `panics`, with a panic before it returns one.
    fn flaky(runs: &Arc<AtomicU32>, failures: u32, panics: bool) -> FunctionTool {
        let runs = runs.clone();
        FunctionTool::new("flaky", None, json!({"type": "object"}), move |_, _| {
            let run = runs.fetch_add(1, Ordering::SeqCst);
            assert!(!(panics && run < failures), "tool panicked on run {run}");
            async move {
                if run < failures {
                    return Err(ToolError::execution("try again"));
                }
                Ok(ToolResult::new(json!({"run": run})))
            }
        })
    }

    fn call() -> ToolCallPart {
        ToolCallPart::new("call_1", "flaky", json!({}))
    }

    #[tokio::test]
    async fn a_call_runs_nothing_until_it_is_first_polled() {
        let runs = Arc::new(AtomicU32::new(0));
        let registry = ToolRegistry::new().with_tool(Arc::new(flaky(&runs, 0, false)));
        let call = call();
        let pending = registry.execute_call(ToolContext::default(), &call);
        assert_eq!(runs.load(Ordering::SeqCst), 0);
        let part = pending.await;
        assert!(part.is_success(), "{part:?}");
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn unexpected_failures_and_panics_are_attempts_retried_on_the_same_call() {
        for panics in [false, true] {
            let runs = Arc::new(AtomicU32::new(0));
            let registry = ToolRegistry::new().with_tool(Arc::new(flaky(&runs, 2, panics)));
            let outcome = registry
                .call_tool(ToolContext::default(), "call_1", "flaky", json!({}))
                .await;
            assert_eq!(outcome.execution_attempts, 3, "panics: {panics}");
            let content = outcome.result.ok().map(|result| result.content);
            assert_eq!(content, Some(json!({"run": 2})), "panics: {panics}");
        }
    }

    #[test]
    fn a_calls_future_stays_small() {
        // Futures are moved when awaited, joined or spawned, and a move of
        // more than 128 bytes is a `memcpy` call. A call's state was over
        // 1 KB when each nested `async fn` kept its own copy of the
        // context, then 216 bytes while it held the dispatch inline.
        let registry = ToolRegistry::new();
        let call = call();
        let size = std::mem::size_of_val(&registry.execute_call(ToolContext::default(), &call));
        assert!(size <= 128, "execute_call's future is {size} bytes");
    }
}
