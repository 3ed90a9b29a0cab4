//! Run and conversation identifiers.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A fresh id: the prefix and a UUID v7, unique across processes and
/// machines (a durable store may hold runs from many), and sorted by
/// creation time.
fn fresh_id(prefix: &str) -> Arc<str> {
    Arc::from(format!("{prefix}-{}", uuid::Uuid::now_v7().as_hyphenated()))
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
            /// A fresh, globally unique id (`run-` or `conv-` and a UUID v7).
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

    // Ids were minted from the clock plus a process counter: two
    // processes could mint the same one.
    #[test]
    fn default_ids_are_uuids_in_creation_order() {
        let first = ConversationId::default();
        let second = ConversationId::default();
        let uuid = |id: &ConversationId| {
            id.as_str()
                .strip_prefix("conv-")
                .and_then(|text| uuid::Uuid::parse_str(text).ok())
        };
        assert_eq!(uuid(&first).map(|id| id.get_version_num()), Some(7));
        assert!(uuid(&first) < uuid(&second));
    }
}
