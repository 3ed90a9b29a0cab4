//! The Tools chapter's examples that need agents and sessions, with the
//! design's path mapping (`starweaver_agent::X` -> `starweaver::X`).
#![allow(unused)]

#[tokio::test]
async fn context_dependency_read_note() {
    use std::sync::Arc;

    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use starweaver::{typed_tool, AgentBuilder, AgentContext, TestModel, ToolContext, ToolResult};

    #[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
    struct ReadNoteArgs {
        /// Note key to read from AgentContext.
        key: String,
    }

    async fn example() -> Result<(), starweaver::AgentError> {
        let read_note = typed_tool::<ReadNoteArgs, _, _>(
            "read_note",
            Some("Read one AgentContext note".to_string()),
            |ctx: ToolContext, args: ReadNoteArgs| async move {
                let context_handle = ctx
                    .dependency::<starweaver::AgentContextHandle>()
                    .expect("agent context handle");
                let context = context_handle.snapshot();
                let value = context.notes.get(&args.key).unwrap_or_default();
                Ok(ToolResult::new(serde_json::json!({"value": value})))
            },
        );

        let mut context = AgentContext::default();
        context.notes.set("lang", "Chinese");
        let agent = AgentBuilder::new(Arc::new(TestModel::with_text("done")))
            .tool(Arc::new(read_note))
            .build();

        let result = agent.run_with_context("read note", &mut context).await?;
        assert_eq!(result.output, "done");
        Ok(())
    }
    example().await.unwrap();
}

#[test]
fn registering_tools_on_agents() {
    use std::sync::Arc;

    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};
    use starweaver::{typed_tool, AgentBuilder, TestModel, ToolContext, ToolResult};

    #[derive(Clone, Debug, Deserialize, JsonSchema, Serialize)]
    struct PingArgs {
        /// Text returned by the ping tool.
        text: String,
    }

    let ping = typed_tool::<PingArgs, _, _>(
        "ping",
        Some("Return ping text".to_string()),
        |_ctx: ToolContext, args: PingArgs| async move {
            Ok(ToolResult::new(serde_json::json!({"text": args.text})))
        },
    );

    let _agent = AgentBuilder::new(Arc::new(TestModel::with_text("ready")))
        .tool(Arc::new(ping))
        .build();
}

#[tokio::test]
async fn run_scoped_tools_with_agent_run_options() {
    use std::sync::Arc;

    use starweaver::{
        string_tool, AgentBuilder, AgentRunOptions, TestModel, ToolContext, ToolResult,
    };

    async fn example() -> Result<(), starweaver::AgentError> {
        let tool = Arc::new(string_tool(
            "run_echo",
            Some("Echo one run payload".to_string()),
            serde_json::json!({"type": "object", "properties": {}}),
            |_ctx: ToolContext, args: serde_json::Value| async move { Ok(ToolResult::new(args)) },
        ));
        let mut session = AgentBuilder::new(Arc::new(TestModel::with_text("done")))
            .build_app()
            .session();
        let result = session
            .run_with_options("use the run tool", AgentRunOptions::new().tool(tool))
            .await?;
        assert_eq!(result.output, "done");
        Ok(())
    }
    example().await.unwrap();
}

// First-party environment bundles: the filesystem bundle on a session
// with an in-memory environment.
#[tokio::test]
async fn filesystem_bundle_on_a_session() {
    use std::sync::Arc;

    use starweaver::environment::VirtualEnvironmentProvider;
    use starweaver::{filesystem_tools, AgentBuilder, AgentSession, TestModel};

    async fn example() -> Result<(), starweaver::AgentError> {
        let provider =
            Arc::new(VirtualEnvironmentProvider::new("docs").with_file("README.md", "hello"));
        let agent = AgentBuilder::new(Arc::new(TestModel::with_text("done")))
            .toolset(&filesystem_tools())
            .build();
        let mut session = AgentSession::new(agent).with_environment(provider);

        let result = session.run("read README.md").await?;
        assert_eq!(result.output, "done");
        Ok(())
    }

    example().await.unwrap();
}
