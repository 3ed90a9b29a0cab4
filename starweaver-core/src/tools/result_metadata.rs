//! The metadata maps of a tool result, stored out of line.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::LazyLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::JsonMap;

/// What an empty [`ResultMetadata`] reads as.
static EMPTY: LazyLock<JsonMap> = LazyLock::new(JsonMap::new);

/// A metadata map of a [`crate::tools::ToolResult`]: a [`JsonMap`] that
/// takes one pointer while empty.
///
/// Most tools return no metadata, and a result is moved by value through
/// every layer of a dispatch (the tool's future, the panic guard, the
/// retry loop, the outcome): an inline map is 72 bytes that each move
/// copies. This one is a pointer, allocated on the first write.
///
/// It reads and writes as a [`JsonMap`] (`Deref`/`DerefMut`: `insert`,
/// `get`, `extend`, indexing, iteration), compares and serializes as the
/// map it holds (an empty map equals no map), and converts from and into
/// one with [`From`] and [`ResultMetadata::into_map`].
#[derive(Clone, Default)]
pub struct ResultMetadata(Option<Box<JsonMap>>);

impl ResultMetadata {
    /// No metadata (does not allocate).
    #[must_use]
    pub const fn new() -> Self {
        Self(None)
    }

    /// The map, moved out (empty when nothing was written).
    #[must_use]
    pub fn into_map(self) -> JsonMap {
        self.0.map(|map| *map).unwrap_or_default()
    }

    /// Adds one entry, returning the value it replaced.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        self.deref_mut().insert(key.into(), value)
    }
}

impl Deref for ResultMetadata {
    type Target = JsonMap;

    fn deref(&self) -> &JsonMap {
        self.0.as_deref().unwrap_or(&EMPTY)
    }
}

impl DerefMut for ResultMetadata {
    fn deref_mut(&mut self) -> &mut JsonMap {
        self.0.get_or_insert_with(Box::default)
    }
}

impl From<JsonMap> for ResultMetadata {
    fn from(map: JsonMap) -> Self {
        if map.is_empty() {
            Self(None)
        } else {
            Self(Some(Box::new(map)))
        }
    }
}

impl From<ResultMetadata> for JsonMap {
    fn from(metadata: ResultMetadata) -> Self {
        metadata.into_map()
    }
}

impl FromIterator<(String, Value)> for ResultMetadata {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(entries: I) -> Self {
        JsonMap::from_iter(entries).into()
    }
}

impl IntoIterator for ResultMetadata {
    type Item = (String, Value);
    type IntoIter = serde_json::map::IntoIter;

    fn into_iter(self) -> Self::IntoIter {
        self.into_map().into_iter()
    }
}

impl<'a> IntoIterator for &'a ResultMetadata {
    type Item = (&'a String, &'a Value);
    type IntoIter = serde_json::map::Iter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for ResultMetadata {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl PartialEq<JsonMap> for ResultMetadata {
    fn eq(&self, other: &JsonMap) -> bool {
        **self == *other
    }
}

impl fmt::Debug for ResultMetadata {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, formatter)
    }
}

impl Serialize for ResultMetadata {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ResultMetadata {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        JsonMap::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::ResultMetadata;
    use crate::JsonMap;

    #[test]
    fn empty_metadata_reads_compares_and_serializes_as_an_empty_map() {
        let empty = ResultMetadata::new();
        assert!(empty.is_empty());
        assert_eq!(empty, ResultMetadata::from(JsonMap::new()));
        assert_eq!(empty, JsonMap::new());
        assert_eq!(serde_json::to_value(&empty).ok(), Some(json!({})));
        assert_eq!(format!("{empty:?}"), "{}");
        assert!(empty.into_map().is_empty());
    }

    #[test]
    fn written_metadata_behaves_as_the_map_it_holds() {
        let mut metadata = ResultMetadata::new();
        metadata.insert("b", json!(1));
        metadata.extend([("a".to_string(), json!(2))]);
        assert_eq!(metadata["b"], 1);
        let keys: Vec<&str> = metadata.keys().map(String::as_str).collect();
        assert_eq!(keys, ["b", "a"]);
        let value = serde_json::to_value(&metadata).unwrap_or_default();
        assert_eq!(value, json!({"b": 1, "a": 2}));
        let back: Option<ResultMetadata> = serde_json::from_value(value).ok();
        assert_eq!(back.as_ref(), Some(&metadata));
        // Clearing every entry makes it equal to never having written one.
        metadata.clear();
        assert_eq!(metadata, ResultMetadata::new());
    }
}
