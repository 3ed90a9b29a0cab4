//! Token counts as both protocols send them.

use serde::Deserialize;

/// A token count, `null` read as 0 (the protocols allow null for counts a server does not
/// track, and compatible servers send it). For `#[serde(deserialize_with = ...)]`.
///
/// # Errors
/// When the value is neither a whole number nor null.
pub(crate) fn count<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    Ok(Option::<u64>::deserialize(deserializer)?.unwrap_or(0))
}
