//! Background processes by handle. Handles are `p1`, `p2`, ... in start
//! order: short enough for a model to repeat without mistakes, never
//! reused within a provider (so a dropped handle stays unknown instead of
//! naming a newer process), and meaningful only to the provider that
//! issued them. Completed processes stay queryable up to the retention
//! bound; the earliest completed are dropped first.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use nix::sys::signal::Signal;

use super::entry::Entry;
use crate::environment::EnvironmentError;

/// The processes a provider knows.
#[derive(Debug, Default)]
pub(super) struct Registry {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    issued: u64,
    processes: BTreeMap<u64, Arc<Entry>>,
    completed: VecDeque<u64>,
    retention: usize,
}

impl Registry {
    /// An empty registry keeping `retention` completed processes.
    pub(super) fn new(retention: usize) -> Self {
        Self {
            inner: Mutex::new(Inner {
                retention,
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes how many completed processes are kept.
    pub(super) fn set_retention(&self, retention: usize) {
        let mut inner = self.lock();
        inner.retention = retention;
        inner.trim();
    }

    /// The next position and handle.
    pub(super) fn issue(&self) -> (u64, String) {
        let mut inner = self.lock();
        inner.issued += 1;
        (inner.issued, format!("p{}", inner.issued))
    }

    /// Records a started process.
    pub(super) fn insert(&self, entry: Arc<Entry>) {
        self.lock().processes.insert(entry.seq, entry);
    }

    /// The process with handle `id`.
    ///
    /// # Errors
    /// [`EnvironmentError::UnknownProcess`] for a handle never issued or
    /// no longer retained.
    pub(super) fn get(&self, id: &str) -> Result<Arc<Entry>, EnvironmentError> {
        let seq = id.strip_prefix('p').and_then(|n| n.parse::<u64>().ok());
        seq.and_then(|seq| self.lock().processes.get(&seq).cloned())
            .filter(|entry| entry.id == id)
            .ok_or_else(|| EnvironmentError::UnknownProcess {
                id: crate::bounds::echo(id).into_owned(),
            })
    }

    /// Records that the process at `seq` completed, dropping the
    /// earliest completed ones past the retention bound.
    pub(super) fn completed(&self, seq: u64) {
        let mut inner = self.lock();
        if inner.processes.contains_key(&seq) {
            inner.completed.push_back(seq);
            inner.trim();
        }
    }

    /// Every known process, oldest first.
    pub(super) fn list(&self) -> Vec<Arc<Entry>> {
        self.lock().processes.values().cloned().collect()
    }

    /// Ends every running process and what it started, blocking until
    /// they are gone (bounded): the provider is going away, and with it
    /// maybe the runtime its supervisors run on.
    pub(super) fn kill_all(&self) {
        let running: Vec<Arc<Entry>> = self
            .list()
            .into_iter()
            .filter(|entry| entry.is_running())
            .collect();
        for entry in &running {
            let _ = entry.signal(Signal::SIGKILL);
        }
        for entry in &running {
            entry.kill_now();
        }
    }
}

impl Inner {
    fn trim(&mut self) {
        while self.completed.len() > self.retention {
            if let Some(seq) = self.completed.pop_front() {
                self.processes.remove(&seq);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::environment::local::process::entry::EntryStart;

    fn entry(registry: &Registry) -> Arc<Entry> {
        let (seq, id) = registry.issue();
        let entry = Arc::new(Entry::new(EntryStart {
            seq,
            id,
            command: "true".into(),
            started: tokio::time::Instant::now(),
            pgid: i32::MAX,
            tag: None,
            streams: Default::default(),
            stdin: None,
            sandbox: crate::environment::SandboxReport::new(
                &crate::environment::SandboxPolicy::off(),
                &crate::environment::SandboxKernel::none(),
            ),
        }));
        registry.insert(Arc::clone(&entry));
        entry
    }

    #[test]
    fn handles_are_exact_and_the_earliest_completed_are_dropped() {
        let registry = Registry::new(2);
        let entries: Vec<_> = (0..4).map(|_| entry(&registry)).collect();
        assert_eq!(entries[0].id, "p1");
        assert!(registry.get("p01").is_err());
        assert!(registry.get("p1 ").is_err());
        assert!(registry.get("").is_err());
        assert!(registry.get("p99999999999999999999999").is_err());
        for seq in [2, 1, 3] {
            registry.completed(seq);
        }
        let known: Vec<String> = registry.list().iter().map(|e| e.id.clone()).collect();
        assert_eq!(
            known,
            ["p1", "p3", "p4"],
            "p2 completed first and was dropped"
        );
        assert!(matches!(
            registry.get("p2"),
            Err(EnvironmentError::UnknownProcess { .. })
        ));
        registry.set_retention(0);
        let known: Vec<String> = registry.list().iter().map(|e| e.id.clone()).collect();
        assert_eq!(known, ["p4"], "the running one stays");
    }
}
