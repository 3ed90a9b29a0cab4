//! Dispatching one call: hooks, validation, approval, timeouts,
//! cancellation, panics and the internal retry of unexpected failures.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::OptionFuture;
use serde_json::Value;

use super::attempts::Attempts;
use super::resolved::BagInputs;
use super::{CallLimits, ToolEntry, ToolRegistry};
use crate::context::AgentContextHandle;
use crate::model::{ToolCallPart, ToolReturnPart};
use crate::tools::panic_guard::{catch_panics, guard, panicked, survives};
use crate::tools::ToolContext;
use crate::tools::{
    ToolDependencyProfile, ToolError, ToolExecutionHook, ToolExecutionOutcome, ToolHookInput,
    ToolHookOutput, ToolLimits, ToolResult, ToolUserInputPreprocessResult,
    DEFERRED_CALL_REQUEST_KIND, INTERRUPTED_CALL_REQUEST_KIND, TOOL_APPROVAL_REQUEST_KIND,
};
use crate::BoxFuture;
use crate::JsonMap;

/// A dispatched call with its typed outcome, before it becomes a
/// [`ToolReturnPart`].
#[derive(Clone, Debug)]
pub struct ToolCallOutcome {
    /// The tool's result or error (after hooks).
    pub result: Result<ToolResult, ToolError>,
    /// How many times the tool ran (0 when it never started).
    pub execution_attempts: u32,
    /// The effective retry budget.
    pub max_retries: u32,
    /// Model-correction retries already used before this call.
    pub model_retries_used: u32,
    /// The tool ran another tool (the proxy's `call_tool`): its errors
    /// speak of that tool, so the return names the tool the error names
    /// rather than the one the model called.
    pub delegated: bool,
    /// The bounds of the registry that dispatched the call, applied when
    /// the outcome becomes a return.
    pub limits: ToolLimits,
}

