//! Panic guards: tool and toolset code a host did not write (callbacks,
//! validators, hooks, lifecycle) runs behind these, so a panic becomes an
//! outcome the runtime reports instead of unwinding through a run.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures::future::{self, Either};
use futures::FutureExt;

use super::ToolError;

/// Runs a tool's availability or loading callback; a panic counts as
/// "no", so a faulty callback hides its tool instead of crashing the run.
pub(crate) fn survives(check: impl FnOnce() -> bool) -> bool {
    std::panic::catch_unwind(AssertUnwindSafe(check)).unwrap_or(false)
}

/// Runs tool-supplied synchronous code (validators, argument checks),
/// turning a panic into an execution failure.
pub(crate) fn guard(
    name: &str,
    check: impl FnOnce() -> Result<(), ToolError>,
) -> Result<(), ToolError> {
    std::panic::catch_unwind(AssertUnwindSafe(check))
        .unwrap_or_else(|panic| Err(panicked(name, &*panic)))
}

/// Starts a future now and polls it to completion when awaited, catching
/// a panic in either step. Not an `async fn`: that would keep `start`'s
/// captures alive beside the future and enlarge every call's state.
pub(crate) fn catch_panics<F: Future>(
    start: impl FnOnce() -> F,
) -> impl Future<Output = Result<F::Output, Box<dyn Any + Send>>> {
    match std::panic::catch_unwind(AssertUnwindSafe(start)) {
        Ok(future) => Either::Left(AssertUnwindSafe(future).catch_unwind()),
        // `lazy`, not `ready`, and the payload boxed once more: one thin
        // pointer fits beside the started future's niche, so a caller's
        // state machine stays as small as with the future alone.
        Err(panic) => {
            let panic = Box::new(panic);
            Either::Right(future::lazy(move |_| Err(*panic)))
        }
    }
}

/// A tool's panic as an execution failure naming the tool.
pub(crate) fn panicked(name: &str, panic: &(dyn Any + Send)) -> ToolError {
    ToolError::execution(format!("tool `{name}` panicked: {}", panic_text(panic)))
}

/// The message a panic carried.
pub(crate) fn panic_text(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|text| (*text).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_string())
}
