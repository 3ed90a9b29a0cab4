//! The examples of the Tools chapter (`tools.md`) that belong to the tool
//! layer, as tests. Each body is copied from the spec with only the path
//! mapping of `design.md` applied:
//!
//! | in tools.md | here |
//! | --- | --- |
//! | `starweaver_agent::X` | `starweaver::X` |
//! | `starweaver_environment::X` | `starweaver::environment::X` |
//! | `starweaver_model::X` | `starweaver::model::X` |
//! | `starweaver_tools::X` | `starweaver::tools::X` |
//!
//! The chapter's examples that need agents and sessions are in `agent`,
//! the skills examples in `skills`. Not here yet, and why:
//!
//! - "Process-capable shell providers": the `ShellPolicy` /
//!   `ProgramCommand` example and the `shell_tools` /
//!   `attach_process_shell` example need the shell bundle and process
//!   providers, which arrive with the environments milestone.
#![allow(
    unused,
    // The ToolConfig example spells `..ToolConfig::default()` while ToolConfig
    // has one field today.
    clippy::needless_update
)]

// Typed function tools: `typed_tool` with a derived argument schema.
#[test]
fn typed_tool_lookup() {
    use std::sync::Arc;

    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use starweaver::{typed_tool, ToolContext, ToolRegistry, ToolResult};

    #[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
    struct LookupArgs {
        /// Search query to look up.
        query: String,
    }

    let lookup = typed_tool::<LookupArgs, _, _>(
        "lookup",
        Some("Lookup a value".to_string()),
        |_ctx: ToolContext, args: LookupArgs| async move {
            Ok(ToolResult::new(serde_json::json!({"value": args.query})))
        },
    );

    let tools = ToolRegistry::new().with_tool(Arc::new(lookup));
    assert!(!tools.is_empty());
}

// Field doc comments and `#[schemars(description = "...")]` become
// per-argument descriptions.
#[test]
fn search_args_schemars_description() {
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    #[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
    struct SearchArgs {
        /// Query text submitted by the model.
        query: String,
        #[serde(default = "default_limit")]
        #[schemars(description = "Maximum number of results to return.")]
        limit: usize,
    }

    const fn default_limit() -> usize {
        10
    }

    // Beyond the spec text: the generated schema carries the descriptions,
    // and the defaulted field is optional.
    let schema = starweaver::tools::schema_for_type::<SearchArgs>();
    assert_eq!(
        schema["properties"]["limit"]["description"],
        serde_json::json!("Maximum number of results to return.")
    );
    assert_eq!(
        schema["properties"]["query"]["description"],
        serde_json::json!("Query text submitted by the model.")
    );
    assert_eq!(schema["required"], serde_json::json!(["query"]));
}

// Function tools with manual schemas: `string_tool`.
#[test]
fn string_tool_echo() {
    use std::sync::Arc;

    use starweaver::{string_tool, ToolContext, ToolRegistry, ToolResult};

    let parameters = serde_json::json!({
        "type": "object",
        "properties": {
            "value": {
                "type": "string",
                "description": "Value to echo."
            }
        },
        "required": ["value"]
    });

    let echo = string_tool(
        "echo",
        Some("Echo a JSON value".to_string()),
        parameters,
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
    );

    let registry = ToolRegistry::new().with_tool(Arc::new(echo));
    assert!(!registry.is_empty());
}

// Toolsets: `StaticToolset` with a tool and an instruction.
#[test]
fn static_toolset_basic() {
    use std::sync::Arc;

    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use starweaver::{
        typed_tool, StaticToolset, ToolContext, ToolInstruction, ToolResult, Toolset,
    };

    #[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
    struct EchoArgs {
        /// Text to echo.
        value: String,
    }

    let echo = typed_tool::<EchoArgs, _, _>(
        "echo",
        Some("Echo input".to_string()),
        |_ctx: ToolContext, args: EchoArgs| async move {
            Ok(ToolResult::new(serde_json::json!({"value": args.value})))
        },
    );

    let toolset = StaticToolset::new("basic")
        .with_tool(Arc::new(echo))
        .with_instruction(ToolInstruction::new(
            "basic",
            "Prefer exact lookup before answering.",
        ));

    assert_eq!(toolset.name(), "basic");
    assert_eq!(toolset.get_tools().len(), 1);
    assert_eq!(toolset.get_instructions().len(), 1);
}

