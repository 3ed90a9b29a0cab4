//! The shared allowance of processes running at once. Foreground calls
//! queue for a permit (their caller is waiting anyway, and the wait is
//! bounded by the command's time limit and by cancellation); background
//! starts never queue: they must hand back a handle promptly, so without
//! a free permit they are refused with [`EnvironmentError::ProcessLimit`].
//! A permit is held until the process has ended and its streams are
//! done, so every start either runs or gets that error.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::environment::EnvironmentError;

/// The allowance: `limit` permits, one per running process.
#[derive(Debug)]
pub(super) struct Permits {
    semaphore: Arc<Semaphore>,
    limit: usize,
}

/// A held permit: released on drop.
pub(super) type Permit = OwnedSemaphorePermit;

impl Permits {
    /// `limit` processes at once (0 runs nothing).
    pub(super) fn new(limit: usize) -> Self {
        Self {
            semaphore: Arc::new(Semaphore::new(limit.min(Semaphore::MAX_PERMITS))),
            limit,
        }
    }

    /// Waits up to `wait` for a permit (foreground).
    ///
    /// # Errors
    /// [`EnvironmentError::ProcessLimit`] when none freed in time, or at
    /// once when the limit is 0.
    pub(super) async fn queue(&self, wait: Duration) -> Result<Permit, EnvironmentError> {
        if self.limit == 0 {
            return Err(self.refused());
        }
        match tokio::time::timeout(wait, Arc::clone(&self.semaphore).acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_)) | Err(_) => Err(self.refused()),
        }
    }

    /// A permit if one is free now (background).
    ///
    /// # Errors
    /// [`EnvironmentError::ProcessLimit`] when all are held.
    pub(super) fn take_now(&self) -> Result<Permit, EnvironmentError> {
        Arc::clone(&self.semaphore)
            .try_acquire_owned()
            .map_err(|_| self.refused())
    }

    fn refused(&self) -> EnvironmentError {
        EnvironmentError::ProcessLimit { limit: self.limit }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn background_is_refused_and_foreground_queues() {
        let permits = Permits::new(1);
        let held = permits.take_now().unwrap();
        assert!(matches!(
            permits.take_now(),
            Err(EnvironmentError::ProcessLimit { limit: 1 })
        ));
        assert!(permits.queue(Duration::from_millis(10)).await.is_err());
        let (queued, ()) = tokio::join!(permits.queue(Duration::from_secs(60)), async move {
            tokio::task::yield_now().await;
            drop(held);
        });
        assert!(queued.is_ok());
    }

    #[tokio::test]
    async fn a_zero_limit_runs_nothing_and_a_huge_one_does_not_panic() {
        let none = Permits::new(0);
        assert!(none.take_now().is_err());
        assert!(none.queue(Duration::from_secs(60)).await.is_err());
        assert!(Permits::new(usize::MAX).take_now().is_ok());
    }
}
