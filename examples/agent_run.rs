//! An agent run on the embedded `test` model: it calls every tool once with
//! schema-generated arguments, pauses for an approval and a deferred
//! worker, survives an export/restore of its session, and answers.
//!
//! `cargo run --example agent_run`

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use starweaver::agent::{
    Agent, AgentHitlRequestKind, AgentHitlResults, AgentHitlUserInteraction, AgentSessionState,
    AgentStreamRecord,
};
use starweaver::tools::DeferredToolset;
use starweaver::{
    typed_tool, AgentBuilder, AgentSession, AgentStreamEvent, StaticToolset, TestModel,
    ToolContext, ToolError, ToolInstruction, ToolResult,
};

#[derive(Deserialize, JsonSchema)]
struct LookupArgs {
    /// Term to look up in the glossary.
    term: String,
}

#[derive(Deserialize, JsonSchema)]
struct NoteArgs {
    /// Note key.
    key: String,
    /// Note text.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct RenderArgs {
    /// Scene to render.
    scene: String,
}

fn agent() -> Agent {
    let lookup = typed_tool::<LookupArgs, _, _>(
        "lookup",
        Some("Look up a term in the project glossary".to_string()),
        |_ctx: ToolContext, args: LookupArgs| async move {
            Ok(ToolResult::new(
                json!({"term": args.term, "meaning": "a word the glossary knows"}),
            ))
        },
    );
    let save_note = typed_tool::<NoteArgs, _, _>(
        "save_note",
        Some("Save a note for later runs (needs approval)".to_string()),
        |ctx: ToolContext, args: NoteArgs| async move {
            let handle = ctx
                .dependency::<starweaver::AgentContextHandle>()
                .ok_or_else(|| ToolError::user_error("save_note needs the agent context"))?;
            handle.update(|context| context.notes.set(args.key.clone(), args.text.clone()));
            Ok(ToolResult::new(json!({"saved": args.key})))
        },
    )
    .with_approval_required(true);
    let render = typed_tool::<RenderArgs, _, _>(
        "render_video",
        Some("Render a scene on the render farm".to_string()),
        |_ctx: ToolContext, args: RenderArgs| async move {
            Err(ToolError::user_error(format!(
                "`{}` renders on the farm, not here",
                args.scene
            )))
        },
    );
    AgentBuilder::new(Arc::new(TestModel::auto()))
        .instructions("You help the team with its glossary.")
        .toolset(&Arc::new(
            StaticToolset::new("glossary")
                .with_tool(Arc::new(lookup))
                .with_tool(Arc::new(save_note))
                .with_instruction(ToolInstruction::new("glossary", "Prefer exact lookup.")),
        ))
        .toolset(&Arc::new(
            DeferredToolset::new("jobs").with_tool(Arc::new(render)),
        ))
        .build()
}

fn show(record: &AgentStreamRecord) {
    let line = match &record.event {
        AgentStreamEvent::ModelRequest { step, tools } => {
            format!("model request {step}: tools {tools:?}")
        }
        AgentStreamEvent::ToolBatch {
            mode,
            reason,
            calls,
        } => {
            format!(
                "{calls} call(s), {mode}{}",
                reason
                    .as_ref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            )
        }
        AgentStreamEvent::ToolCall { call } => format!(
            "  call {} {}",
            call.name,
            call.arguments.to_json().unwrap_or_default()
        ),
        AgentStreamEvent::ToolReturn { part } => {
            format!("  return {} -> {}", part.tool_name, part.kind.as_str())
        }
        AgentStreamEvent::Custom { event } => format!("event {}", event.kind),
        AgentStreamEvent::Waiting { requests } => {
            format!("waiting for {} answer(s)", requests.len())
        }
        AgentStreamEvent::RunCompleted { output, .. } => format!("completed: {output}"),
        // Run starts, text deltas, and kinds added in later releases.
        _ => return,
    };
    println!("{line}");
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut session = agent().session();
    let mut sink = show;
    let first = session
        .run_with_events("What does the glossary say?", Default::default(), &mut sink)
        .await?;
    println!(
        "status: {:?}, pending: {}",
        first.status,
        first.pending.len()
    );

    // The session can wait in storage: export it, restore it on a fresh agent.
    let saved = session.export_state().to_json()?;
    println!("exported session state: {} bytes", saved.len());
    let mut session = AgentSession::restore(agent(), AgentSessionState::from_json(&saved)?);

    // Approve the gated call (as `--yes` would) and hand in the worker's result.
    let mut answers = AgentHitlResults::new();
    for request in session.pending() {
        answers = match request.kind {
            AgentHitlRequestKind::Approval => {
                answers.with_interaction(AgentHitlUserInteraction::approved(&request.tool_call_id))
            }
            AgentHitlRequestKind::Deferred => answers.with_deferred_result(
                &request.tool_call_id,
                json!({"url": "https://render.example/scene.mp4"}),
            ),
        };
    }
    let done = session.resume_with_events(answers, &mut sink).await?;
    println!("status: {:?}", done.status);
    println!(
        "notes: {:?}",
        session.context().notes.iter().collect::<Vec<_>>()
    );
    println!("usage: {:?}", done.usage);
    Ok(())
}
