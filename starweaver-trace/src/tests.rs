#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The span tree of a real run, through the exporter's own subscriber and mask, into a
//! collecting exporter: names, parents, attributes, events, and content only when asked.

use std::sync::{Arc, Mutex};

use opentelemetry::Value;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use serde_json::json;
use starweaver_core::agent::{AgentBuilder, AgentHitlUserInteraction, AgentSession};
use starweaver_core::model::{FunctionModel, ModelResponse, ToolCallPart};
use starweaver_core::tools::{string_tool, ToolError, ToolResult};

use crate::{subscriber, Mask, MaskedExporter};

/// Keeps what it is handed.
#[derive(Clone, Debug, Default)]
struct Collected(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Collected {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.0.lock().unwrap().extend(batch);
        Ok(())
    }
}

const SECRET: &str = "s3cret-42";

/// Runs `work` on a current-thread runtime under the exporter's subscriber, masking `SECRET`,
/// and returns every span it made.
fn collect<F>(work: impl FnOnce() -> F) -> Vec<SpanData>
where
    F: std::future::Future<Output = ()>,
{
    let collected = Collected::default();
    let mask: Mask = Arc::new(|text: &str| text.replace(SECRET, "***"));
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(MaskedExporter::new(collected.clone(), mask))
        .build();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    tracing::subscriber::with_default(subscriber(&provider), || runtime.block_on(work()));
    provider.force_flush().unwrap();
    let spans = collected.0.lock().unwrap().clone();
    spans
}

/// Runs the `ops` agent: one step calls `lookup` (which fails once and is retried) and
/// `deploy` (which needs approval); the run waits, is approved, and answers.
fn traced_run() -> Vec<SpanData> {
    collect(|| async {
        {
            let requests = Mutex::new(0u32);
            let model = FunctionModel::new(move |_messages, _parameters| {
                let mut count = requests.lock().unwrap();
                *count += 1;
                let mut response = if *count == 1 {
                    ModelResponse::tool_calls([
                        ToolCallPart::new("call-lookup", "lookup", json!({"build": SECRET})),
                        ToolCallPart::new("call-deploy", "deploy", json!({})),
                    ])
                } else {
                    ModelResponse::text(format!("Deployed {SECRET}."))
                };
                response.usage.input_tokens = 11;
                response.usage.output_tokens = 7;
                Ok(response)
            });
            let failures = Arc::new(Mutex::new(1u32));
            let lookup = string_tool(
                "lookup",
                Some("Finds a build.".into()),
                json!({"type": "object"}),
                move |_ctx, _args| {
                    let failures = failures.clone();
                    async move {
                        let mut left = failures.lock().unwrap();
                        if *left > 0 {
                            *left -= 1;
                            return Err(ToolError::Execution {
                                message: "flaky".into(),
                                source: None,
                            });
                        }
                        Ok(ToolResult::new(json!({"found": true})))
                    }
                },
            )
            .with_max_retries(2);
            let deploy = string_tool(
                "deploy",
                Some("Deploys.".into()),
                json!({"type": "object"}),
                |_ctx, _args| async { Ok(ToolResult::new(json!({"deployed": true}))) },
            )
            .with_approval_required(true);
            let agent = AgentBuilder::new(Arc::new(model))
                .name("ops")
                .tool(Arc::new(lookup))
                .tool(Arc::new(deploy))
                .build();
            let mut session = AgentSession::new(agent);
            let first = session.run(format!("Ship build {SECRET}")).await.unwrap();
            assert!(first.is_waiting());
            session
                .resume_after_hitl(AgentHitlUserInteraction::approved("call-deploy"))
                .await
                .unwrap();
        }
    })
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes
        .iter()
        .find(|attribute| attribute.key.as_str() == key)
        .map(|attribute| &attribute.value)
}

fn named<'a>(spans: &'a [SpanData], name: &str) -> Vec<&'a SpanData> {
    spans.iter().filter(|span| span.name == name).collect()
}

/// Every string the spans carry: names, attribute values, events, status messages.
fn all_text(spans: &[SpanData]) -> String {
    let mut text = String::new();
    for span in spans {
        text.push_str(&span.name);
        for attribute in &span.attributes {
            text.push_str(&attribute.value.to_string());
        }
        for event in span.events.iter() {
            text.push_str(&event.name);
            for attribute in &event.attributes {
                text.push_str(&attribute.value.to_string());
            }
        }
        text.push_str(&format!("{:?}", span.status));
    }
    text
}

