//! Interruptions of file operations, so tests can swap a directory for a
//! link between a check and its use, or fail a write halfway, at exactly
//! the moment that matters. Outside tests the hooks are empty and every
//! call is a no-op.

#[cfg(test)]
use std::sync::Arc;

/// A moment inside an operation.
#[cfg(test)]
pub(super) type Moment = Arc<dyn Fn() + Send + Sync>;

/// A check after each chunk of a write: an error fails the write.
#[cfg(test)]
pub(super) type ChunkCheck = Arc<dyn Fn(usize) -> std::io::Result<()> + Send + Sync>;

/// What to run at each moment (test builds).
#[cfg(test)]
#[derive(Clone, Default)]
pub(super) struct Hooks {
    /// In a write, after the parent directory was opened and before the
    /// temporary file is created.
    pub(super) after_parent: Option<Moment>,
    /// In a read, after the path was checked and before it is opened.
    pub(super) before_open: Option<Moment>,
    /// In a write, after each chunk reached the temporary file, with the
    /// bytes written so far.
    pub(super) after_chunk: Option<ChunkCheck>,
}

#[cfg(test)]
impl std::fmt::Debug for Hooks {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Hooks")
            .field("after_parent", &self.after_parent.is_some())
            .field("before_open", &self.before_open.is_some())
            .field("after_chunk", &self.after_chunk.is_some())
            .finish()
    }
}

/// No hooks outside tests.
#[cfg(not(test))]
#[derive(Clone, Debug, Default)]
pub(super) struct Hooks {
    _none: (),
}

impl Hooks {
    /// See `after_parent`.
    pub(super) fn after_parent(&self) {
        #[cfg(test)]
        if let Some(moment) = &self.after_parent {
            moment();
        }
    }

    /// See `before_open`.
    pub(super) fn before_open(&self) {
        #[cfg(test)]
        if let Some(moment) = &self.before_open {
            moment();
        }
    }

    /// See `after_chunk`.
    pub(super) fn after_chunk(&self, written: usize) -> std::io::Result<()> {
        #[cfg(test)]
        if let Some(check) = &self.after_chunk {
            return check(written);
        }
        let _ = written;
        Ok(())
    }
}
