//! The bundle's profile (what its tools are given) and the bundle in an
//! agent run.

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::bundles::core_toolsets;
use starweaver::context::{HostCapabilities, ShellEnvironmentSnapshot};
use starweaver::environment::{
    attach_process_shell, tool_environment, tool_process_shell, VirtualEnvironmentProvider,
    ENVIRONMENT_CAPABILITY, PROCESS_SHELL_CAPABILITY,
};
use starweaver::model::{ModelResponse, ToolCallPart, ToolReturnKind};
use starweaver::tools::{ToolDependencyProfile, ToolDependencyRequirements};
use starweaver::{
    attach_environment, shell_tools, string_tool, tool_metadata_tags, AgentBuilder, AgentContext,
    AgentContextHandle, AgentSession, TestModel, ToolContext, ToolRegistry, ToolResult,
};

use super::{permissive, workspace};
use crate::common::{ambient, call_response, open_schema, tool_returns, NamedDb};

#[test]
fn every_tool_asks_for_the_environment_the_process_shell_and_the_shell_settings() {
    let tools = shell_tools().get_tools();
    assert_eq!(tools.len(), 6);
    for tool in tools {
        let definition = tool.definition();
        let requirements = ToolDependencyRequirements::from_metadata(&definition.metadata);
        assert_eq!(
            requirements.profile,
            ToolDependencyProfile::Filtered,
            "{}",
            definition.name
        );
        assert_eq!(
            requirements.host_capabilities,
            [ENVIRONMENT_CAPABILITY, PROCESS_SHELL_CAPABILITY]
        );
        assert!(requirements.shell_environment);
        assert!(requirements.context_capabilities.is_empty());
        let tags = tool_metadata_tags(&definition.metadata);
        assert!(tags.contains(&"shell".to_string()), "{tags:?}");
        let mutating = !matches!(definition.name.as_str(), "shell_wait" | "shell_status");
        assert_eq!(
            tags.contains(&"mutating".to_string()),
            mutating,
            "{}",
            definition.name
        );
        assert_eq!(
            tags.contains(&"read_only".to_string()),
            !mutating,
            "{}",
            definition.name
        );
        assert_eq!(
            definition.sequential.unwrap_or(false),
            mutating,
            "{}",
            definition.name
        );
    }
}

#[tokio::test]
async fn the_profile_grants_the_two_capabilities_and_the_settings_not_the_broad_handle() {
    // A probe declaring the shell tools' own requirements reports what
    // a call of theirs receives.
    let definition = shell_tools().get_tools()[0].definition();
    let requirements = ToolDependencyRequirements::from_metadata(&definition.metadata);
    let probe = string_tool(
        "probe",
        Some("Reports what it was given".to_string()),
        open_schema(),
        |ctx: ToolContext, _args: Value| async move {
            let names = ctx
                .dependency::<HostCapabilities>()
                .map(|host| host.names())
                .unwrap_or_default();
            Ok(ToolResult::new(json!({
                "capabilities": names,
                "environment": tool_environment(&ctx).is_some(),
                "process_shell": tool_process_shell(&ctx).is_some(),
                "settings": ctx.dependency::<ShellEnvironmentSnapshot>().map(|s| s.allow_execute),
                "broad_handle": ctx.dependency::<AgentContextHandle>().is_some(),
            })))
        },
    )
    .with_dependencies(requirements);
    let provider = Arc::new(workspace());
    let mut context = AgentContext::default();
    attach_environment(&mut context, provider.clone());
    attach_process_shell(&mut context, provider);
    context.insert_named_dependency("db", NamedDb);
    context.shell_environment = Some(permissive());
    let part = ToolRegistry::new()
        .with_tool(Arc::new(probe))
        .execute_call(
            ambient(context),
            &ToolCallPart::new("p", "probe", json!({})),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
    assert_eq!(
        part.content["capabilities"],
        json!([ENVIRONMENT_CAPABILITY, PROCESS_SHELL_CAPABILITY])
    );
    assert_eq!(part.content["environment"], true);
    assert_eq!(part.content["process_shell"], true);
    assert_eq!(part.content["settings"], true);
    assert_eq!(part.content["broad_handle"], false);
}

#[tokio::test]
async fn an_agent_starts_a_background_process_and_waits_for_it() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("repo").with_file("a.txt", "A\n"));
    let mut context = AgentContext::default();
    attach_process_shell(&mut context, provider.clone());
    let model = Arc::new(TestModel::scripted([
        call_response("c1", "shell_exec", json!({"command": "cat a.txt"})),
        call_response(
            "c2",
            "shell_exec",
            json!({"command": "sleep 2", "background": true}),
        ),
        call_response(
            "c3",
            "shell_wait",
            json!({"id": "proc-1", "timeout_ms": 5_000}),
        ),
        ModelResponse::text("done"),
    ]));
    let mut toolsets = core_toolsets();
    let agent = toolsets
        .drain(..)
        .fold(AgentBuilder::new(model.clone()), |builder, toolset| {
            builder.toolset(&toolset)
        })
        .build();
    let mut session = AgentSession::new(agent)
        .with_context(context)
        .with_environment(provider);
    let result = session.run("build it").await.unwrap();
    assert_eq!(result.output, "done");
    let returns = tool_returns(&result.messages);
    assert_eq!(returns.len(), 3);
    assert!(returns
        .iter()
        .all(|part| part.kind == ToolReturnKind::Success));
    assert_eq!(returns[0].content["stdout"], "A\n");
    assert_eq!(returns[1].content["status"], "running");
    assert_eq!(returns[2].content["status"], "exited");
    assert_eq!(returns[2].content["duration_ms"], 2_000);
    let first = &model.requests()[0];
    let tools: Vec<&str> = first
        .parameters
        .tools
        .iter()
        .map(|tool| tool.name.as_str())
        .collect();
    assert!(
        tools.contains(&"shell_exec") && tools.contains(&"read_file"),
        "{tools:?}"
    );
    assert!(!tools.contains(&"ask_user_question"));
    assert!(first
        .parameters
        .instructions
        .iter()
        .any(|text| text.contains("shell_exec takes either `command`")));
}
