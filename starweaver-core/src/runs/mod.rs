//! Durable runs: what a run store keeps about a run while it is queued, works, waits and
//! ends, so a run outlives the process that started it.
//!
//! - [`RunStore`] is the contract every backend keeps (an in-memory one here, for tests and
//!   single-process hosts; SQLite and PostgreSQL in their own crate).
//! - A run is created `queued`; a worker [claims](RunStore::claim) it and holds a [`Lease`],
//!   which every later write names: a worker whose lease expired (another worker claimed the
//!   run since) writes nothing.
//! - Each model response and tool return is journaled under `(run, step, call id)` before the
//!   next step starts ([`JournalEntry`]); the first write of a key wins, so a return written
//!   twice by a retried worker is kept once.

mod claimed;
mod journal;
mod lease;
mod memory;
mod record;
mod store;

pub use claimed::ClaimedRun;
pub use journal::{JournalEntry, JournalKind};
pub use lease::Lease;
pub use memory::MemoryRunStore;
pub use record::{NewRun, RunStatus, StoredRun};
pub use store::{RunStore, StoreError};
