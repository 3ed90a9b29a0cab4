//! The "Process-capable shell providers" examples of the Tools chapter.
//! Mapping: `starweaver_agent::X` -> `starweaver::X`,
//! `starweaver_environment::X` -> `starweaver::environment::X`,
//! `starweaver_model::X` -> `starweaver::model::X`.

#[test]
fn shell_policy_with_program_command() {
    use starweaver::environment::{ProgramCommand, ShellPolicy};
    let policy = ShellPolicy {
        allow_execute: true,
        allowed_programs: vec!["git".to_string()],
    };
    let command = ProgramCommand::new("git", ["status", "--short"]);
    let _ = (policy, command);
}

#[tokio::test]
async fn shell_exec_in_the_background_on_a_virtual_provider() {
    use std::sync::Arc;

    use starweaver::environment::VirtualEnvironmentProvider;
    use starweaver::{
        attach_environment, attach_process_shell, shell_tools, AgentContext, ConversationId, RunId,
        ToolContext, ToolRegistry,
    };

    async fn example() -> Result<(), Box<dyn std::error::Error>> {
        let provider = Arc::new(VirtualEnvironmentProvider::new("process"));
        let mut agent_context = AgentContext::default();
        attach_environment(&mut agent_context, provider.clone());
        attach_process_shell(&mut agent_context, provider);
        let mut dependencies = agent_context.dependencies.clone();
        dependencies.insert(agent_context);
        let context = ToolContext::new(RunId::default(), ConversationId::default(), 0)
            .with_dependencies(dependencies);
        let mut registry = ToolRegistry::new();
        registry.insert_toolset(&shell_tools());

        let started = registry
            .execute_call(
                context,
                &starweaver::model::ToolCallPart {
                    id: "start".to_string(),
                    name: "shell_exec".to_string(),
                    arguments: serde_json::json!({"command": "sleep 1", "background": true}).into(),
                },
            )
            .await;
        assert_eq!(started.content["status"], "running");
        Ok(())
    }
    example().await.unwrap();
}