// Tool proxy: the filesystem bundle behind `search_tools`/`call_tool`,
// prefixed.
#[test]
fn tool_proxy_over_filesystem_tools() {
    use std::sync::Arc;

    use starweaver::{
        filesystem_tools, tool_proxy_toolset, DynToolset, PrefixedToolset, ToolRegistry,
    };

    let proxy = tool_proxy_toolset(vec![filesystem_tools()]);
    let prefixed: DynToolset = Arc::new(PrefixedToolset::new("workspace", proxy));
    let registry = ToolRegistry::new().with_toolset(&prefixed);
    assert!(!registry.is_empty());
}

// Not a spec example: the tool-proxy example above with a `StaticToolset`
// of our own, checking the two model-facing names.
#[test]
fn tool_proxy_over_own_static_toolset() {
    use std::sync::Arc;

    use starweaver::{
        string_tool, tool_proxy_toolset, DynToolset, PrefixedToolset, StaticToolset, ToolContext,
        ToolRegistry, ToolResult,
    };

    let read = Arc::new(string_tool(
        "read_file",
        Some("Read a file".to_string()),
        serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
    ));
    let toolset: DynToolset = Arc::new(StaticToolset::new("files").with_tool(read));

    let proxy = tool_proxy_toolset(vec![toolset]);
    let prefixed: DynToolset = Arc::new(PrefixedToolset::new("workspace", proxy));
    let registry = ToolRegistry::new().with_toolset(&prefixed);
    assert!(!registry.is_empty());
    assert_eq!(
        registry.names(),
        vec!["workspace_call_tool", "workspace_search_tools"]
    );
}

// Tool search: only `tool_search` is visible until search loads tools.
#[test]
fn tool_search_loads_docs_namespace() {
    use std::sync::Arc;

    use starweaver::{
        string_tool, tool_search_toolset, AgentContext, StaticToolset, ToolContext, ToolRegistry,
        ToolResult,
    };

    let lookup = Arc::new(string_tool(
        "lookup_docs",
        Some("Look up documentation by topic".to_string()),
        serde_json::json!({"type": "object", "properties": {"topic": {"type": "string"}}}),
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
    ));
    let docs = Arc::new(
        StaticToolset::new("docs")
            .with_id("docs_ns")
            .with_tool(lookup),
    );
    let search = tool_search_toolset(vec![docs]);
    let registry = ToolRegistry::new().with_toolset(&search);
    let mut context = AgentContext::default();

    assert_eq!(
        registry.definitions_for_context(&context)[0].name,
        "tool_search"
    );
    context.record_tool_search_loaded(["lookup_docs"], ["docs_ns"]);
    let names = registry
        .definitions_for_context(&context)
        .into_iter()
        .map(|definition| definition.name)
        .collect::<Vec<_>>();
    assert_eq!(
        names,
        vec!["lookup_docs".to_string(), "tool_search".to_string()]
    );
}