impl ToolRegistry {
    /// Executes one model tool call. Never fails: every outcome, unknown
    /// tools, bad JSON, panics and timeouts included, is a tool return.
    ///
    /// Nothing runs until the first poll, as with an `async fn`. The future
    /// is small (a few hundred bytes): what a call settles before it can
    /// wait is done in plain functions on that poll, and what is rare
    /// (text arguments, hooks, validators) runs boxed.
    pub fn execute_call<'a>(
        &'a self,
        ctx: ToolContext,
        call: &'a ToolCallPart,
    ) -> impl Future<Output = ToolReturnPart> + Send + 'a {
        ExecuteCall::Start {
            registry: self,
            ctx: Some(ctx),
            call,
        }
    }

    /// A call whose arguments came as text: parsed, then dispatched.
    async fn execute_unparsed(&self, ctx: ToolContext, call: &ToolCallPart) -> ToolCallOutcome {
        match call.arguments.to_json() {
            Ok(arguments) => {
                self.dispatch(ctx, &call.id, &call.name, Cow::Owned(arguments))
                    .await
            }
            Err(error) => ToolCallOutcome {
                result: Err(ToolError::invalid_arguments(
                    &call.name,
                    format!("arguments are not valid JSON ({error}); send a single JSON object"),
                )),
                execution_attempts: 0,
                max_retries: self.max_retries_for(&call.name),
                model_retries_used: ctx.retry(),
                delegated: false,
                limits: self.limits,
            },
        }
    }

    /// Executes one call and keeps the typed outcome (tool proxies and
    /// the agent runtime use this).
    pub async fn call_tool(
        &self,
        ctx: ToolContext,
        call_id: &str,
        name: &str,
        arguments: Value,
    ) -> ToolCallOutcome {
        self.dispatch(ctx, call_id, name, Cow::Owned(arguments))
            .await
    }

    /// The dispatch core, up to where the call can wait: the entry, the
    /// gate, then the attempts. Arguments stay borrowed unless a hook or a
    /// validator may change them; owned ones run boxed, since the tool's
    /// future borrows them.
    fn dispatch<'a>(
        &'a self,
        mut ctx: ToolContext,
        call_id: &'a str,
        name: &'a str,
        arguments: Cow<'a, Value>,
    ) -> Dispatch<'a> {
        let (entry, limits, frame) = match self.settle(&mut ctx, call_id, name, &arguments) {
            Ok(prepared) => prepared,
            Err(outcome) => return Dispatch::Done(Some(outcome)),
        };
        let tool_hooks = if self.tool_hooks.is_empty() {
            &[][..]
        } else {
            self.tool_hooks.get(name).map_or(&[][..], Vec::as_slice)
        };
        if !self.hooks.is_empty() || !tool_hooks.is_empty() {
            let call = HookedCall {
                entry,
                call_id,
                name,
                tool_hooks,
                limits,
                frame,
            };
            return Dispatch::Boxed(Box::pin(self.hooked(call, ctx, arguments)));
        }
        let arguments = match arguments {
            Cow::Borrowed(arguments) if !entry.validates => arguments,
            arguments => {
                return Dispatch::Boxed(Box::pin(async move {
                    let mut arguments = arguments;
                    let (result, attempts) = match gate(entry, &ctx, &mut arguments) {
                        Some(stopped) => stopped,
                        None => Attempts::new(entry, ctx, &arguments, limits).await,
                    };
                    frame.finish(result, attempts)
                }))
            }
        };
        let mut unchanged = Cow::Borrowed(arguments);
        if let Some((result, attempts)) = gate(entry, &ctx, &mut unchanged) {
            return Dispatch::Done(Some(frame.finish(result, attempts)));
        }
        Dispatch::Running {
            attempts: Attempts::new(entry, ctx, arguments, limits),
            frame,
        }
    }

    /// Everything a call settles before it can wait: the entry, its
    /// limits, the arguments' shape and the call's context (made in place:
    /// the context is the largest thing a call moves). `Err` is the call's
    /// outcome when it stops here.
    // The outcome is moved once, to the caller's return; it is never
    // propagated with `?` through layers.
    #[allow(clippy::result_large_err)]
    fn settle<'e>(
        &'e self,
        ctx: &mut ToolContext,
        call_id: &str,
        name: &str,
        arguments: &Value,
    ) -> Result<(&'e ToolEntry, CallLimits, OutcomeFrame<'e>), ToolCallOutcome> {
        let model_retries_used = ctx.retry();
        let Some(entry) = self.entries.get(name) else {
            return Err(ToolCallOutcome {
                result: Err(self.not_found(name, ctx.agent_context())),
                execution_attempts: 0,
                max_retries: self.max_retries_for(name),
                model_retries_used,
                delegated: false,
                limits: self.limits,
            });
        };
        let limits = self.call_limits(entry, ctx.inherited_limits());
        let frame = OutcomeFrame {
            max_retries: limits.max_retries,
            model_retries_used,
            delegated: entry.delegates,
            limits: &self.limits,
        };
        if let Some(error) = self.argument_problem(name, arguments) {
            return Err(frame.finish(Err(error), 0));
        }
        match self.call_context(entry, ctx, call_id, name, limits) {
            Ok(()) => Ok((entry, limits, frame)),
            Err(error) => Err(frame.finish(Err(error), 0)),
        }
    }

    /// A call with input or output hooks: the hooks around [`run`].
    async fn hooked(
        &self,
        call: HookedCall<'_>,
        mut ctx: ToolContext,
        mut arguments: Cow<'_, Value>,
    ) -> ToolCallOutcome {
        let HookedCall {
            entry,
            call_id,
            name,
            tool_hooks,
            limits,
            frame,
        } = call;
        let early = before_hooks(
            self.hooks.iter().chain(tool_hooks),
            name,
            call_id,
            &mut ctx,
            arguments.to_mut(),
        )
        .await;
        let (result, attempts) = match early {
            Some(error) => (Err(error), 0),
            None => match gate(entry, &ctx, &mut arguments) {
                Some(stopped) => stopped,
                None => Attempts::new(entry, ctx, &arguments, limits).await,
            },
        };
        let result = after_hooks(
            tool_hooks.iter().chain(&self.hooks),
            name,
            call_id,
            &arguments,
            result,
        )
        .await;
        frame.finish(result, attempts)
    }

    /// Runs a tool's user-input preprocessor (HITL approvals). `None` when
    /// the tool has none.
    ///
    /// # Errors
    /// The preprocessor's error, or [`ToolError::NotFound`] for unknown
    /// tools.
    pub async fn preprocess_user_input(
        &self,
        mut ctx: ToolContext,
        call_id: &str,
        name: &str,
        user_input: Value,
    ) -> Result<Option<ToolUserInputPreprocessResult>, ToolError> {
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| self.not_found(name, ctx.agent_context()))?;
        let limits = self.call_limits(entry, ctx.inherited_limits());
        self.call_context(entry, &mut ctx, call_id, name, limits)?;
        let preprocessed =
            catch_panics(|| OptionFuture::from(entry.tool.preprocess_user_input(ctx, user_input)))
                .await
                .map_err(|panic| panicked(name, &*panic))?;
        preprocessed.transpose()
    }

    /// Makes `ctx` the context a tool sees for one call: call identity, visibility in
    /// the ambient context, and dependencies by the tool's profile. Used
    /// for execution and for user-input preprocessing alike.
    fn call_context(
        &self,
        entry: &ToolEntry,
        ctx: &mut ToolContext,
        call_id: &str,
        name: &str,
        limits: CallLimits,
    ) -> Result<(), ToolError> {
        let max_retries = limits.max_retries;
        ctx.set_call(entry.name.clone(), call_id, max_retries);
        let inherited = self.inherit(ctx.inherited_limits());
        ctx.set_inherited_limits(inherited);
        let Some(ambient) = ctx.agent_context().cloned() else {
            Self::without_ambient(entry, ctx);
            return Ok(());
        };
        // One read of the ambient context: visibility, then the
        // dependencies the tool's profile allows.
        ambient.read(|context| {
            if let Some(error) = Self::check_visible_in(entry, context) {
                return Err(error);
            }
            // A delegating tool's callee resolves its own profile from the
            // same ambient context and the caller's dependencies.
            if !entry.delegates {
                let dependencies = self.resolved.bag(&BagInputs {
                    entry,
                    name,
                    base: ctx.dependencies(),
                    context,
                    ambient: &ambient,
                    limits,
                });
                ctx.set_dependencies(dependencies);
            }
            Ok(())
        })
    }

    /// A call's context when no agent context is attached: no grants, so
    /// Strict gets nothing, and Filtered loses any broad handle the
    /// caller attached.
    fn without_ambient(entry: &ToolEntry, ctx: &mut ToolContext) {
        if entry.delegates {
            return;
        }
        match entry.requirements.profile {
            ToolDependencyProfile::Legacy => {}
            ToolDependencyProfile::Filtered => {
                ctx.dependencies_mut().remove::<AgentContextHandle>()
            }
            ToolDependencyProfile::Strict => {
                ctx.set_dependencies(crate::context::Dependencies::default())
            }
        }
    }

    /// Arguments the registry refuses before any tool code sees them:
    /// anything but an object (a JSON array would fill a struct's fields
    /// by position), and values nested past the depth limit (Serde
    /// recurses once per level and would overflow the stack).
    fn argument_problem(&self, name: &str, arguments: &Value) -> Option<ToolError> {
        let max_depth = self.limits.max_argument_depth;
        if crate::bounds::exceeds_depth(arguments, max_depth) {
            return Some(ToolError::invalid_arguments(
                name,
                format!(
                    "arguments nest arrays and objects more than {max_depth} levels deep; send a \
                     flatter JSON object"
                ),
            ));
        }
        let got = match arguments {
            Value::Object(_) => return None,
            Value::Array(_) => "an array (parameters are named, not positional)".to_string(),
            Value::String(text) => format!("a string (`{}`)", crate::bounds::echo(text)),
            Value::Number(_) => "a number".to_string(),
            Value::Bool(_) => "a boolean".to_string(),
            Value::Null => "null".to_string(),
        };
        Some(ToolError::invalid_arguments(
            name,
            format!(
                "arguments must be a JSON object of named parameters, not {got}; send \
                 {{\"parameter\": value, ...}} as the tool's schema describes"
            ),
        ))
    }

    /// Why the model cannot call this tool in this context, if it cannot.
    fn check_visible_in(
        entry: &ToolEntry,
        context: &crate::context::AgentContext,
    ) -> Option<ToolError> {
        let name = entry.definition.name.as_str();
        if !survives(|| entry.tool.is_loaded(context)) {
            return Some(ToolError::NotFound {
                tool: name.to_string(),
                message: format!(
                    "tool `{name}` is not loaded yet; call tool_search to load it before calling it"
                ),
            });
        }
        let toolset = entry.toolset.as_ref().map(|toolset| toolset.name.as_str());
        (!super::is_usable_in(&*entry.tool, toolset, context)).then(|| ToolError::NotFound {
            tool: name.to_string(),
            message: format!("tool `{name}` is not available in this context; use another tool"),
        })
    }

    /// An unknown-tool error with a did-you-mean. With an ambient context,
    /// only tools the model could see are named.
    fn not_found(&self, name: &str, ambient: Option<&AgentContextHandle>) -> ToolError {
        let visible: Vec<&String> = match ambient {
            Some(ambient) => ambient.read(|context| {
                self.entries
                    .iter()
                    .filter(|(_, entry)| Self::check_visible_in(entry, context).is_none())
                    .map(|(known, _)| known)
                    .collect()
            }),
            None => self.entries.keys().collect(),
        };
        // Similarity costs the product of both lengths: a name far longer
        // than any valid one cannot be a typo of one, so it is not scored.
        let plausible = name.len() <= 2 * crate::tools::MAX_TOOL_NAME_CHARS;
        let suggestion = visible
            .iter()
            .filter(|_| plausible)
            .map(|known| (strsim::jaro_winkler(name, known), known))
            .filter(|(score, _)| *score > 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, known)| format!(" Did you mean `{known}`?"))
            .unwrap_or_default();
        let mut known: Vec<&str> = visible
            .iter()
            .map(|known| known.as_str())
            .take(20)
            .collect();
        if visible.len() > known.len() {
            known.push("...");
        }
        ToolError::NotFound {
            tool: crate::bounds::echo(name).into_owned(),
            message: format!(
                "unknown tool `{}`.{suggestion} Available tools: {}.",
                crate::bounds::echo(name),
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
        }
    }
}

