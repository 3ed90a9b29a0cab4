//! Context events: what the runtime reports about a run to its host
//! (`tools_unavailable`, `tool_search_loaded`, `toolset_failed`, ...).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ContextEventKind;

/// One event published on an [`crate::context::AgentContext`].
///
/// On the wire it is `{"kind": ..., "payload": ...}`. The kind is typed;
/// the payload stays JSON because its shape belongs to the layer that
/// emits the event (tool search, skills, toolsets), which sits above the
/// context, and hosts read it as data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContextEvent {
    /// What the event reports.
    pub kind: ContextEventKind,
    /// Details; their shape depends on the kind.
    pub payload: Value,
}

impl ContextEvent {
    /// Creates an event; `kind` may be a [`ContextEventKind`] or a name.
    pub fn new(kind: impl Into<ContextEventKind>, payload: Value) -> Self {
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
    pub fn emit(&mut self, kind: impl Into<ContextEventKind>, payload: Value) {
        self.publish(ContextEvent::new(kind, payload));
    }

    /// All events, oldest first.
    #[must_use]
    pub fn events(&self) -> &[ContextEvent] {
        &self.0
    }

    /// Events of one kind, oldest first; `kind` may be a
    /// [`ContextEventKind`] or a name.
    pub fn of_kind(
        &self,
        kind: impl Into<ContextEventKind>,
    ) -> impl Iterator<Item = &ContextEvent> + '_ {
        let kind = kind.into();
        self.0.iter().filter(move |event| event.kind == kind)
    }

    /// Removes and returns all events (hosts drain them between steps).
    pub fn drain(&mut self) -> Vec<ContextEvent> {
        std::mem::take(&mut self.0)
    }
}
