//! Per-call execution context handed to a tool.

use std::any::Any;
use std::sync::Arc;

use compact_str::CompactString;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{NestedRecordSink, ToolProgress, ToolProgressReport, ToolProgressSink};
use crate::context::{AgentContextHandle, ConversationId, Dependencies, RunId};
use crate::JsonMap;

/// What a tool sees of the run: ids, retry counters, cancellation, trace
/// metadata and the dependencies its profile allows. Cheap to clone: what
/// belongs to the run rather than to the call is shared behind one `Arc`
/// (copied only when a call changes it), which keeps clones to a few
/// reference counts and the dispatch futures that hold a context small.
#[derive(Clone, Debug)]
pub struct ToolContext {
    scope: Arc<RunScope>,
    retry: u32,
    execution_attempt: u32,
    max_retries: u32,
    approved: bool,
    may_have_run: bool,
    // `None` outside dispatch: a context made per call allocates no
    // placeholder strings. The name is shared with the registry's entry;
    // the call id is copied per call, inline when it is at most 24 bytes.
    tool_name: Option<Arc<str>>,
    tool_call_id: Option<CompactString>,
    dependencies: Dependencies,
    inherited: crate::tools::InheritedLimits,
}

/// The run-level part of a [`ToolContext`], shared between its clones.
#[derive(Clone, Debug)]
struct RunScope {
    run_id: RunId,
    conversation_id: ConversationId,
    cancellation: Option<CancellationToken>,
    metadata: JsonMap,
    deferred_result: Option<Value>,
    agent_context: Option<AgentContextHandle>,
    progress: Option<ToolProgressSink>,
    nested: Option<NestedRecordSink>,
}

impl ToolContext {
    /// Creates a context. `retry` is the number of model-correction
    /// retries this tool has already used in the run.
    #[must_use]
    pub fn new(run_id: RunId, conversation_id: ConversationId, retry: u32) -> Self {
        Self {
            // Spelled out: `RunScope::default()` would mint two ids only to
            // drop them.
            scope: Arc::new(RunScope {
                run_id,
                conversation_id,
                cancellation: None,
                metadata: JsonMap::new(),
                deferred_result: None,
                agent_context: None,
                progress: None,
                nested: None,
            }),
            retry,
            execution_attempt: 0,
            max_retries: 0,
            approved: false,
            may_have_run: false,
            tool_name: None,
            tool_call_id: None,
            dependencies: Dependencies::default(),
            inherited: crate::tools::InheritedLimits::default(),
        }
    }

    fn scope_mut(&mut self) -> &mut RunScope {
        Arc::make_mut(&mut self.scope)
    }

    /// Replaces the dependency bag.
    #[must_use]
    pub fn with_dependencies(mut self, dependencies: Dependencies) -> Self {
        self.dependencies = dependencies;
        self
    }

