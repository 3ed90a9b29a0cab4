//! Commands on the in-memory provider: a deterministic simulation of a
//! few builtin commands (`echo`, `true`, `false`, `exit`, `sleep`,
//! `cat`, `pwd`, `env`) on a virtual clock, in the foreground and as
//! background processes, under the same policy and bounds as real
//! providers. Nothing touches the host and nothing really sleeps, so
//! tests and demos of the shell tools are fast and repeatable.

mod background;
mod builtin;
mod config;
mod foreground;
mod plan;
mod signal;
mod stream;
mod table;

use std::sync::{Mutex, PoisonError};

use super::{ProcessLimits, ShellPolicy};
use table::Table;

/// The process state of one [`super::VirtualEnvironmentProvider`]: its
/// policy, its limits and its background processes.
#[derive(Debug)]
pub(crate) struct VirtualProcesses {
    policy: ShellPolicy,
    limits: ProcessLimits,
    table: Mutex<Table>,
}

impl Default for VirtualProcesses {
    fn default() -> Self {
        Self {
            policy: ShellPolicy::unrestricted(),
            limits: ProcessLimits::default(),
            table: Mutex::new(Table::default()),
        }
    }
}

impl VirtualProcesses {
    /// Runs `change` on the process table (a poisoned lock is recovered:
    /// the table stays consistent between its own statements).
    fn with_table<T>(&self, change: impl FnOnce(&mut Table) -> T) -> T {
        change(&mut self.table.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

#[cfg(test)]
mod tests;