/// The call's outcome fields that do not depend on how it ended. The
/// limits stay borrowed from the registry until an outcome is gathered.
#[derive(Clone, Copy)]
pub(super) struct OutcomeFrame<'l> {
    pub(super) max_retries: u32,
    pub(super) model_retries_used: u32,
    pub(super) delegated: bool,
    pub(super) limits: &'l ToolLimits,
}

impl OutcomeFrame<'_> {
    fn finish(
        self,
        result: Result<ToolResult, ToolError>,
        execution_attempts: u32,
    ) -> ToolCallOutcome {
        ToolCallOutcome {
            result,
            execution_attempts,
            max_retries: self.max_retries,
            model_retries_used: self.model_retries_used,
            delegated: self.delegated,
            limits: *self.limits,
        }
    }
}

/// [`ToolRegistry::execute_call`]'s future: the call starts on the first
/// poll, and its outcome becomes the return the model sees.
///
/// The first poll dispatches the call and polls it at once, on the stack:
/// a call that ends there (most tools end on their first poll) never
/// stores its state. Only a call that waits moves its state into a box,
/// so the future itself stays small: callers move it when they await,
/// join or spawn it, and a move of more than 128 bytes is a `memcpy`.
enum ExecuteCall<'a> {
    /// Not polled yet.
    Start {
        registry: &'a ToolRegistry,
        /// Taken when the call starts: moving it alone is cheaper than
        /// moving the whole state out.
        ctx: Option<ToolContext>,
        call: &'a ToolCallPart,
    },
    /// Dispatched, and waiting on the tool.
    Waiting {
        call: &'a ToolCallPart,
        dispatch: Box<Dispatch<'a>>,
    },
    /// Polled again after it ended: a caller's bug, with no second return
    /// to give.
    Ended,
}