    /// Adds one typed dependency.
    #[must_use]
    pub fn with_dependency<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.dependencies.insert(value);
        self
    }

    /// Uses this token for cooperative cancellation.
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.scope_mut().cancellation = Some(token);
        self
    }

    /// Sets the model-correction retries already used.
    #[must_use]
    pub fn with_retry(mut self, retry: u32) -> Self {
        self.retry = retry;
        self
    }

    /// Adds trace or host metadata.
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.scope_mut().metadata.insert(key.into(), value);
        self
    }

    /// Marks the call as approved by a human (approval-gated tools run).
    #[must_use]
    pub fn with_approved(mut self, approved: bool) -> Self {
        self.approved = approved;
        self
    }

    /// Marks a call that may have run already: a journaled run resumed after its process died
    /// while the call ran. A tool declared at most once then waits for approval.
    #[must_use]
    pub(crate) fn with_may_have_run(mut self, may_have_run: bool) -> Self {
        self.may_have_run = may_have_run;
        self
    }

    /// Supplies the result of a deferred call being resumed.
    #[must_use]
    pub fn with_deferred_result(mut self, result: Value) -> Self {
        self.scope_mut().deferred_result = Some(result);
        self
    }

    /// Attaches the ambient agent context. The registry then derives each
    /// tool's dependencies from it according to the tool's dependency
    /// profile, and hides tools that tool search has not loaded.
    #[must_use]
    pub fn with_agent_context(mut self, context: AgentContextHandle) -> Self {
        self.scope_mut().agent_context = Some(context);
        self
    }

    /// Sends the progress of calls made with this context to `sink` (see
    /// [`Self::report_progress`]). A run sets its own, which passes updates to its observer.
    #[must_use]
    pub fn with_progress_sink(mut self, sink: ToolProgressSink) -> Self {
        self.scope_mut().progress = Some(sink);
        self
    }

    /// Sends the records of runs nested in calls made with this context (sub-agents) to
    /// `sink`; a run sets it only when someone listens to it.
    #[must_use]
    pub(crate) fn with_nested_sink(mut self, sink: NestedRecordSink) -> Self {
        self.scope_mut().nested = Some(sink);
        self
    }

    /// Where the records of a run nested in this call go, when someone listens.
    pub(crate) fn nested_sink(&self) -> Option<&NestedRecordSink> {
        self.scope.nested.as_ref()
    }

    /// Reports how far the call is, while it runs: the update reaches whoever watches the call
    /// (a run's observer as a `tool_progress` record, an MCP client as a progress
    /// notification) before the call returns. Without a watcher, and for an update whose
    /// numbers are not finite, it does nothing.
    pub fn report_progress(&self, update: ToolProgress) {
        let Some(sink) = &self.scope.progress else {
            return;
        };
        if !update.is_valid() {
            return;
        }
        sink.deliver(ToolProgressReport::new(
            self.tool_call_id(),
            self.tool_name(),
            update,
        ));
    }

    /// Id of the run.
    #[must_use]
    pub fn run_id(&self) -> &RunId {
        &self.scope.run_id
    }

    /// Id of the conversation.
    #[must_use]
    pub fn conversation_id(&self) -> &ConversationId {
        &self.scope.conversation_id
    }

    /// Model-correction retries this tool already used in the run.
    #[must_use]
    pub fn retry(&self) -> u32 {
        self.retry
    }

    /// Internal execution attempt, 0 for the first try.
    #[must_use]
    pub fn execution_attempt(&self) -> u32 {
        self.execution_attempt
    }

    /// Effective retry budget of the tool being called.
    #[must_use]
    pub fn max_retries(&self) -> u32 {
        self.max_retries
    }

    /// Name of the tool being called (empty outside dispatch).
    #[must_use]
    pub fn tool_name(&self) -> &str {
        self.tool_name.as_deref().unwrap_or_default()
    }

    /// Id of the call being executed (empty outside dispatch).
    #[must_use]
    pub fn tool_call_id(&self) -> &str {
        self.tool_call_id.as_deref().unwrap_or_default()
    }

    /// The cancellation token, when the caller can cancel this call.
    #[must_use]
    pub fn cancellation_token(&self) -> Option<&CancellationToken> {
        self.scope.cancellation.as_ref()
    }

    /// Completes when the call is cancelled; never, when it cannot be.
    /// Long-running tools can `select!` on it.
    pub async fn cancelled(&self) {
        match &self.scope.cancellation {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    }

    /// True once the call has been cancelled.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.scope
            .cancellation
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
    }

    /// Looks up a typed dependency.
    #[must_use]
    pub fn dependency<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.dependencies.get()
    }

    /// Looks up a named dependency.
    #[must_use]
    pub fn named_dependency<T: Any + Send + Sync>(&self, name: &str) -> Option<Arc<T>> {
        self.dependencies.get_named(name)
    }

    /// All dependencies visible to the tool.
    #[must_use]
    pub fn dependencies(&self) -> &Dependencies {
        &self.dependencies
    }

    /// Mutable access to the dependencies (for hooks).
    pub fn dependencies_mut(&mut self) -> &mut Dependencies {
        &mut self.dependencies
    }

    /// Trace and host metadata.
    #[must_use]
    pub fn metadata(&self) -> &JsonMap {
        &self.scope.metadata
    }

    /// Mutable trace and host metadata (for hooks).
    pub fn metadata_mut(&mut self) -> &mut JsonMap {
        &mut self.scope_mut().metadata
    }

    /// True when a human approved this call.
    #[must_use]
    pub fn is_approved(&self) -> bool {
        self.approved
    }

    /// True when this call may have run already: the run resumed from its journal after its
    /// process died while the call was running, so whatever the call did may be done. A tool
    /// can check for its own earlier effect before acting again.
    #[must_use]
    pub fn may_have_run(&self) -> bool {
        self.may_have_run
    }

    /// The resumed result of a deferred call, if any.
    #[must_use]
    pub fn deferred_result(&self) -> Option<&Value> {
        self.scope.deferred_result.as_ref()
    }

    pub(crate) fn agent_context(&self) -> Option<&AgentContextHandle> {
        self.scope.agent_context.as_ref()
    }

    pub(crate) fn set_call(&mut self, tool_name: Arc<str>, call_id: &str, max_retries: u32) {
        self.tool_name = Some(tool_name);
        self.tool_call_id = Some(CompactString::from(call_id));
        self.max_retries = max_retries;
    }

    pub(crate) fn inherited_limits(&self) -> crate::tools::InheritedLimits {
        self.inherited
    }

    pub(crate) fn set_inherited_limits(&mut self, limits: crate::tools::InheritedLimits) {
        self.inherited = limits;
    }

    pub(crate) fn set_execution_attempt(&mut self, attempt: u32) {
        self.execution_attempt = attempt;
    }

    pub(crate) fn set_dependencies(&mut self, dependencies: Dependencies) {
        self.dependencies = dependencies;
    }
}

impl Default for ToolContext {
    fn default() -> Self {
        Self::new(RunId::default(), ConversationId::default(), 0)
    }
}
