//! Run and conversation identifiers.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// Unique-enough id: wall-clock nanoseconds plus a process-wide counter.
fn fresh_id(prefix: &str) -> Arc<str> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    Arc::from(format!("{prefix}-{nanos:x}-{count:x}"))
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Arc<str>);

        impl $name {
            /// Wraps an existing id.
            pub fn new(id: impl Into<String>) -> Self {
                Self(Arc::from(id.into()))
            }

            /// The id as text.
            #[must_use]
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl Default for $name {
            /// A fresh, process-unique id.
            fn default() -> Self {
                Self(fresh_id($prefix))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(
    /// Identifies one agent run.
    RunId,
    "run"
);
id_type!(
    /// Identifies one conversation (a session spanning runs).
    ConversationId,
    "conv"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_ids_are_unique() {
        assert_ne!(RunId::default(), RunId::default());
        assert_eq!(RunId::new("r1").as_str(), "r1");
    }
}