impl Future for ExecuteCall<'_> {
    type Output = ToolReturnPart;

    // The return (272 bytes) is built where the caller wants it: no path
    // unpacks a finished part to wrap it again, and the common end drops
    // the dispatch before building the part, since a part built before a
    // drop is copied after it.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolReturnPart> {
        let this = self.get_mut();
        match this {
            ExecuteCall::Start {
                registry,
                ctx,
                call,
            } => {
                let (registry, call) = (*registry, *call);
                let Some(ctx) = ctx.take() else {
                    return Poll::Pending;
                };
                // A tool that ran and returned on its first poll (the
                // common end): the dispatch is dropped where it lies before
                // the return is built, so the return is built in place.
                let (frame, result, attempts) = 'ran: {
                    let mut dispatch = match call.arguments.as_json() {
                        Some(arguments) => {
                            registry.dispatch(ctx, &call.id, &call.name, Cow::Borrowed(arguments))
                        }
                        None => Dispatch::Boxed(Box::pin(registry.execute_unparsed(ctx, call))),
                    };
                    // `Dispatch` is `Unpin` (what it pins is boxed), so it
                    // may be polled here and moved afterwards.
                    let polled = match &mut dispatch {
                        Dispatch::Running { attempts, frame } => {
                            let frame = *frame;
                            if let Poll::Ready((result, attempts)) = Pin::new(attempts).poll(cx) {
                                break 'ran (frame, result, attempts);
                            }
                            Poll::Pending
                        }
                        dispatch => dispatch.poll_return(cx, call),
                    };
                    *this = if polled.is_pending() {
                        ExecuteCall::Waiting {
                            call,
                            dispatch: Box::new(dispatch),
                        }
                    } else {
                        ExecuteCall::Ended
                    };
                    return polled;
                };
                *this = ExecuteCall::Ended;
                Poll::Ready(frame.into_return_part(result, attempts, &call.id, &call.name))
            }
            ExecuteCall::Waiting { call, dispatch } => {
                let polled = dispatch.poll_return(cx, call);
                if polled.is_ready() {
                    *this = ExecuteCall::Ended;
                }
                polled
            }
            ExecuteCall::Ended => Poll::Pending,
        }
    }
}

