//! Many toolsets behind two stable tools: `search_tools` and `call_tool`.

use std::sync::{Arc, PoisonError, RwLock};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::search::{IndexedTool, SearchIndex};
use crate::model::ToolDefinition;
use crate::tools::ToolContext;
use crate::tools::HITL_ARGUMENTS_METADATA_KEY;
use crate::tools::{
    is_loaded_in, is_usable_in, prepare_definition_in, typed_tool, DynTool,
    ToolDependencyRequirements, ToolError, ToolInstruction, ToolRegistry, ToolResult,
    ToolUserInputPreprocessResult,
};
use crate::tools::{DynToolset, IntoDynToolset, Toolset};
use crate::JsonMap;

const PROXY_NAME: &str = "tool_proxy";
const DEFAULT_MAX_RESULTS: usize = 10;

struct Inner {
    registry: ToolRegistry,
    index: SearchIndex,
    max_results: usize,
}

impl Inner {
    /// The wrapped toolsets' tools as they list them now.
    fn read(toolsets: &[DynToolset]) -> Self {
        let mut registry = ToolRegistry::new();
        for toolset in toolsets {
            registry.add_toolset(toolset.clone());
        }
        Self {
            registry,
            index: SearchIndex::build(toolsets),
            max_results: DEFAULT_MAX_RESULTS,
        }
    }
}

/// A toolset combinator: the model discovers wrapped tools with
/// `search_tools` and runs them with `call_tool`, so the request carries
/// two tool definitions however large the library is. Wrapped tools keep
/// their validation, timeouts, retries, approvals and dependency profiles.
///
/// The wrapped tools are read again whenever the proxy is registered, so a
/// toolset that lists its tools only once set up (an MCP server), or whose
/// list changes during a run, is searched and called as it lists them now.
pub struct ToolProxyToolset {
    name: String,
    toolsets: Vec<DynToolset>,
    inner: RwLock<Arc<Inner>>,
}

impl std::fmt::Debug for ToolProxyToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolProxyToolset")
            .field("name", &self.name)
            .field("tools", &self.tool_names())
            .finish()
    }
}

/// A proxy named `tool_proxy` over these toolsets.
pub fn tool_proxy_toolset<T: IntoDynToolset>(toolsets: Vec<T>) -> Arc<ToolProxyToolset> {
    Arc::new(ToolProxyToolset::new(
        PROXY_NAME,
        toolsets
            .iter()
            .map(IntoDynToolset::to_dyn_toolset)
            .collect(),
    ))
}

#[derive(Deserialize, JsonSchema)]
struct SearchToolsArgs {
    /// Words describing the capability you need.
    query: String,
    /// Maximum number of tools to return.
    limit: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
struct CallToolArgs {
    /// Exact name of a tool returned by search_tools.
    name: String,
    /// Arguments object matching that tool's parameters schema.
    #[serde(default)]
    arguments: Option<Value>,
}

impl ToolProxyToolset {
    /// Wraps the toolsets.
    pub fn new(name: impl Into<String>, toolsets: Vec<DynToolset>) -> Self {
        let inner = Inner::read(&toolsets);
        Self {
            name: name.into(),
            toolsets,
            inner: RwLock::new(Arc::new(inner)),
        }
    }

    /// Names of the wrapped tools, as last read.
    #[must_use]
    pub fn tool_names(&self) -> Vec<String> {
        self.current().registry.names()
    }

