//! Run stores on a real database, for runs that outlive the process that started them.
//!
//! [`SqliteRunStore`] keeps runs in one SQLite file: nothing to start, one machine. It keeps
//! every rule of [`starweaver_core::runs::RunStore`]: writes about a running run are taken
//! only under its current lease, in the same statement that checks the lease, and a claim is
//! one statement, so of any number of workers racing for a run exactly one gets it.

mod rows;
mod sqlite;

pub use sqlite::SqliteRunStore;