/// A dispatched call: ended before the tool ran, running its attempts,
/// or (hooks, validators, owned arguments) boxed. It is polled first where
/// it was made, and boxed only when it waits.
enum Dispatch<'a> {
    /// Stopped before the tool ran; taken when polled.
    Done(Option<ToolCallOutcome>),
    /// The tool's attempts, then the outcome's frame.
    Running {
        attempts: Attempts<'a>,
        frame: OutcomeFrame<'a>,
    },
    /// The rare paths, whose state would otherwise enlarge every call.
    Boxed(BoxFuture<'a, ToolCallOutcome>),
}

impl Dispatch<'_> {
    /// Polls the call on to the return the model sees. A call that ran
    /// its attempts goes from the tool's result straight to the return.
    fn poll_return(&mut self, cx: &mut Context<'_>, call: &ToolCallPart) -> Poll<ToolReturnPart> {
        if let Dispatch::Running { attempts, frame } = self {
            return Pin::new(attempts).poll(cx).map(|(result, attempts)| {
                frame.into_return_part(result, attempts, &call.id, &call.name)
            });
        }
        Pin::new(self)
            .poll(cx)
            .map(|outcome| outcome.into_return_part(&call.id, &call.name))
    }
}

impl Future for Dispatch<'_> {
    type Output = ToolCallOutcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolCallOutcome> {
        match self.get_mut() {
            Dispatch::Done(outcome) => match outcome.take() {
                Some(outcome) => Poll::Ready(outcome),
                // Polled again after it ended: a caller's bug, and no
                // second outcome to give.
                None => Poll::Pending,
            },
            Dispatch::Running { attempts, frame } => Pin::new(attempts)
                .poll(cx)
                .map(|(result, attempts)| frame.finish(result, attempts)),
            Dispatch::Boxed(call) => call.as_mut().poll(cx),
        }
    }
}