    /// The wrapped tools as last read.
    fn current(&self) -> Arc<Inner> {
        self.inner
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn search_tool(inner: &Arc<Inner>) -> DynTool {
        let inner = inner.clone();
        Arc::new(
            typed_tool::<SearchToolsArgs, _, _>(
                "search_tools",
                Some("Find tools by describing what you need; returns names, descriptions and parameter schemas for call_tool.".to_string()),
                move |ctx: ToolContext, args: SearchToolsArgs| {
                    let inner = inner.clone();
                    async move { search(&inner, &ctx, &args) }
                },
            )
            .with_dependencies(ToolDependencyRequirements::strict(Vec::<String>::new())),
        )
    }

    fn call_tool(inner: &Arc<Inner>) -> DynTool {
        let preprocess_inner = inner.clone();
        let inner = inner.clone();
        Arc::new(
            typed_tool::<CallToolArgs, _, _>(
                "call_tool",
                Some("Call a tool found with search_tools, by exact name, with its arguments object.".to_string()),
                move |ctx: ToolContext, args: CallToolArgs| {
                    let inner = inner.clone();
                    async move {
                        let call_id = ctx.tool_call_id().to_string();
                        let arguments = args.arguments.unwrap_or_else(|| json!({}));
                        let own = json!({"name": args.name, "arguments": arguments});
                        let outcome = inner
                            .registry
                            .call_tool(ctx.with_retry(0), &call_id, &args.name, arguments)
                            .await;

                        // The return names the tool that ran, so a host watching the events
                        // (or a `--json` reader) sees `shell_exec`, not only `call_tool`; a
                        // nested proxy's innermost name wins.
                        let named = |result: ToolResult| {
                            if result.metadata.contains_key("inner_tool") {
                                result
                            } else {
                                result.with_metadata("inner_tool", json!(args.name))
                            }
                        };
                        match outcome.result {
                            Ok(result) if outcome.execution_attempts > 1 => {
                                let retry = json!({
                                    "class": "execution",
                                    "attempts": outcome.execution_attempts,
                                    "max_retries": outcome.max_retries,
                                    "exhausted": false,
                                });
                                Ok(named(result).with_metadata("retry", retry))
                            }
                            Ok(result) => Ok(named(result)),
                            Err(error) => Err(ToolError::Delegated {
                                error: Box::new(as_proxy_request(error, own)),
                                attempts: outcome.execution_attempts,
                                max_retries: outcome.max_retries,
                            }),
                        }
                    }
                },
            )
            // The wrapped tool applies its own timeout and retries.
            .delegating()
            .with_user_input_preprocessor(move |ctx: ToolContext, user_input: Value| {
                let inner = preprocess_inner.clone();
                async move { preprocess(&inner, ctx, user_input).await }
            })
            .with_dependencies(ToolDependencyRequirements::strict(Vec::<String>::new())),
        )
    }
}

/// Approval and deferred requests of a wrapped tool become requests of
/// `call_tool` itself: resuming runs `call_tool` with its own arguments,
/// which reach the wrapped tool unchanged.
fn as_proxy_request(error: ToolError, own_arguments: Value) -> ToolError {
    match error {
        ToolError::ApprovalRequired { tool, metadata } => ToolError::ApprovalRequired {
            metadata: proxy_metadata(&tool, metadata, own_arguments),
            tool,
        },
        ToolError::CallDeferred { tool, metadata } => ToolError::CallDeferred {
            metadata: proxy_metadata(&tool, metadata, own_arguments),
            tool,
        },
        ToolError::WithPrivateMetadata {
            error,
            private_metadata,
        } => ToolError::WithPrivateMetadata {
            error: Box::new(as_proxy_request(*error, own_arguments)),
            private_metadata,
        },
        ToolError::Delegated {
            error,
            attempts,
            max_retries,
        } => ToolError::Delegated {
            error: Box::new(as_proxy_request(*error, own_arguments)),
            attempts,
            max_retries,
        },
        other => other,
    }
}

fn proxy_metadata(tool: &str, mut metadata: JsonMap, own_arguments: Value) -> JsonMap {
    let inner_arguments = metadata.remove("arguments");
    // Nested proxies: the innermost tool and its arguments are kept.
    if !metadata.contains_key("inner_tool") {
        if let Some(inner_arguments) = inner_arguments {
            metadata.insert("inner_arguments".to_string(), inner_arguments);
        }
        metadata.insert("inner_tool".to_string(), Value::from(tool));
    }
    metadata.insert("arguments".to_string(), own_arguments);
    metadata
}

/// Hands user input given with an approval of `call_tool` to the wrapped
/// tool's preprocessor, and wraps its replacement arguments back into
/// `call_tool`'s own `{name, arguments}`.
async fn preprocess(
    inner: &Inner,
    ctx: ToolContext,
    user_input: Value,
) -> Result<ToolUserInputPreprocessResult, ToolError> {
    let own = ctx
        .metadata()
        .get(HITL_ARGUMENTS_METADATA_KEY)
        .cloned()
        .unwrap_or(Value::Null);
    let Some(name) = own.get("name").and_then(Value::as_str).map(str::to_string) else {
        return Err(ToolError::invalid_arguments(
            "call_tool",
            "the approved call has no tool `name`",
        ));
    };
    let inner_arguments = own.get("arguments").cloned().unwrap_or_else(|| json!({}));
    let call_id = ctx.tool_call_id().to_string();
    let inner_ctx = ctx.with_metadata(HITL_ARGUMENTS_METADATA_KEY, inner_arguments);
    let preprocessed = inner
        .registry
        .preprocess_user_input(inner_ctx, &call_id, &name, user_input.clone())
        .await?;
    Ok(match preprocessed {
        Some(result) => ToolUserInputPreprocessResult {
            override_arguments: result
                .override_arguments
                .map(|arguments| json!({"name": name, "arguments": arguments})),
            approval_metadata: result.approval_metadata,
        },
        None => {
            ToolUserInputPreprocessResult::new().with_approval_metadata("user_input", user_input)
        }
    })
}

fn search(
    inner: &Inner,
    ctx: &ToolContext,
    args: &SearchToolsArgs,
) -> Result<ToolResult, ToolError> {
    if args.query.trim().is_empty() {
        return Err(ToolError::model_retry(
            "search_tools needs a non-empty query: describe the capability you need in a few words",
        ));
    }
    let limit = args
        .limit
        .unwrap_or(inner.max_results)
        .clamp(1, inner.max_results);
    // With an agent context, list only what the model could call, as the
    // context prepares it (availability, loading, prepare_definition),
    // with the registry's guards: a panicking callback hides its tool.
    let definitions: Vec<ToolDefinition> = match ctx.agent_context() {
        Some(ambient) => ambient.read(|context| {
            inner
                .index
                .search(&args.query, limit, |tool: &IndexedTool| {
                    if !is_loaded_in(&*tool.tool, context)
                        || !is_usable_in(&*tool.tool, Some(&tool.toolset), context)
                    {
                        return None;
                    }
                    prepare_definition_in(&*tool.tool, context, &Arc::new(tool.tool.definition()))
                        .map(Arc::unwrap_or_clone)
                })
        }),
        None => inner
            .index
            .search(&args.query, limit, |tool| Some(tool.tool.definition())),
    };
    let tools: Vec<Value> = definitions
        .into_iter()
        .map(|definition| {
            json!({
                "name": definition.name,
                "description": definition.description,
                "parameters": definition.parameters,
            })
        })
        .collect();
    let message = if tools.is_empty() {
        "No tools matched. Try other keywords."
    } else {
        "Call one of these with call_tool."
    };
    Ok(ToolResult::new(json!({"tools": tools, "message": message})))
}

impl Toolset for ToolProxyToolset {
    fn name(&self) -> &str {
        &self.name
    }

    fn wrapped_toolsets(&self) -> Vec<DynToolset> {
        self.current().registry.toolsets().to_vec()
    }

    fn get_tools(&self) -> Vec<DynTool> {
        // Registering (again) reads the wrapped toolsets' current tools.
        let inner = Arc::new(Inner::read(&self.toolsets));
        *self.inner.write().unwrap_or_else(PoisonError::into_inner) = inner.clone();
        vec![Self::search_tool(&inner), Self::call_tool(&inner)]
    }

    fn get_instructions(&self) -> Vec<ToolInstruction> {
        let mut instructions = vec![ToolInstruction::new(
            format!("{}:usage", self.name),
            "More tools are available through search_tools: search first, then run the tool with call_tool.",
        )];
        instructions.extend(self.current().registry.instructions());
        instructions
    }
}
