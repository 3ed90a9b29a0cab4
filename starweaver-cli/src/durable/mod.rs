//! Runs kept in a run store: `starweaver worker` claims queued runs and drives them,
//! `starweaver runs resume` drives one here, and `starweaver run --store` journals a run it
//! starts. Each drives a [`ClaimedRun`](starweaver_core::runs::ClaimedRun): every step is
//! journaled under the worker's lease, the lease is renewed while the run works, and how the
//! run ended is written under that lease, so a worker that lost the run writes nothing.

mod agents;
mod drive;
mod load;
mod quiet;
pub mod resume;
pub mod runs;
mod runtime;
mod start;
mod store_args;
pub mod submit;
mod vars;
pub mod worker;

pub(crate) use agents::AgentsDir;
pub(crate) use drive::{drive_claimed, Durable, OnCancel, Settled};
pub(crate) use load::load_claimed;
pub(crate) use quiet::QuietUi;
pub(crate) use runtime::{block_on, stop_on_signals};
pub(crate) use start::{new_run, run_in_store, StoreRun};
pub use store_args::{StoreArgs, STORE_VARIABLE};
pub(crate) use worker::worker_name;
