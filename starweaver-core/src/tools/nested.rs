//! Where a tool that runs a whole run of its own (a sub-agent) sends that run's records, so
//! the run that made the call can report them as they happen.
//!
//! The tool layer does not know what a run record is: the sink carries them as opaque values,
//! and the agent layer, which sends and receives them, knows their type.

use std::any::Any;
use std::sync::Arc;

/// A record of a run nested in a call (it names the call itself), of a type the sender and
/// the receiver agree on.
pub(crate) struct NestedRecord(pub(crate) Box<dyn Any + Send>);

/// Receives the records of runs nested in the calls made with a
/// [`super::ToolContext`]. Set by the run that dispatches the calls, only when someone
/// listens to that run; it hands each record on and never blocks.
#[derive(Clone)]
pub(crate) struct NestedRecordSink(Arc<dyn Fn(NestedRecord) + Send + Sync>);

impl NestedRecordSink {
    /// A sink calling `deliver` with every record.
    pub(crate) fn new(deliver: impl Fn(NestedRecord) + Send + Sync + 'static) -> Self {
        Self(Arc::new(deliver))
    }

    /// Hands one record on.
    pub(crate) fn deliver(&self, record: NestedRecord) {
        (self.0)(record);
    }
}

impl std::fmt::Debug for NestedRecordSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NestedRecordSink")
    }
}