/// What a hooked call carries into its boxed future.
struct HookedCall<'a> {
    entry: &'a ToolEntry,
    call_id: &'a str,
    name: &'a str,
    tool_hooks: &'a [Arc<dyn ToolExecutionHook>],
    limits: CallLimits,
    frame: OutcomeFrame<'a>,
}

/// What stops a call before the tool runs: a validator's refusal,
/// cancellation, a missing approval, or a deferral. `None` when the tool
/// may run.
fn gate(
    entry: &ToolEntry,
    ctx: &ToolContext,
    arguments: &mut Cow<'_, Value>,
) -> Option<(Result<ToolResult, ToolError>, u32)> {
    let name = entry.definition.name.as_str();
    if entry.validates {
        if let Err(error) = guard(name, || {
            entry.tool.validate_arguments(ctx, arguments.to_mut())
        }) {
            return Some((Err(error), 0));
        }
    }
    let arguments: &Value = arguments;
    if ctx.is_cancelled() {
        return Some((
            Err(ToolError::Cancelled {
                tool: name.to_string(),
            }),
            0,
        ));
    }
    let deferred = entry.facts.is_deferred();
    // A call that may have run already (its run resumed from the journal) runs again only
    // with a person's approval when the tool must not run twice.
    let interrupted = entry.facts.at_most_once && ctx.may_have_run();
    let gated = (entry.facts.approval_required || interrupted) && !ctx.is_approved();
    if gated || deferred {
        if let Err(error) = guard(name, || entry.tool.check_arguments(arguments)) {
            return Some((Err(error), 0));
        }
    }
    if gated {
        let request_kind = if interrupted {
            INTERRUPTED_CALL_REQUEST_KIND
        } else {
            entry
                .facts
                .approval_request_kind
                .as_deref()
                .unwrap_or(TOOL_APPROVAL_REQUEST_KIND)
        };
        return Some((
            Err(ToolError::ApprovalRequired {
                tool: name.to_string(),
                metadata: request_metadata(request_kind, name, arguments),
            }),
            0,
        ));
    }
    if deferred {
        // Deferred tools hand the call to a worker; a resumed call carries
        // the worker's result.
        return Some(match ctx.deferred_result() {
            Some(result) => (Ok(ToolResult::new(result.clone())), 1),
            None => (
                Err(ToolError::CallDeferred {
                    tool: name.to_string(),
                    metadata: request_metadata(DEFERRED_CALL_REQUEST_KIND, name, arguments),
                }),
                0,
            ),
        });
    }
    None
}

/// The metadata of an approval or deferred-call request.
fn request_metadata(kind: &str, name: &str, arguments: &Value) -> JsonMap {
    let mut metadata = JsonMap::new();
    metadata.insert("arguments".to_string(), arguments.clone());
    metadata.insert(
        "request".to_string(),
        serde_json::json!({"kind": kind, "tool": name}),
    );
    metadata
}

/// Input hooks in order; the first error stops the call before it runs.
async fn before_hooks<'h>(
    hooks: impl Iterator<Item = &'h Arc<dyn ToolExecutionHook>>,
    name: &str,
    call_id: &str,
    ctx: &mut ToolContext,
    arguments: &mut Value,
) -> Option<ToolError> {
    for hook in hooks {
        let input = ToolHookInput {
            tool_name: name,
            tool_call_id: call_id,
            context: &mut *ctx,
            arguments: &mut *arguments,
        };
        let outcome = catch_panics(|| hook.before_execute(input))
            .await
            .unwrap_or_else(|panic| Err(panicked(name, &*panic)));
        if let Err(error) = outcome {
            return Some(error);
        }
    }
    None
}

