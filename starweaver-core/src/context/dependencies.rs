//! Typed and named dependencies that hosts attach for tools to use.

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

type Shared = Arc<dyn Any + Send + Sync>;

/// A bag of shared dependencies, looked up by Rust type or by a stable
/// name.
///
/// Typed entries are a convenience inside one binary; named entries are
/// the stable host-capability contract that dependency profiles filter by.
/// [`Dependencies::insert`] also registers the value under its Rust type
/// name so compatibility lookups by name keep working.
#[derive(Clone, Default)]
pub struct Dependencies {
    // Copy-on-write: every tool call clones its context, so cloning the
    // bag must not copy the maps. An empty bag has no maps at all, so
    // making, cloning and dropping one (most calls' contexts) costs
    // neither an allocation nor a reference count.
    inner: Option<Arc<Maps>>,
}

// Keys are type ids and names the program chose, never input: a fast
// hasher is safe here, and each call of a run inserts into these maps.
#[derive(Clone, Default)]
struct Maps {
    typed: HashMap<TypeId, Shared, foldhash::fast::RandomState>,
    // Type names are `'static`: keys borrow them instead of allocating.
    named: HashMap<Cow<'static, str>, Shared, foldhash::fast::RandomState>,
}

/// The maps of an empty bag, for lookups.
static EMPTY: std::sync::LazyLock<Maps> = std::sync::LazyLock::new(Maps::default);

impl Dependencies {
    /// The maps to read.
    fn maps(&self) -> &Maps {
        self.inner.as_deref().unwrap_or(&EMPTY)
    }

    /// The maps to change, copied first when shared.
    fn maps_mut(&mut self) -> &mut Maps {
        Arc::make_mut(self.inner.get_or_insert_with(Arc::default))
    }

    /// Creates an empty bag.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Inserts a value by its type (and under its type name).
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.insert_arc(Arc::new(value));
    }

    /// Inserts a shared value by its type (and under its type name).
    pub fn insert_arc<T: Any + Send + Sync>(&mut self, value: Arc<T>) {
        let shared: Shared = value;
        let maps = self.maps_mut();
        maps.named
            .insert(Cow::Borrowed(std::any::type_name::<T>()), shared.clone());
        maps.typed.insert(TypeId::of::<T>(), shared);
    }

    /// Inserts a value under a stable capability name.
    pub fn insert_named<T: Any + Send + Sync>(&mut self, name: impl Into<String>, value: T) {
        self.maps_mut()
            .named
            .insert(Cow::Owned(name.into()), Arc::new(value));
    }

    /// Inserts a shared value under a stable capability name.
    pub fn insert_named_arc<T: Any + Send + Sync>(
        &mut self,
        name: impl Into<String>,
        value: Arc<T>,
    ) {
        self.maps_mut().named.insert(Cow::Owned(name.into()), value);
    }

    /// Looks a value up by type.
    #[must_use]
    pub fn get<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.maps()
            .typed
            .get(&TypeId::of::<T>())
            .and_then(|value| value.clone().downcast::<T>().ok())
    }

    /// Looks a value up by name, checking its type.
    #[must_use]
    pub fn get_named<T: Any + Send + Sync>(&self, name: &str) -> Option<Arc<T>> {
        self.maps()
            .named
            .get(name)
            .and_then(|value| value.clone().downcast::<T>().ok())
    }

    /// True when a value of this type is present.
    #[must_use]
    pub fn contains<T: Any + Send + Sync>(&self) -> bool {
        self.maps().typed.contains_key(&TypeId::of::<T>())
    }

    /// True when a value is registered under this name.
    #[must_use]
    pub fn contains_named(&self, name: &str) -> bool {
        self.maps().named.contains_key(name)
    }

    /// Removes a typed value (and its type-name entry).
    pub fn remove<T: Any + Send + Sync>(&mut self) {
        if !self.contains::<T>() {
            return;
        }
        let maps = self.maps_mut();
        maps.typed.remove(&TypeId::of::<T>());
        maps.named.remove(std::any::type_name::<T>());
    }

    /// Names of all named entries, sorted.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .maps()
            .named
            .keys()
            .map(|name| name.to_string())
            .collect();
        names.sort();
        names
    }

    /// Copies every entry of `other` into `self`, replacing duplicates.
    pub fn extend(&mut self, other: &Self) {
        if other.is_empty() {
            return;
        }
        if self.is_empty() {
            self.inner = other.inner.clone();
            return;
        }
        let maps = self.maps_mut();
        maps.typed.extend(
            other
                .maps()
                .typed
                .iter()
                .map(|(key, value)| (*key, value.clone())),
        );
        maps.named.extend(
            other
                .maps()
                .named
                .iter()
                .map(|(key, value)| (key.clone(), value.clone())),
        );
    }

    /// Copies only the typed entries of `other` (and their type names).
    pub(crate) fn extend_typed(&mut self, other: &Self) {
        let other = other.maps();
        if other.typed.is_empty() {
            return;
        }
        let maps = self.maps_mut();
        for (key, value) in &other.typed {
            maps.typed.insert(*key, value.clone());
        }
        for (name, value) in &other.named {
            if other.typed.values().any(|typed| Arc::ptr_eq(typed, value)) {
                maps.named.insert(name.clone(), value.clone());
            }
        }
    }

    /// A bag holding only the named entries in `names` that exist.
    pub(crate) fn select_named<'a>(&self, names: impl IntoIterator<Item = &'a String>) -> Self {
        let mut selected = Self::default();
        for name in names {
            if let Some(value) = self.maps().named.get(name.as_str()) {
                selected
                    .maps_mut()
                    .named
                    .insert(Cow::Owned(name.clone()), value.clone());
            }
        }
        selected
    }

    /// True when both bags hold the same entries because they share one
    /// map, or are both empty. A bag's maps are copy-on-write, so while a
    /// clone is kept, a change to the other bag makes a new map and this
    /// is false from then on.
    pub(crate) fn shares_entries_with(&self, other: &Self) -> bool {
        match (&self.inner, &other.inner) {
            (Some(one), Some(other)) => Arc::ptr_eq(one, other),
            _ => self.is_empty() && other.is_empty(),
        }
    }

    /// True when the bag is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        let maps = self.maps();
        maps.typed.is_empty() && maps.named.is_empty()
    }
}

impl fmt::Debug for Dependencies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dependencies")
            .field("names", &self.names())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Db(u8);

    #[test]
    fn typed_and_named_lookups() {
        let mut deps = Dependencies::new();
        deps.insert(Db(1));
        deps.insert_named("billing", Db(2));
        assert_eq!(deps.get::<Db>().map(|db| db.0), Some(1));
        assert_eq!(deps.get_named::<Db>("billing").map(|db| db.0), Some(2));
        assert!(deps.get_named::<String>("billing").is_none());
        assert!(deps.contains_named(std::any::type_name::<Db>()));
        let only_typed = {
            let mut bag = Dependencies::new();
            bag.extend_typed(&deps);
            bag
        };
        assert!(only_typed.contains::<Db>());
        assert!(!only_typed.contains_named("billing"));
    }
}