#[test]
fn a_run_is_a_tree_of_named_spans_with_usage_call_ids_retries_and_approvals_and_content_only_when_asked(
) {
    starweaver_core::telemetry::set_content_capture(false);
    let spans = traced_run();
    let runs = named(&spans, "invoke_agent ops");
    assert_eq!(runs.len(), 2, "the run and its resume");
    let chats = named(&spans, "chat function");
    assert_eq!(chats.len(), 2);
    for chat in &chats {
        // Each request is a child of a run, a client span with its usage.
        assert!(runs
            .iter()
            .any(|run| run.span_context.span_id() == chat.parent_span_id));
        assert_eq!(chat.span_kind, opentelemetry::trace::SpanKind::Client);
        assert_eq!(
            attribute(chat, "gen_ai.operation.name"),
            Some(&"chat".into())
        );
        assert_eq!(
            attribute(chat, "gen_ai.request.model"),
            Some(&"function".into())
        );
        assert_eq!(
            attribute(chat, "gen_ai.usage.input_tokens"),
            Some(&Value::I64(11))
        );
        assert_eq!(
            attribute(chat, "gen_ai.usage.output_tokens"),
            Some(&Value::I64(7))
        );
    }
    let lookup = named(&spans, "execute_tool lookup");
    assert_eq!(lookup.len(), 1);
    let lookup = lookup[0];
    assert_eq!(
        attribute(lookup, "gen_ai.tool.call.id"),
        Some(&"call-lookup".into())
    );
    assert_eq!(
        attribute(lookup, "gen_ai.tool.name"),
        Some(&"lookup".into())
    );
    assert_eq!(
        attribute(lookup, "gen_ai.tool.type"),
        Some(&"function".into())
    );
    assert_eq!(
        attribute(lookup, "starweaver.tool.attempts"),
        Some(&Value::I64(2)),
        "the retried call"
    );
    // The gated call: asked for approval in the run, then run in the resume.
    let deploys = named(&spans, "execute_tool deploy");
    assert_eq!(deploys.len(), 2);
    assert!(deploys.iter().any(|span| span
        .events
        .iter()
        .any(|event| event.name == "approval_requested")));
    assert!(deploys
        .iter()
        .any(|span| { attribute(span, "starweaver.tool.return_kind") == Some(&"success".into()) }));
    for run in &runs {
        assert_eq!(attribute(run, "gen_ai.agent.name"), Some(&"ops".into()));
        assert_eq!(
            attribute(run, "gen_ai.operation.name"),
            Some(&"invoke_agent".into())
        );
        assert!(attribute(run, "gen_ai.conversation.id").is_some());
    }
    // No content: neither the prompt, the arguments nor the answer.
    let text = all_text(&spans);
    assert!(!text.contains(SECRET), "{text}");
    assert!(!text.contains("Ship build"), "{text}");
    for key in [
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
    ] {
        assert!(
            spans.iter().all(|span| attribute(span, key).is_none()),
            "{key}"
        );
    }

    // Asked for, content is recorded, and the secret in it is masked.
    starweaver_core::telemetry::set_content_capture(true);
    let spans = traced_run();
    starweaver_core::telemetry::set_content_capture(false);
    let text = all_text(&spans);
    assert!(text.contains("Ship build ***"), "{text}");
    assert!(!text.contains(SECRET), "{text}");
    let lookup = named(&spans, "execute_tool lookup")[0];
    assert_eq!(
        attribute(lookup, "gen_ai.tool.call.arguments"),
        Some(&r#"{"build":"***"}"#.into())
    );
}

#[test]
fn a_sub_agents_run_is_a_child_invoke_agent_span_of_the_call_that_ran_it() {
    let spans = collect(|| async {
        {
            let reviewer = AgentBuilder::new(Arc::new(FunctionModel::new(|_, _| {
                Ok(ModelResponse::text("Looks good."))
            })))
            .name("reviewer")
            .build();
            let asked = Mutex::new(false);
            let lead = AgentBuilder::new(Arc::new(FunctionModel::new(move |_, _| {
                let mut asked = asked.lock().unwrap();
                let first = !*asked;
                *asked = true;
                Ok(if first {
                    ModelResponse::tool_calls([ToolCallPart::new(
                        "call-review",
                        "reviewer",
                        json!({"task": "review"}),
                    )])
                } else {
                    ModelResponse::text("Reviewed.")
                })
            })))
            .name("lead")
            .tool(starweaver_core::agent::SubAgent::new("reviewer", reviewer).into_tool())
            .build();
            lead.run("Review.").await.unwrap();
        }
    });
    let lead = named(&spans, "invoke_agent lead")[0];
    let call = named(&spans, "execute_tool reviewer")[0];
    let child = named(&spans, "invoke_agent reviewer")[0];
    assert_eq!(call.parent_span_id, lead.span_context.span_id());
    assert_eq!(child.parent_span_id, call.span_context.span_id());
    assert_eq!(child.span_context.trace_id(), lead.span_context.trace_id());
}
