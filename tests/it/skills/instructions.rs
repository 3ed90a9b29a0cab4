//! The model-facing instruction block and the `skills_scanned` startup
//! record, published once per run.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use starweaver::agent::AgentHitlUserInteraction;
use starweaver::environment::VirtualEnvironmentProvider;
use starweaver::model::ModelResponse;
use starweaver::skills::{
    skill_instruction, skill_tools, SkillSummary, SKILLS_INSTRUCTION_GROUP, SKILLS_TOOLSET_NAME,
};
use starweaver::{
    string_tool, AgentBuilder, AgentRunOptions, AgentSession, AgentStreamEvent, SkillRegistry,
    TestModel, ToolContext, ToolResult, SKILL_SCAN_EVENT_KIND,
};

use crate::common::environment::gated_writes;
use crate::common::{batch_model, call, call_response};

use super::{all_strings, env, root, scan_ok, skill};

// ---------------------------------------------------------------------------
// Model-facing instruction block
// ---------------------------------------------------------------------------

#[tokio::test]
async fn skill_tools_lists_names_descriptions_and_paths() {
    let provider = env(&[
        (
            "skills/research/SKILL.md",
            &skill("research", "Gather and cite sources", "BODY-R"),
        ),
        (
            ".agents/skills/review/SKILL.md",
            &skill("review", "Review a change", "BODY-V"),
        ),
    ]);
    let registry = scan_ok(provider, &root()).await;
    let toolset = skill_tools(registry.packages());
    assert_eq!(toolset.name(), SKILLS_TOOLSET_NAME);
    assert!(toolset.get_tools().is_empty());
    let instructions = toolset.get_instructions();
    assert_eq!(instructions.len(), 1);
    assert_eq!(instructions[0].group, SKILLS_INSTRUCTION_GROUP);
    let text = &instructions[0].text;
    assert!(
        text.contains("- research: Gather and cite sources (read `skills/research/SKILL.md`)"),
        "{text}"
    );
    assert!(
        text.contains("- review: Review a change (read `.agents/skills/review/SKILL.md`)"),
        "{text}"
    );
    assert!(text.contains("read its SKILL.md in full"), "{text}");
    assert!(!text.contains("BODY-"), "{text}");
    // Sorted by name.
    assert!(text.find("- research").unwrap() < text.find("- review").unwrap());

    // Owned summaries and iterators work too; no skills, no instruction.
    let owned = skill_tools(registry.packages().to_vec());
    assert_eq!(owned.get_instructions(), instructions);
    assert!(skill_tools(Vec::<SkillSummary>::new())
        .get_instructions()
        .is_empty());
    assert!(skill_instruction(std::iter::empty::<SkillSummary>()).is_none());
    // Hand-built summaries with newlines still render on one line.
    let hand = SkillSummary::new("x", "line one\n  line two", "skills/x/SKILL.md");
    let text = skill_instruction([hand]).unwrap().text;
    assert!(
        text.contains("- x: line one line two (read `skills/x/SKILL.md`)"),
        "{text}"
    );
}

#[tokio::test]
async fn skill_instructions_reach_the_model() {
    let provider = env(&[(
        "skills/research/SKILL.md",
        &skill("research", "Gather sources", "b"),
    )]);
    let registry = scan_ok(provider, &root()).await;
    let model = Arc::new(TestModel::with_text("ok"));
    AgentBuilder::new(model.clone())
        .toolset(&skill_tools(registry.packages()))
        .build()
        .run("hello")
        .await
        .unwrap();
    let request = &model.requests()[0];
    assert!(request
        .parameters
        .instructions
        .iter()
        .any(|text| text.contains("- research: Gather sources")));
}

// ---------------------------------------------------------------------------
// The skills_scanned startup record
// ---------------------------------------------------------------------------