/// Output hooks in order; control-flow outcomes are restored after each.
async fn after_hooks<'h>(
    hooks: impl Iterator<Item = &'h Arc<dyn ToolExecutionHook>>,
    name: &str,
    call_id: &str,
    arguments: &Value,
    result: Result<ToolResult, ToolError>,
) -> Result<ToolResult, ToolError> {
    let mut outcome = ToolExecutionOutcome::from(result);
    let protected = outcome.is_control_flow().then(|| outcome.clone());
    for hook in hooks {
        let output = ToolHookOutput {
            tool_name: name,
            tool_call_id: call_id,
            arguments,
            outcome: &mut outcome,
        };
        if let Err(panic) = catch_panics(|| hook.after_execute(output)).await {
            outcome = ToolExecutionOutcome::Error(panicked(name, &*panic));
        }
        if let Some(original) = &protected {
            outcome = original.clone();
        }
    }
    match outcome {
        ToolExecutionOutcome::Success(result) => Ok(result),
        ToolExecutionOutcome::Error(error) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::pin;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    use std::task::{Context, Poll, Waker};

    use serde_json::json;

    use crate::model::ToolCallPart;
    use crate::tools::{FunctionTool, ToolContext, ToolError, ToolRegistry, ToolResult};

    /// A tool that waits once before it answers, and fails unexpectedly on
    /// its first run when `flaky`.
    fn waiting(runs: &Arc<AtomicU32>, flaky: bool) -> FunctionTool {
        let runs = runs.clone();
        FunctionTool::new("waits", None, json!({"type": "object"}), move |_, _| {
            let run = runs.fetch_add(1, Ordering::SeqCst);
            let mut waited = false;
            async move {
                std::future::poll_fn(|cx| {
                    if waited {
                        return Poll::Ready(());
                    }
                    waited = true;
                    cx.waker().wake_by_ref();
                    Poll::Pending
                })
                .await;
                if flaky && run == 0 {
                    return Err(ToolError::execution("try again"));
                }
                Ok(ToolResult::new(json!({"run": run})))
            }
        })
    }

    /// Polls `call` to its return, counting the polls, then once more.
    fn polled(registry: &ToolRegistry, call: &ToolCallPart) -> (crate::model::ToolReturnPart, u32) {
        let mut future = pin!(registry.execute_call(ToolContext::default(), call));
        let mut cx = Context::from_waker(Waker::noop());
        let mut polls = 0;
        let part = loop {
            polls += 1;
            if let Poll::Ready(part) = future.as_mut().poll(&mut cx) {
                break part;
            }
            assert!(polls < 10, "the call never ended");
        };
        // Polled after its end: no second return, and no panic.
        assert!(future.as_mut().poll(&mut cx).is_pending());
        (part, polls)
    }

    #[test]
    fn a_call_that_waits_keeps_its_attempts_across_polls_and_returns_once() {
        let runs = Arc::new(AtomicU32::new(0));
        let registry = ToolRegistry::new().with_tool(Arc::new(waiting(&runs, true)));
        let call = ToolCallPart::new("call_1", "waits", json!({}));
        let (part, polls) = polled(&registry, &call);
        assert!(part.is_success(), "{part:?}");
        assert_eq!(part.content, json!({"run": 1}));
        assert_eq!(part.metadata["retry"]["attempts"], 2);
        // Each attempt waits once: the first ends in a retried failure.
        assert_eq!(polls, 3);
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_call_that_ends_on_its_first_poll_returns_once() {
        let registry = ToolRegistry::new().with_tool(Arc::new(FunctionTool::new(
            "now",
            None,
            json!({"type": "object"}),
            |_, _| async { Ok(ToolResult::new(json!("done"))) },
        )));
        let (part, polls) = polled(&registry, &ToolCallPart::new("call_1", "now", json!({})));
        assert_eq!((part.content, polls), (json!("done"), 1));
        assert_eq!(
            (part.tool_call_id.as_str(), part.tool_name.as_str()),
            ("call_1", "now")
        );
        // A call that stops before the tool runs ends on its first poll too.
        let (part, polls) = polled(&registry, &ToolCallPart::new("call_2", "nope", json!({})));
        assert_eq!((part.tool_name.as_str(), polls), ("nope", 1));
        assert!(part.is_error(), "{part:?}");
    }
}
