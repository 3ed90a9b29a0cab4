//! A worker's hold on a run: without a current lease, a worker writes nothing.

use serde::{Deserialize, Serialize};

use crate::context::RunId;

/// A claim on one run by one worker, until `expires_at` (milliseconds since the Unix epoch)
/// unless renewed. The token changes with every claim, so a worker whose lease expired and
/// whose run another worker claimed holds a token no write accepts any more.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Lease {
    /// The run held.
    pub run_id: RunId,
    /// The worker holding it.
    pub worker: String,
    /// This claim's token.
    pub token: String,
    /// When it lapses unless renewed.
    pub expires_at: u64,
}

impl Lease {
    /// A lease on `run_id` for `worker` with `token`, until `expires_at`.
    #[must_use]
    pub fn new(
        run_id: RunId,
        worker: impl Into<String>,
        token: impl Into<String>,
        expires_at: u64,
    ) -> Self {
        Self {
            run_id,
            worker: worker.into(),
            token: token.into(),
            expires_at,
        }
    }
}
