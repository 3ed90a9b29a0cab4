//! Per-file write locks, so concurrent `edit_file` and `write_file`
//! calls in one process do not lose each other's updates.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use tokio::sync::OwnedMutexGuard;

use crate::environment::DynEnvironment;

/// A provider (by the address of its shared allocation) and a
/// normalized path.
type Key = (usize, String);

/// Locks in use. Entries are weak, so a lock lives only while a call
/// holds or waits for it, and dead entries are pruned on insert: the
/// table stays as small as the number of files being written at once.
fn table() -> &'static Mutex<HashMap<Key, Weak<tokio::sync::Mutex<()>>>> {
    static TABLE: OnceLock<Mutex<HashMap<Key, Weak<tokio::sync::Mutex<()>>>>> = OnceLock::new();
    TABLE.get_or_init(Mutex::default)
}

/// Waits for exclusive use of `path` (normalized) in `provider` among
/// the calls of this process.
///
/// `edit_file` reads, changes and writes a file; two agents sharing an
/// environment (subagents, parallel sessions) would otherwise both read
/// the old content and the second write would drop the first edit.
/// Providers are keyed by their `Arc` address, which cannot be reused
/// while the caller holds the `Arc`. Writers in other processes are not
/// covered: that needs support from the provider.
pub(super) async fn lock_path(provider: &DynEnvironment, path: &str) -> OwnedMutexGuard<()> {
    let key = (
        Arc::as_ptr(provider).cast::<()>() as usize,
        path.to_string(),
    );
    let lock = {
        let mut table = table().lock().unwrap_or_else(PoisonError::into_inner);
        match table.get(&key).and_then(Weak::upgrade) {
            Some(lock) => lock,
            None => {
                table.retain(|_, lock| lock.strong_count() > 0);
                let lock = Arc::new(tokio::sync::Mutex::new(()));
                table.insert(key, Arc::downgrade(&lock));
                lock
            }
        }
    };
    lock.lock_owned().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::environment::VirtualEnvironmentProvider;

    #[tokio::test]
    async fn locks_are_per_provider_and_path_and_do_not_accumulate() {
        let one: DynEnvironment = Arc::new(VirtualEnvironmentProvider::new("one"));
        let two: DynEnvironment = Arc::new(VirtualEnvironmentProvider::new("two"));
        let held = lock_path(&one, "a.txt").await;
        // Other paths and other providers are free.
        drop(lock_path(&one, "b.txt").await);
        drop(lock_path(&two, "a.txt").await);
        let waiting = tokio::time::timeout(
            std::time::Duration::from_millis(20),
            lock_path(&one, "a.txt"),
        )
        .await;
        assert!(waiting.is_err(), "the same path was locked twice");
        drop(held);
        drop(lock_path(&one, "a.txt").await);
        let key = (Arc::as_ptr(&one).cast::<()>() as usize, "a.txt".to_string());
        let live = table()
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .is_some_and(|lock| lock.strong_count() > 0);
        assert!(!live);
    }
}
