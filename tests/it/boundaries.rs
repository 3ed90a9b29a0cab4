//! Where the layers meet: errors named by the registry, sources kept,
//! lifecycle callbacks guarded, one source of truth for kinds, keys and
//! rules.

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::model::{ToolCallPart, ToolReturnKind};
use starweaver::{
    string_tool, DynToolset, PrefixedToolset, StaticToolset, ToolContext, ToolError, ToolRegistry,
};

use crate::common;

mod error_names {
    use super::*;

    fn strict_tool() -> starweaver::tools::FunctionTool {
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

mod lifecycle_guards {
    use super::*;
    use starweaver::context::ContextEventKind;
    use starweaver::tools::{BoxFuture, DynTool, ToolsetLifecyclePolicy};
    use starweaver::{AgentBuilder, AgentContext, TestModel, Toolset};

    /// A toolset whose chosen lifecycle callback panics.
    struct Panicking {
        name: &'static str,
        in_check: bool,
        in_enter: bool,
        in_exit: bool,
    }

    impl Toolset for Panicking {
        fn name(&self) -> &str {
            self.name
        }

        fn get_tools(&self) -> Vec<DynTool> {
            vec![common::echo(&format!("{}_echo", self.name), "Echo")]
        }

        fn is_available(&self, _context: &AgentContext) -> bool {
            assert!(!self.in_check, "availability check exploded");
            true
        }

        fn lifecycle_policy(&self) -> ToolsetLifecyclePolicy {
            ToolsetLifecyclePolicy {
                enter_before_prepare: true,
                exit_after_run: true,
            }
        }

        fn enter_with_context<'a>(
            &'a self,
            _context: &'a mut AgentContext,
        ) -> BoxFuture<'a, Result<(), ToolError>> {
            assert!(!self.in_enter, "setup exploded before its future");
            Box::pin(async move { Ok(()) })
        }

        fn exit_with_context<'a>(
            &'a self,
            _context: &'a mut AgentContext,
        ) -> BoxFuture<'a, Result<(), ToolError>> {
            Box::pin(async move {
                assert!(!self.in_exit, "teardown exploded inside its future");
                Ok(())
            })
        }
    }

    // A panicking toolset availability check, setup or teardown unwound out of Agent::run.
    #[tokio::test]
    async fn panicking_lifecycle_callbacks_are_reports_not_crashes() {
        let toolsets = [
            Panicking {
                name: "check",
                in_check: true,
                in_enter: false,
                in_exit: false,
            },
            Panicking {
                name: "enter",
                in_check: false,
                in_enter: true,
                in_exit: false,
            },
            Panicking {
                name: "exit",
                in_check: false,
                in_enter: false,
                in_exit: true,
            },
        ];
        let mut builder = AgentBuilder::new(Arc::new(TestModel::with_text("done")));
        for toolset in toolsets {
            let toolset: DynToolset = Arc::new(toolset);
            builder = builder.toolset(&toolset);
        }
        let stream = builder.build().run_stream("go").await.unwrap();
        let events: Vec<(ContextEventKind, Value)> = stream
            .events()
            .iter()
            .filter_map(|record| match &record.event {
                starweaver::AgentStreamEvent::Custom { event } => {
                    Some((event.kind.clone(), event.payload.clone()))
                }
                _ => None,
            })
            .collect();
        let has = |kind: ContextEventKind, toolset: &str| {
            events
                .iter()
                .any(|(seen, payload)| *seen == kind && payload.to_string().contains(toolset))
        };
        assert!(
            has(ContextEventKind::ToolsetUnavailable, "check"),
            "{events:?}"
        );
        assert!(has(ContextEventKind::ToolsetFailed, "enter"), "{events:?}");
        assert!(
            has(ContextEventKind::ToolsetClosed, "teardown exploded"),
            "{events:?}"
        );
    }
}

mod one_source_of_truth {
    use super::*;
    use starweaver::agent::AgentHitlUserInteraction;
    use starweaver::model::FunctionModel;
    use starweaver::AgentBuilder;