#[tokio::test]
async fn skills_report_becomes_a_custom_stream_record() {
    let provider = env(&[
        (
            ".agents/skills/research/SKILL.md",
            &skill("research", "Shared", "BODY-S"),
        ),
        (
            "skills/research/SKILL.md",
            &skill("research", "Tool", "BODY-T"),
        ),
        ("skills/broken/SKILL.md", "no frontmatter"),
    ]);
    let report = SkillRegistry::scan_with_report(provider, &root())
        .await
        .unwrap();
    let expected = report.to_event();
    assert_eq!(expected.kind, SKILL_SCAN_EVENT_KIND);

    let stream = AgentBuilder::new(Arc::new(TestModel::with_text("ok")))
        .skills_report(report)
        .build()
        .run_stream("hello")
        .await
        .unwrap();
    let events: Vec<_> = stream
        .events()
        .iter()
        .filter_map(|record| match &record.event {
            AgentStreamEvent::Custom { event } if event.kind == SKILL_SCAN_EVENT_KIND => {
                Some(event)
            }
            _ => None,
        })
        .collect();
    assert_eq!(events.len(), 1);
    let payload = &events[0].payload;
    assert_eq!(*events[0], expected);
    assert_eq!(payload["skills"], serde_json::json!(["research"]));
    assert_eq!(payload["skill_count"], 1);
    assert_eq!(payload["error_count"], 1);
    assert_eq!(payload["warning_count"], 0);
    let diagnostic_kinds: Vec<&str> = payload["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    // Scan order: `skills/broken` comes before `skills/research`.
    assert_eq!(diagnostic_kinds, ["malformed", "duplicate_overridden"]);
    assert!(
        all_strings(payload)
            .iter()
            .all(|text| !text.contains("BODY-")),
        "{payload}"
    );
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

/// The spec publishes `skills_scanned` "at run start". A run that waits
/// for an approval and is resumed is still one run, but the startup
/// event is published again for the resumed segment, so the session's
/// context holds the scan diagnostics twice (hosts counting errors or
/// surfacing them to users double-report).
#[tokio::test]
async fn skills_report_is_published_once_per_run_not_again_on_resume() {
    let provider = env(&[("skills/broken/SKILL.md", "no frontmatter")]);
    let report = SkillRegistry::scan_with_report(provider, &root())
        .await
        .unwrap();
    let deploy = string_tool(
        "deploy",
        Some("Deploys".to_string()),
        json!({"type": "object"}),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_approval_required(true);
    let model = Arc::new(TestModel::scripted(vec![
        call_response("d1", "deploy", json!({})),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(deploy))
        .skills_report(report)
        .build()
        .session();

    let waiting = session.run("deploy").await.unwrap();
    assert!(waiting.is_waiting());
    assert_eq!(
        session
            .context()
            .events
            .of_kind(SKILL_SCAN_EVENT_KIND)
            .count(),
        1
    );
    session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(
        session
            .context()
            .events
            .of_kind(SKILL_SCAN_EVENT_KIND)
            .count(),
        1,
        "one run, one skills_scanned event"
    );
}

// Regression lock (review found no defect): one skills_scanned per run, even across a resume.
#[tokio::test]
async fn skills_scanned_is_published_once_for_a_run_that_waits_and_resumes() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("ws")
            .with_file(
                "skills/notes/SKILL.md",
                "---\nname: notes\ndescription: Keep notes\n---\nBody.\n",
            )
            .with_file("notes.txt", "one\n"),
    );
    let report = starweaver::SkillRegistry::scan_with_report(
        provider.clone(),
        &[starweaver::SkillSourceScope::new("")],
    )
    .await
    .unwrap();
    let model = batch_model(vec![vec![call(
        "w1",
        "write_file",
        json!({"path": "notes.txt", "content": "two\n"}),
    )]]);
    let agent = AgentBuilder::new(model)
        .toolset(&gated_writes())
        .toolset(&starweaver::skills::skill_tools(
            report.registry().packages(),
        ))
        .skills_report(report)
        .build();
    let mut session = AgentSession::new(agent).with_environment(provider.clone());
    let scans = Arc::new(Mutex::new(0_usize));
    let counter = scans.clone();
    let mut sink = move |record: &starweaver::agent::AgentStreamRecord| {
        if matches!(&record.event, AgentStreamEvent::Custom { event } if event.kind == starweaver::SKILL_SCAN_EVENT_KIND)
        {
            *counter.lock().unwrap() += 1;
        }
    };
    let waiting = session
        .run_with_events("go", AgentRunOptions::new(), &mut sink)
        .await
        .unwrap();
    assert!(waiting.is_waiting());
    let done = session
        .resume_with_events(AgentHitlUserInteraction::approved("w1"), &mut sink)
        .await
        .unwrap();
    assert_eq!(done.output, "done");
    assert_eq!(*scans.lock().unwrap(), 1);
    let in_context = session
        .context()
        .events
        .events()
        .iter()
        .filter(|event| event.kind == starweaver::SKILL_SCAN_EVENT_KIND)
        .count();
    assert_eq!(in_context, 1);
    // A second run reports its own scan once.
    session.run("again").await.unwrap();
    let after = session
        .context()
        .events
        .events()
        .iter()
        .filter(|event| event.kind == starweaver::SKILL_SCAN_EVENT_KIND)
        .count();
    assert_eq!(after, 2);
}
