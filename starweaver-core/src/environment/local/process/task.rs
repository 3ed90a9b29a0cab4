//! Spawned helper tasks (stream readers, input writers) that end with
//! their owner: a cancelled call aborts them instead of leaving them
//! pinned to a pipe.

use tokio::task::JoinHandle;
use tokio::time::Instant;

/// A spawned task aborted when dropped.
#[derive(Debug)]
pub(super) struct TaskGuard<T>(JoinHandle<T>);

impl<T: Send + 'static> TaskGuard<T> {
    /// Spawns `future` on the current runtime.
    pub(super) fn spawn(future: impl std::future::Future<Output = T> + Send + 'static) -> Self {
        Self(tokio::spawn(future))
    }

    /// The task's result if it ends by `deadline`; `None` when it did not
    /// (it is then aborted) or when it panicked.
    pub(super) async fn join_until(mut self, deadline: Instant) -> Option<T> {
        match tokio::time::timeout_at(deadline, &mut self.0).await {
            Ok(Ok(value)) => Some(value),
            Ok(Err(_)) | Err(_) => None,
        }
    }
}

impl<T> Drop for TaskGuard<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// `after` from now, saturating far in the future instead of
/// overflowing on absurd limits.
pub(super) fn deadline_after(after: std::time::Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(after)
        .or_else(|| now.checked_add(FAR_FUTURE))
        .unwrap_or(now)
}

/// What "no limit" resolves to: about thirty years.
const FAR_FUTURE: std::time::Duration = std::time::Duration::from_secs(30 * 365 * 86_400);

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_late_task_is_abandoned_and_a_quick_one_joined() {
        let quick = TaskGuard::spawn(async { 7 });
        assert_eq!(
            quick
                .join_until(deadline_after(Duration::from_secs(30)))
                .await,
            Some(7)
        );
        let stuck = TaskGuard::spawn(std::future::pending::<()>());
        assert_eq!(stuck.join_until(deadline_after(Duration::ZERO)).await, None);
    }

    #[test]
    fn absurd_deadlines_do_not_overflow() {
        let far = deadline_after(Duration::from_millis(u64::MAX));
        assert!(far > Instant::now());
    }
}
