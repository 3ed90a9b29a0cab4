//! Run and conversation identifiers.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::id_source::fresh_uuid;

/// Longest prefix [`fresh_id`] writes on the stack (`conv` is the longest
/// in use); a longer one still works, through a heap string.
const MAX_PREFIX: usize = 8;

/// A fresh id: the prefix and a UUID v7 from [`fresh_uuid`], unique
/// across processes and machines (a durable store may hold runs from
/// many), and sorted by creation time. An agent loop builds a context,
/// and so two ids, for every tool call: the text is written on the stack
/// and copied once into its `Arc`.
fn fresh_id(prefix: &str) -> Arc<str> {
    let mut uuid_text = uuid::Uuid::encode_buffer();
    let uuid_text: &str = fresh_uuid().hyphenated().encode_lower(&mut uuid_text);
    let mut text = [0_u8; MAX_PREFIX + 1 + uuid::fmt::Hyphenated::LENGTH];
    let length = prefix.len() + 1 + uuid_text.len();
    let Some(slot) = text.get_mut(..length) else {
        return Arc::from(format!("{prefix}-{uuid_text}"));
    };
    let (head, tail) = slot.split_at_mut(prefix.len());
    head.copy_from_slice(prefix.as_bytes());
    tail[0] = b'-';
    tail[1..].copy_from_slice(uuid_text.as_bytes());
    // Both halves were `str`s and `-` is ASCII, so this always succeeds.
    match std::str::from_utf8(slot) {
        Ok(joined) => Arc::from(joined),
        Err(_) => Arc::from(format!("{prefix}-{uuid_text}")),
    }
}

/// What an [`Id`] names, and the prefix its fresh ids carry.
pub trait IdKind {
    /// The prefix of a fresh id (`run`, `conv`), at most eight bytes to
    /// stay on the stack while it is written.
    const PREFIX: &'static str;
}

/// An [`Id`] of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Run {}

impl IdKind for Run {
    const PREFIX: &'static str = "run";
}

/// An [`Id`] of a conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Conversation {}

impl IdKind for Conversation {
    const PREFIX: &'static str = "conv";
}

/// An identifier of what `K` names: a cheaply cloned string, serialized
/// as itself, whose `Default` mints a fresh, globally unique id (the
/// kind's prefix, `-` and a UUID v7). One generic type, so every id has
/// the same methods; the kind keeps a run id from standing in for a
/// conversation id. Users name the kinds [`RunId`] and
/// [`ConversationId`].
///
/// ```
/// use starweaver_core::context::RunId;
///
/// let fresh = RunId::default();
/// assert!(fresh.as_str().starts_with("run-"));
/// assert_eq!(RunId::new("r1").to_string(), "r1");
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent, bound = "")]
pub struct Id<K> {
    text: Arc<str>,
    #[serde(skip)]
    kind: PhantomData<fn() -> K>,
}

/// Identifies one agent run.
pub type RunId = Id<Run>;

/// Identifies one conversation (a session spanning runs).
pub type ConversationId = Id<Conversation>;

impl<K> Id<K> {
    /// Wraps an existing id.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            text: Arc::from(id.into()),
            kind: PhantomData,
        }
    }

    /// The id as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl<K: IdKind> Default for Id<K> {
    /// A fresh, globally unique id (`run-` or `conv-` and a UUID v7).
    fn default() -> Self {
        Self {
            text: fresh_id(K::PREFIX),
            kind: PhantomData,
        }
    }
}

impl<K> fmt::Debug for Id<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Id").field(&self.text).finish()
    }
}

impl<K> fmt::Display for Id<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uuid_of(id: &str, prefix: &str) -> Option<uuid::Uuid> {
        id.strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|text| uuid::Uuid::parse_str(text).ok())
    }

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
        let uuid = |id: &ConversationId| uuid_of(id.as_str(), "conv");
        assert_eq!(uuid(&first).map(|id| id.get_version_num()), Some(7));
        assert!(uuid(&first) < uuid(&second));
    }

    #[test]
    fn default_ids_keep_their_text_form() {
        let run = RunId::default();
        let text = run.as_str();
        assert_eq!(text.len(), "run-".len() + 36);
        let parsed = uuid_of(text, "run");
        assert_eq!(parsed.map(|id| id.get_version_num()), Some(7));
        assert_eq!(
            parsed.map(|id| id.get_variant()),
            Some(uuid::Variant::RFC4122)
        );
        // Lower-case and hyphenated, as `Uuid::now_v7` wrote them.
        assert_eq!(
            parsed.map(|id| format!("run-{}", id.as_hyphenated())),
            Some(text.to_string())
        );
    }

    // Exported states hold ids minted before, in whatever form; they
    // serialize as the bare string and load back unchanged.
    #[test]
    fn ids_serialize_as_their_text() -> Result<(), serde_json::Error> {
        let old = "\"run-01933c1e-8f3a-7c2b-9d4e-5f6a7b8c9d0e\"";
        let loaded: RunId = serde_json::from_str(old)?;
        assert_eq!(loaded.as_str(), "run-01933c1e-8f3a-7c2b-9d4e-5f6a7b8c9d0e");
        assert_eq!(serde_json::to_string(&loaded)?, old);
        let custom: ConversationId = serde_json::from_str("\"my-session\"")?;
        assert_eq!(custom.to_string(), "my-session");
        let fresh = ConversationId::default();
        let again: ConversationId = serde_json::from_str(&serde_json::to_string(&fresh)?)?;
        assert_eq!(again, fresh);
        Ok(())
    }
}
