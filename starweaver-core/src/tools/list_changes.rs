//! Tool lists that change after setup: the signal a toolset raises when its source says its
//! list changed (an MCP server's `notifications/tools/list_changed`), which the registry reads
//! before each model request and a server waits on to tell its own clients.

use std::sync::Arc;

use tokio::sync::watch;

/// Where a changing toolset stands: how often its source said the list changed, which of
/// those changes its current list has read, and how many times it re-read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Generations {
    /// Changes the source announced.
    changed: u64,
    /// The announced changes the current list includes.
    read_at: u64,
    /// Reads finished: what a registry compares to know the list is a new one.
    revision: u64,
}

/// The change signal of one toolset whose tool list can change after setup.
///
/// The source side calls [`Self::mark_changed`] where it learns of a change; the toolset
/// brackets every re-read with [`Self::begin_read`] and [`Self::finish_read`]. A change that
/// arrives during a read leaves the list stale, so it is read again. Clones share one signal.
#[derive(Clone, Debug)]
pub struct ToolListChanges {
    state: Arc<watch::Sender<Generations>>,
}

impl Default for ToolListChanges {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolListChanges {
    /// A signal with no change announced.
    #[must_use]
    pub fn new() -> Self {
        Self {
            state: Arc::new(watch::Sender::new(Generations::default())),
        }
    }

    /// The source announced that its list changed.
    pub fn mark_changed(&self) {
        self.state
            .send_modify(|state| state.changed = state.changed.wrapping_add(1));
    }

    /// Whether the source announced a change the current list has not read.
    #[must_use]
    pub fn is_stale(&self) -> bool {
        let state = *self.state.borrow();
        state.changed != state.read_at
    }

    /// Starts a re-read: the changes it will include (pass it to [`Self::finish_read`]).
    #[must_use]
    pub fn begin_read(&self) -> u64 {
        self.state.borrow().changed
    }

    /// A re-read that began at `generation` finished, well or not: the toolset now gives the
    /// list it read (or none, when it could not be offered).
    pub fn finish_read(&self, generation: u64) {
        self.state.send_modify(|state| {
            state.read_at = generation;
            state.revision = state.revision.wrapping_add(1);
        });
    }

    /// How many re-reads finished: a different value means a different list.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.state.borrow().revision
    }

    /// A receiver that wakes on every change of the signal.
    pub(crate) fn subscribe(&self) -> watch::Receiver<Generations> {
        self.state.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_during_a_read_leaves_the_list_stale() {
        let changes = ToolListChanges::new();
        assert!(!changes.is_stale());
        changes.mark_changed();
        assert!(changes.is_stale());
        let reading = changes.begin_read();
        changes.mark_changed();
        changes.finish_read(reading);
        assert!(changes.is_stale(), "the second change was not read");
        assert_eq!(changes.revision(), 1);
        let reading = changes.begin_read();
        changes.finish_read(reading);
        assert!(!changes.is_stale());
        assert_eq!(changes.revision(), 2);
    }
}