    // A denied approval said `error_kind: "denied"` under kind feedback, unlike every other return.
    #[tokio::test]
    async fn a_denied_call_is_feedback_like_any_other() {
        let gated = common::echo_tool("gated", "Gated").with_approval_required(true);
        let model = Arc::new(FunctionModel::new(|messages, _| {
            Ok(if common::responses_so_far(messages) == 0 {
                common::call_response("c1", "gated", json!({}))
            } else {
                starweaver::model::ModelResponse::text("ok")
            })
        }));
        let mut session = AgentBuilder::new(model)
            .tool(Arc::new(gated))
            .build_app()
            .session();
        session.run("go").await.unwrap();
        session
            .resume_after_hitl(AgentHitlUserInteraction::denied("c1"))
            .await
            .unwrap();
        let returns = common::tool_returns(session.messages());
        let denied = &returns[0];
        assert_eq!(denied.kind, ToolReturnKind::Feedback);
        assert_eq!(denied.content["error_kind"], denied.kind.as_str());
        assert_eq!(denied.content["is_error"], false);
        assert_eq!(denied.content["details"]["error"], "denied");
        assert_eq!(denied.metadata["approval"]["approved"], false);
    }
}

mod text_rule {
    use super::*;
    use starweaver::environment::{
        EnvironmentError, EnvironmentProvider, VirtualEnvironmentProvider,
    };

    // read_file and grep refused NUL bytes while edit_file accepted them, and skills used a third test.
    #[tokio::test]
    async fn every_reader_and_writer_shares_one_text_rule() {
        let provider = Arc::new(VirtualEnvironmentProvider::new("t").with_file("nul.txt", "a\0b"));
        assert!(matches!(
            provider.read_text("nul.txt").await,
            Err(EnvironmentError::NotText { .. })
        ));
        let dynamic: Arc<dyn EnvironmentProvider> = provider.clone();
        let read =
            common::environment::call_on(dynamic.clone(), "read_file", json!({"path": "nul.txt"}))
                .await;
        assert_eq!(read.kind, ToolReturnKind::Feedback);
        let edit = common::environment::call_on(
            dynamic.clone(),
            "edit_file",
            json!({"path": "nul.txt", "old_string": "a", "new_string": "c"}),
        )
        .await;
        assert_eq!(edit.kind, ToolReturnKind::Feedback, "{:?}", edit.content);
        assert_eq!(edit.content["details"]["error"], "not_text");
        assert_eq!(provider.read_bytes("nul.txt").await.unwrap(), b"a\0b");
        // Writes keep files text.
        let write = common::environment::call_on(
            dynamic,
            "write_file",
            json!({"path": "new.txt", "content": "x\u{0}y"}),
        )
        .await;
        assert_eq!(write.kind, ToolReturnKind::ModelRetry);
        assert!(!provider.exists("new.txt").await.unwrap());
    }
}

mod one_key_per_fact {
    use super::*;

    // Approval and deferral were each read from two metadata keys; each fact now has one.
    #[tokio::test]
    async fn approval_and_deferral_each_have_one_key() {
        use starweaver::tools::{
            APPROVAL_REQUIRED_METADATA_KEY, DEFERRED_CALL_METADATA_KEY, TOOL_KIND_METADATA_KEY,
        };
        use starweaver::ToolKind;
        let unapproved =
            common::echo_tool("unapproved", "Needs approval").with_kind(ToolKind::Unapproved);
        let definition = starweaver::Tool::definition(&unapproved);
        assert_eq!(definition.metadata[APPROVAL_REQUIRED_METADATA_KEY], true);
        // A bare `deferred_call` marker is not the fact: the kind is.
        let marked = common::echo_tool("marked", "Marked only")
            .with_metadata(DEFERRED_CALL_METADATA_KEY, json!(true));
        let deferred = common::echo_tool("deferred", "Deferred")
            .with_metadata(TOOL_KIND_METADATA_KEY, json!("deferred"));
        let registry = ToolRegistry::new()
            .with_tool(Arc::new(unapproved))
            .with_tool(Arc::new(marked))
            .with_tool(Arc::new(deferred));
        let kind_of = |name: &'static str| {
            let registry = registry.clone();
            async move {
                registry
                    .execute_call(
                        ToolContext::default(),
                        &ToolCallPart::new("c", name, json!({})),
                    )
                    .await
                    .kind
            }
        };
        assert_eq!(
            kind_of("unapproved").await,
            ToolReturnKind::ApprovalRequired
        );
        assert_eq!(kind_of("marked").await, ToolReturnKind::Success);
        assert_eq!(kind_of("deferred").await, ToolReturnKind::Deferred);
    }

    // The context kept its own copy of the usage counters, updated field by field.
    #[test]
    fn the_context_counts_usage_with_the_model_usage_type() {
        let mut context = starweaver::AgentContext::default();
        let usage: starweaver::model::Usage = context.usage;
        context.usage.add(&starweaver::model::Usage {
            requests: 1,
            ..usage
        });
        assert_eq!(context.usage.requests, 1);
    }
}
