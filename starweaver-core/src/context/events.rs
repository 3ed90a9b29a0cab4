//! Context events: what the runtime reports about a run to its host
//! (`tools_unavailable`, `tool_search_loaded`, `toolset_failed`, ...).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One event published on an [`crate::context::AgentContext`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContextEvent {
    /// Stable event kind, such as `tools_unavailable`.
    pub kind: String,
    /// Event payload.
    pub payload: Value,
}

impl ContextEvent {
    /// Creates an event.
    pub fn new(kind: impl Into<String>, payload: Value) -> Self {
        Self {
            kind: kind.into(),
            payload,
        }
    }
}

/// Ordered log of context events.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ContextEvents(Vec<ContextEvent>);

impl ContextEvents {
    /// Appends an event.
    pub fn publish(&mut self, event: ContextEvent) {
        self.0.push(event);
    }

    /// Appends an event built from a kind and payload.
    pub fn emit(&mut self, kind: impl Into<String>, payload: Value) {
        self.publish(ContextEvent::new(kind, payload));
    }

    /// All events, oldest first.
    #[must_use]
    pub fn events(&self) -> &[ContextEvent] {
        &self.0
    }

    /// Events of one kind, oldest first.
    pub fn of_kind<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a ContextEvent> + 'a {
        self.0.iter().filter(move |event| event.kind == kind)
    }

    /// Removes and returns all events (hosts drain them between steps).
    pub fn drain(&mut self) -> Vec<ContextEvent> {
        std::mem::take(&mut self.0)
    }
}
