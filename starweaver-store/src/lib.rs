//! Run stores on a real database, for runs that outlive the process that started them.
//!
//! - [`SqliteRunStore`] keeps runs in one SQLite file: nothing to start, one machine.
//! - [`PgRunStore`] keeps them on a PostgreSQL server: many workers on many machines share
//!   one queue, and agree on lease expiry by the server's clock.
//! - [`StoreUrl`] names either (`sqlite:PATH`, `postgres://...`) and opens it; it shows a
//!   URL only with its password masked, and a server that cannot be reached fails within
//!   seconds, with what to check.
//!
//! Both keep every rule of [`starweaver_core::runs::RunStore`]: writes about a running run are
//! taken only under its current lease, in the same statement that checks the lease, and a
//! claim is one statement, so of any number of workers racing for a run exactly one gets it.
//! They share one way of reading rows back, so a damaged row is the same error on either.

mod postgres;
mod rows;
mod sqlite;
mod url;

pub use postgres::PgRunStore;
pub use sqlite::SqliteRunStore;
pub use url::{StoreUrl, StoreUrlError};
