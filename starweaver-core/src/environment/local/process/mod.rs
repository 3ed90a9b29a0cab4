//! Host processes for the local provider: spawning in a process group,
//! bounded capture, group termination, the shared concurrency allowance
//! and the background registry.
//!
//! The lifecycle: every command leads a process group of its own. When
//! it ends on its own, anything it left running in its group is stopped
//! too; on a timeout, a kill or a cancelled call, the group gets
//! `SIGTERM`, then `SIGKILL` after the grace period. Output is drained
//! continuously and kept up to the per-stream bound. A process can leave
//! its group (`setsid`), which this cannot follow: that is what the drain
//! timeout is for, and why untrusted code needs an external sandbox.

mod background;
mod capture;
mod entry;
mod escapees;
mod foreground;
mod group;
mod handles;
mod lifecycle;
mod permits;
mod registry;
mod signal;
mod spawn;
mod stdin;
mod task;
mod workdir;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::environment::ProcessLimits;
use permits::Permits;
use registry::Registry;

/// The provider's processes and the limits they run under.
#[derive(Debug)]
pub(crate) struct Processes {
    limits: ProcessLimits,
    /// Variables set for every command, over the inherited ones.
    fixed_env: BTreeMap<String, String>,
    permits: Permits,
    registry: Arc<Registry>,
}

impl Default for Processes {
    fn default() -> Self {
        let limits = ProcessLimits::default();
        Self {
            permits: Permits::new(limits.max_concurrent_processes),
            registry: Arc::new(Registry::new(limits.completed_process_retention)),
            limits,
            fixed_env: BTreeMap::new(),
        }
    }
}

impl Processes {
    /// The limits in force.
    pub(super) fn limits(&self) -> &ProcessLimits {
        &self.limits
    }

    /// Replaces the limits. The allowance is rebuilt for the new size:
    /// this runs while the provider is being configured, before any
    /// command holds a permit.
    pub(super) fn set_limits(&mut self, limits: ProcessLimits) {
        if limits.max_concurrent_processes != self.limits.max_concurrent_processes {
            self.permits = Permits::new(limits.max_concurrent_processes);
        }
        self.registry
            .set_retention(limits.completed_process_retention);
        self.limits = limits;
    }

    /// Sets a variable for every command.
    pub(super) fn set_env(&mut self, name: String, value: String) {
        self.fixed_env.insert(name, value);
    }

    /// The variables set for every command.
    pub(super) fn fixed_env(&self) -> &BTreeMap<String, String> {
        &self.fixed_env
    }
}

impl Drop for Processes {
    /// The provider is going away: no background group outlives it.
    fn drop(&mut self) {
        self.registry.kill_all();
    }
}