// Timeout metadata: the tool's timeout wins over the registry default.
#[test]
fn timeout_metadata_echo() {
    use std::sync::Arc;

    use starweaver::{string_tool, ToolContext, ToolRegistry, ToolResult};

    let echo = string_tool(
        "echo",
        Some("Echo a JSON value".to_string()),
        serde_json::json!({"type": "object", "properties": {}}),
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_timeout_ms(1_000);

    let registry = ToolRegistry::new()
        .with_timeout_ms(5_000)
        .with_tool(Arc::new(echo));

    assert_eq!(registry.timeout_ms_for("echo"), Some(1_000));
}

// Execution hooks: a user-input preprocessor for HITL approvals.
#[tokio::test]
async fn user_input_preprocessor_write_file() {
    use starweaver::{string_tool, ToolContext, ToolResult, ToolUserInputPreprocessResult};

    let _tool = string_tool(
        "write_file",
        Some("Write a reviewed file".to_string()),
        serde_json::json!({"type": "object"}),
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_user_input_preprocessor(|_ctx, user_input| async move {
        Ok(ToolUserInputPreprocessResult::new().with_override_arguments(user_input))
    });

    // Beyond the spec text: the registry runs the preprocessor and the
    // user input becomes the override arguments.
    let registry = starweaver::ToolRegistry::new().with_tool(std::sync::Arc::new(_tool));
    let user_input = serde_json::json!({"path": "notes.md", "content": "reviewed"});
    let result = registry
        .preprocess_user_input(
            ToolContext::default(),
            "call_1",
            "write_file",
            user_input.clone(),
        )
        .await
        .expect("preprocessing succeeds")
        .expect("write_file has a preprocessor");
    assert_eq!(result.override_arguments, Some(user_input));
    assert!(result.approval_metadata.is_empty());
}

// Return schemas: `with_return_schema` lands on the definition.
#[test]
fn return_schema_status() {
    use std::sync::Arc;

    use starweaver::{string_tool, ToolContext, ToolRegistry, ToolResult};

    let schema = serde_json::json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"]
    });
    let status = string_tool(
        "status",
        Some("Return status".to_string()),
        serde_json::json!({"type": "object", "properties": {}}),
        |_ctx: ToolContext, _args: serde_json::Value| async move {
            Ok(ToolResult::new(serde_json::json!({"ok": true})))
        },
    )
    .with_return_schema(schema.clone());

    let definition = ToolRegistry::new()
        .with_tool(Arc::new(status))
        .definitions()
        .remove(0);
    assert_eq!(definition.return_schema, Some(schema));
}

