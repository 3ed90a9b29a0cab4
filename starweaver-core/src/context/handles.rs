//! Shared handles onto the agent context: the broad compatibility handle
//! and the four narrow mutable handles that dependency profiles grant.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde_json::Value;

use super::{
    AgentContext, ContextEvent, ContextEventKind, ContextHandoff, ContextTask, ToolSearchState,
};
use crate::model::Usage;

/// Shared, lockable agent context. Legacy tools receive this handle; the
/// lock is never held across an await.
#[derive(Clone, Debug, Default)]
pub struct AgentContextHandle(Arc<Mutex<AgentContext>>);

impl AgentContextHandle {
    /// Wraps a context.
    #[must_use]
    pub fn new(context: AgentContext) -> Self {
        Self(Arc::new(Mutex::new(context)))
    }

    fn lock(&self) -> MutexGuard<'_, AgentContext> {
        // A panic in another holder leaves plain data behind; keep going.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A clone of the current context.
    #[must_use]
    pub fn snapshot(&self) -> AgentContext {
        self.lock().clone()
    }

    /// Reads the context under the lock.
    pub fn read<R>(&self, read: impl FnOnce(&AgentContext) -> R) -> R {
        read(&self.lock())
    }

    /// Changes the context under the lock.
    pub fn update<R>(&self, update: impl FnOnce(&mut AgentContext) -> R) -> R {
        update(&mut self.lock())
    }

    /// Replaces the whole context.
    pub fn replace(&self, context: AgentContext) -> AgentContext {
        std::mem::replace(&mut *self.lock(), context)
    }

    /// True when both handles share one context.
    #[must_use]
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Narrow handle: set or clear a handoff (`starweaver.context.handoff`).
#[derive(Clone, Debug)]
pub struct ContextHandoffHandle(AgentContextHandle);

impl ContextHandoffHandle {
    pub(crate) fn new(context: AgentContextHandle) -> Self {
        Self(context)
    }

    /// Requests a handoff to another agent.
    pub fn set(&self, handoff: ContextHandoff) {
        self.0.update(|context| context.handoff = Some(handoff));
    }

    /// The pending handoff.
    #[must_use]
    pub fn get(&self) -> Option<ContextHandoff> {
        self.0.read(|context| context.handoff.clone())
    }

    /// Clears the pending handoff.
    pub fn clear(&self) -> Option<ContextHandoff> {
        self.0.update(|context| context.handoff.take())
    }
}

/// Narrow handle: the run's task list (`starweaver.context.tasks`).
#[derive(Clone, Debug)]
pub struct TaskContextHandle(AgentContextHandle);

impl TaskContextHandle {
    pub(crate) fn new(context: AgentContextHandle) -> Self {
        Self(context)
    }

    /// The current tasks.
    #[must_use]
    pub fn tasks(&self) -> Vec<ContextTask> {
        self.0.read(|context| context.tasks.clone())
    }

    /// Adds a task, or replaces the task with the same id.
    pub fn upsert(&self, task: ContextTask) {
        self.0.update(|context| {
            match context
                .tasks
                .iter_mut()
                .find(|existing| existing.id == task.id)
            {
                Some(existing) => *existing = task,
                None => context.tasks.push(task),
            }
        });
    }

    /// Removes a task by id; true when one was removed.
    pub fn remove(&self, id: &str) -> bool {
        self.0.update(|context| {
            let before = context.tasks.len();
            context.tasks.retain(|task| task.id != id);
            before != context.tasks.len()
        })
    }
}

/// Narrow handle: usage counters (`starweaver.context.usage`).
#[derive(Clone, Debug)]
pub struct UsageContextHandle(AgentContextHandle);

impl UsageContextHandle {
    pub(crate) fn new(context: AgentContextHandle) -> Self {
        Self(context)
    }

    /// Current usage.
    #[must_use]
    pub fn usage(&self) -> Usage {
        self.0.read(|context| context.usage)
    }

    /// Adds to the usage counters.
    pub fn record(&self, delta: Usage) {
        self.0.update(|context| context.usage.add(&delta));
    }
}

/// Narrow handle: tool-search state and its events
/// (`starweaver.context.tool_search`).
#[derive(Clone, Debug)]
pub struct ToolSearchContextHandle(AgentContextHandle);

impl ToolSearchContextHandle {
    pub(crate) fn new(context: AgentContextHandle) -> Self {
        Self(context)
    }

    /// Current loaded state.
    #[must_use]
    pub fn state(&self) -> ToolSearchState {
        self.0.read(|context| context.tool_search.clone())
    }

    /// Records loaded tools and namespaces and publishes one event.
    pub fn record_loaded(&self, tools: &[String], namespaces: &[String], event: ContextEvent) {
        self.0.update(|context| {
            context.record_tool_search_loaded(tools.iter().cloned(), namespaces.iter().cloned());
            context.events.publish(event);
        });
    }

    /// Publishes a tool-search event without changing state.
    pub fn emit(&self, kind: ContextEventKind, payload: Value) {
        self.0.update(|context| context.emit(kind, payload));
    }

    /// Runs a read against the full context (availability checks need it).
    pub(crate) fn read<R>(&self, read: impl FnOnce(&AgentContext) -> R) -> R {
        self.0.read(read)
    }
}
