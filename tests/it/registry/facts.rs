//! The runtime decides from a tool's typed facts: a host that rewrites the
//! metadata of a definition (per request, or in a wrapper) changes what the
//! model and hosts see, never how the tool is gated, hidden or limited.

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::model::{ToolDefinition, ToolReturnKind};
use starweaver::tools::{
    BoxFuture, DynTool, Tool, ToolFacts, ToolKind, APPROVAL_REQUIRED_METADATA_KEY,
    HIDDEN_BY_TAGS_METADATA_KEY, TAGS_METADATA_KEY, TOOL_KIND_METADATA_KEY,
};
use starweaver::{AgentContext, ToolContext, ToolError, ToolRegistry, ToolResult};

use super::execute;
use crate::common::echo_tool;

/// A host's wrapper that shows a rewritten definition (approval and kind
/// keys changed, tags dropped) but keeps the wrapped tool's facts.
struct Rewritten {
    inner: DynTool,
}

impl Tool for Rewritten {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn definition(&self) -> ToolDefinition {
        let mut definition = self.inner.definition();
        definition.metadata.clear();
        definition
            .metadata
            .insert(APPROVAL_REQUIRED_METADATA_KEY.into(), Value::Bool(false));
        definition
            .metadata
            .insert(TOOL_KIND_METADATA_KEY.into(), json!("deferred"));
        definition
    }

    fn call<'a>(
        &'a self,
        ctx: ToolContext,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        self.inner.call(ctx, arguments)
    }

    fn facts(&self) -> ToolFacts {
        self.inner.facts()
    }
}

#[tokio::test]
async fn approval_follows_the_facts_when_a_wrapper_rewrote_the_metadata() {
    let gated: DynTool = Arc::new(echo_tool("deploy", "Deploys").with_approval_required(true));
    let registry = ToolRegistry::new().with_tool(Arc::new(Rewritten { inner: gated }));
    let shown = registry.definition("deploy").unwrap();
    assert_eq!(shown.metadata[APPROVAL_REQUIRED_METADATA_KEY], false);
    assert_eq!(shown.metadata[TOOL_KIND_METADATA_KEY], "deferred");

    let facts = registry.facts("deploy").unwrap();
    assert!(facts.approval_required);
    assert_eq!(facts.kind, None);
    let part = execute(&registry, "deploy", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::ApprovalRequired, "{part:?}");
}

#[tokio::test]
async fn a_prepared_definition_without_the_keys_still_waits_for_approval() {
    let tool = echo_tool("deploy", "Deploys")
        .with_kind(ToolKind::Unapproved)
        .with_prepare_definition(|_context, mut definition| {
            definition.metadata.clear();
            Some(definition)
        });
    assert_eq!(
        tool.definition().metadata[TOOL_KIND_METADATA_KEY],
        "unapproved",
        "the builder wrote the facts for hosts"
    );
    let registry = ToolRegistry::new().with_tool(Arc::new(tool));
    let offered = registry.definitions_for_context(&AgentContext::new());
    assert!(
        offered[0].metadata.is_empty(),
        "the host's rewrite is what the model sees"
    );
    let part = execute(&registry, "deploy", json!({})).await;
    assert_eq!(part.kind, ToolReturnKind::ApprovalRequired, "{part:?}");
}

#[test]
fn tag_hiding_follows_the_facts_not_the_prepared_metadata() {
    let strip = |_context: &AgentContext, mut definition: ToolDefinition| {
        definition.metadata.remove(TAGS_METADATA_KEY);
        definition.metadata.remove(HIDDEN_BY_TAGS_METADATA_KEY);
        Some(definition)
    };
    let covering = echo_tool("rg_search", "Searches")
        .with_tags(["search"])
        .with_prepare_definition(strip);
    let covered = echo_tool("grep", "Greps")
        .with_hidden_by_tag("search")
        .with_prepare_definition(strip);
    let registry = ToolRegistry::new()
        .with_tool(Arc::new(covering))
        .with_tool(Arc::new(covered));
    let names: Vec<String> = registry
        .definitions_for_context(&AgentContext::new())
        .into_iter()
        .map(|definition| definition.name)
        .collect();
    assert_eq!(names, ["rg_search"]);
}

#[test]
fn metadata_a_hand_written_tool_declares_is_read_once_into_facts() {
    struct Declared;
    impl Tool for Declared {
        fn name(&self) -> &str {
            "declared"
        }
        fn definition(&self) -> ToolDefinition {
            let mut definition = ToolDefinition::new("declared", None, json!({"type": "object"}));
            definition
                .metadata
                .insert(TOOL_KIND_METADATA_KEY.into(), json!("deferred"));
            definition
                .metadata
                .insert(TAGS_METADATA_KEY.into(), json!(["a", "a", "b"]));
            definition
        }
        fn call<'a>(
            &'a self,
            _ctx: ToolContext,
            _arguments: &'a Value,
        ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
            Box::pin(async { Ok(ToolResult::new(json!(null))) })
        }
    }
    let registry = ToolRegistry::new().with_tool(Arc::new(Declared));
    let facts = registry.facts("declared").unwrap();
    assert_eq!(facts.kind, Some(ToolKind::Deferred));
    assert_eq!(facts.tags, ["a", "b"]);
}
