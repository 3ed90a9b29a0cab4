//! The terminal UI of `starweaver run` on a scripted test model: the model
//! calls an approval-gated `deploy` and asks two clarifying questions; the
//! UI shows each step, asks at the terminal, and the run goes on with the
//! answers. Prints what `deploy` ran with and the answers the questions got.
//!
//! `cargo run --example terminal_ui` (add `--yes` to approve without asking)

#[cfg(feature = "cli")]
mod demo {
    use std::sync::{Arc, Mutex};

    use serde_json::{json, Value};
    use starweaver::agent::{Agent, AgentHitlResults, AgentRunResult, AgentStreamRecord};
    use starweaver::bundles::user_input_tools;
    use starweaver::model::{ModelResponse, ToolCallPart, ToolReturnKind};
    use starweaver::{
        string_tool, AgentBuilder, AgentError, AgentRunOptions, AgentStreamEvent, TestModel,
        ToolContext, ToolResult,
    };

    use starweaver::cli::terminal::{color_enabled, TerminalOptions, TerminalUi};
    use starweaver::cli::ui::{RunOutcome, RunUi};

    type Log = Arc<Mutex<Vec<String>>>;

    fn agent(log: &Log) -> Agent {
        let calls = log.clone();
        let deploy = string_tool(
            "deploy",
            Some("Deploy a service (needs approval)".to_string()),
            json!({
                "type": "object",
                "properties": {"service": {"type": "string"}},
                "required": ["service"]
            }),
            move |_ctx: ToolContext, args: Value| {
                let calls = calls.clone();
                async move {
                    if let Ok(mut calls) = calls.lock() {
                        calls.push(format!("deploy ran with {args}"));
                    }
                    Ok(ToolResult::new(json!({"deployed": args["service"]})))
                }
            },
        )
        .with_approval_required(true);
        let questions = json!({"questions": [
            {"question": "Which environment?", "header": "Env",
             "options": [{"label": "staging", "description": "try it first"},
                         {"label": "production"}]},
            {"question": "Which regions?", "header": "Regions", "multiSelect": true,
             "options": [{"label": "eu"}, {"label": "us"}, {"label": "asia"}]}
        ]});
        let model = TestModel::scripted([
            ModelResponse::tool_calls([
                ToolCallPart::new("d1", "deploy", json!({"service": "api"})),
                ToolCallPart::new("q1", "ask_user_question", questions),
            ]),
            ModelResponse::text("Deployed as asked."),
        ]);
        AgentBuilder::new(Arc::new(model))
            .tool(Arc::new(deploy))
            .toolset(&user_input_tools())
            .build()
    }

    /// Runs the demo; the exit status is 0 when the run completed.
    pub async fn main() -> std::process::ExitCode {
        let yes = std::env::args().any(|arg| arg == "--yes");
        let log: Log = Arc::default();
        let mut ui = TerminalUi::new(TerminalOptions {
            color: color_enabled(),
            yes,
        });
        let mut session = agent(&log).session();
        let answers_log = log.clone();
        let watch = |ui: &mut TerminalUi, record: &AgentStreamRecord| {
            if let AgentStreamEvent::ToolReturn { part } = &record.event {
                if part.tool_name == "ask_user_question" && part.kind == ToolReturnKind::Success {
                    if let Ok(mut log) = answers_log.lock() {
                        log.push(format!("answers {}", part.content));
                    }
                }
            }
            ui.record(record);
        };
        let mut result: Result<AgentRunResult, AgentError> = {
            let mut sink = |record: &AgentStreamRecord| watch(&mut ui, record);
            session
                .run_with_events("Deploy the api", AgentRunOptions::new(), &mut sink)
                .await
        };
        let outcome = loop {
            let run = match result {
                Ok(run) => run,
                Err(error) => {
                    break RunOutcome::Failed {
                        message: error.to_string(),
                    }
                }
            };
            if !run.is_waiting() {
                break RunOutcome::Completed {
                    structured_output: None,
                    output: run.output,
                    usage: run.usage,
                };
            }
            let answers = ui.answer(&run.pending);
            if !answers.left_pending.is_empty() {
                break RunOutcome::Waiting {
                    pending: run.pending,
                    saved_to: None,
                    usage: run.usage,
                    answered: Vec::new(),
                };
            }
            let mut sink = |record: &AgentStreamRecord| watch(&mut ui, record);
            result = match session
                .resume_with_events(AgentHitlResults::from(answers.interactions), &mut sink)
                .await
            {
                // Rejected answers leave the session waiting: ask again.
                Err(AgentError::InvalidHitlInput { message, .. }) => {
                    eprintln!("{message}");
                    Ok(run)
                }
                other => other,
            };
        };
        ui.finished(&outcome);
        if let Ok(log) = log.lock() {
            for line in log.iter() {
                println!("{line}");
            }
        }
        match outcome {
            RunOutcome::Completed { .. } => std::process::ExitCode::SUCCESS,
            _ => std::process::ExitCode::from(3),
        }
    }
}

#[cfg(feature = "cli")]
#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    demo::main().await
}

#[cfg(not(feature = "cli"))]
fn main() {
    eprintln!("the terminal UI needs the `cli` feature");
}
