//! Where the layers meet: errors named by the registry, sources kept,
//! lifecycle callbacks guarded, one source of truth for kinds, keys and
//! rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::model::ToolCallPart;
use starweaver::{
    string_tool, DynToolset, PrefixedToolset, StaticToolset, ToolContext, ToolError,
    ToolRegistry, ToolReturnKind,
};

mod common;

mod error_names {
    use super::*;

    fn strict_tool() -> starweaver::FunctionTool {
        string_tool(
            "lookup",
            Some("Look up".to_string()),
            json!({"type": "object", "properties": {}}),
            |_ctx: ToolContext, _args: Value| async move {
                Err(ToolError::invalid_arguments(
                    "lookup",
                    "the tool `lookup` wants a term",
                ))
            },
        )
    }

    // A prefixed tool's argument error was rewritten by string replacement inside the tool's own message.
    #[tokio::test]
    async fn the_registry_names_the_called_tool_without_rewriting_messages() {
        let inner = Arc::new(StaticToolset::new("docs").with_tool(Arc::new(strict_tool())));
        let prefixed: DynToolset = Arc::new(PrefixedToolset::new("ws", inner));
        let registry = ToolRegistry::new().with_toolset(&prefixed);
        let part = registry
            .execute_call(
                ToolContext::default(),
                &ToolCallPart::new("c", "ws_lookup", json!({})),
            )
            .await;
        assert_eq!(part.kind, ToolReturnKind::InvalidArguments);
        assert_eq!(
            part.content["message"],
            "invalid arguments for tool `ws_lookup`: the tool `lookup` wants a term"
        );
        // The outcome keeps the error as the tool made it.
        let outcome = registry
            .call_tool(ToolContext::default(), "c", "ws_lookup", json!({}))
            .await;
        assert!(matches!(
            outcome.result,
            Err(ToolError::InvalidArguments { ref tool, .. }) if tool == "lookup"
        ));
    }

    // An I/O failure became a string: hosts lost the source error.
    #[test]
    fn unexpected_failures_keep_their_source() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "no access");
        let error = ToolError::from(io);
        let source = std::error::Error::source(&error).map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("no access"));
        assert!(error.is_retryable_execution());
        let plain = ToolError::execution("boom");
        assert!(std::error::Error::source(&plain).is_none());
    }
}
