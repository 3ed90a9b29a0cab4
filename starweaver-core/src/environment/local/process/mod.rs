//! Host processes for the local provider: spawning in a process group,
//! bounded capture, group termination, the shared concurrency allowance
//! and the background registry.

use crate::environment::ProcessLimits;

/// The provider's processes and the limits they run under.
#[derive(Debug, Default)]
pub(crate) struct Processes {
    pub(crate) limits: ProcessLimits,
}