// Tool metadata tags: `tags` and `hidden_by_tags`.
#[test]
fn metadata_tags_search_files() {
    use starweaver::{
        string_tool, tool_metadata_hidden_by_tags, tool_metadata_tags, Tool, ToolContext,
        ToolResult,
    };

    let tool = string_tool(
        "search_files",
        Some("Search files".to_string()),
        serde_json::json!({"type": "object", "properties": {}}),
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_tags(["filesystem", "search"])
    .with_hidden_by_tag("remote-search");

    let definition = tool.definition();
    assert_eq!(
        tool_metadata_tags(&definition.metadata),
        vec!["filesystem".to_string(), "search".to_string()]
    );
    assert_eq!(
        tool_metadata_hidden_by_tags(&definition.metadata),
        vec!["remote-search".to_string()]
    );
}

// Tool kind metadata: `ToolKind::External`.
#[test]
fn tool_kind_external_search() {
    use starweaver::{string_tool, tool_metadata_kind, Tool, ToolContext, ToolKind, ToolResult};

    let tool = string_tool(
        "external_search",
        Some("Search externally".to_string()),
        serde_json::json!({"type": "object", "properties": {}}),
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_kind(ToolKind::External);

    let definition = tool.definition();
    assert_eq!(
        tool_metadata_kind(&definition.metadata),
        Some(ToolKind::External)
    );
}

// Strict-schema and sequential execution preferences.
#[test]
fn strict_and_sequential_status() {
    use starweaver::{string_tool, Tool, ToolContext};

    let tool = string_tool(
        "status",
        Some("Return status".to_string()),
        serde_json::json!({"type": "object", "properties": {}}),
        |_ctx: ToolContext, args: serde_json::Value| async move {
            Ok(starweaver::ToolResult::new(args))
        },
    )
    .with_strict_schema(true)
    .with_sequential(true);

    let definition = tool.definition();
    assert_eq!(definition.strict, Some(true));
    assert_eq!(definition.sequential, Some(true));
}

// Availability: a tool hidden unless the context enables it.
#[test]
fn availability_gated() {
    use std::sync::Arc;

    use starweaver::{string_tool, AgentContext, ToolContext, ToolRegistry, ToolResult};

    let gated = string_tool(
        "gated",
        Some("Only visible when enabled".to_string()),
        serde_json::json!({"type": "object", "properties": {}}),
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_availability(|context| {
        context
            .metadata
            .get("enable_gated_tool")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    });

    let registry = ToolRegistry::new().with_tool(Arc::new(gated));
    let hidden = AgentContext::default();
    let mut visible = AgentContext::default();
    visible
        .metadata
        .insert("enable_gated_tool".to_string(), serde_json::json!(true));

    assert!(registry.definitions_for_context(&hidden).is_empty());
    assert_eq!(registry.definitions_for_context(&visible)[0].name, "gated");

    let report = registry.availability_report(&hidden);
    assert!(report.available.is_empty());
    assert_eq!(report.unavailable, vec!["gated".to_string()]);
}

// Availability: fail-closed `ToolConfig`.
#[test]
fn tool_config_fail_run_policy() {
    use starweaver::{ToolAvailabilityPolicy, ToolConfig};

    let tool_config = ToolConfig {
        unavailable_tool_policy: ToolAvailabilityPolicy::FailRun,
        ..ToolConfig::default()
    };
    assert_eq!(
        tool_config.unavailable_tool_policy,
        ToolAvailabilityPolicy::FailRun
    );
}

// Availability: `with_prepare_definition` returning `None` hides the tool.
#[test]
fn prepare_definition_tenant_lookup() {
    use std::sync::Arc;

    use starweaver::{string_tool, AgentContext, ToolContext, ToolRegistry, ToolResult};

    let tool = string_tool(
        "tenant_lookup",
        Some("Lookup tenant data".to_string()),
        serde_json::json!({"type": "object", "properties": {}}),
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_prepare_definition(|context, mut definition| {
        let tenant = context
            .metadata
            .get("tenant")
            .and_then(serde_json::Value::as_str)?;
        definition.description = Some(format!("Lookup data for tenant {tenant}"));
        Some(definition)
    });

    let registry = ToolRegistry::new().with_tool(Arc::new(tool));
    assert!(registry
        .definitions_for_context(&AgentContext::default())
        .is_empty());
}

// Argument validators: normalize in place or reject.
#[tokio::test]
async fn argument_validator_validated() {
    use std::sync::Arc;

    use starweaver::{string_tool, ToolContext, ToolError, ToolRegistry, ToolResult};

    let tool = string_tool(
        "validated",
        Some("Validated tool".to_string()),
        serde_json::json!({"type": "object", "properties": {}}),
        |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_argument_validator(|_context, arguments| {
        if arguments.get("allow").and_then(serde_json::Value::as_bool) == Some(true) {
            arguments["normalized"] = serde_json::json!(true);
            Ok(())
        } else {
            Err(ToolError::InvalidArguments {
                tool: "validated".to_string(),
                message: "allow must be true".to_string(),
            })
        }
    });

    let registry = ToolRegistry::new().with_tool(Arc::new(tool));
    assert_eq!(registry.names(), vec!["validated"]);

    // Beyond the spec text: calls through the registry.
    use starweaver::model::{ToolCallPart, ToolReturnKind};

    let allowed = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("call-1", "validated", serde_json::json!({"allow": true})),
        )
        .await;
    assert_eq!(allowed.kind, ToolReturnKind::Success);
    assert!(!allowed.is_error());
    assert_eq!(
        allowed.content,
        serde_json::json!({"allow": true, "normalized": true})
    );

    let rejected = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("call-2", "validated", serde_json::json!({"allow": false})),
        )
        .await;
    assert_eq!(rejected.kind, ToolReturnKind::InvalidArguments);
    assert!(rejected.is_error());
    assert_eq!(rejected.tool_call_id, "call-2");
    assert_eq!(rejected.tool_name, "validated");
}
