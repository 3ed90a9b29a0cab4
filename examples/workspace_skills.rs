//! An agent working on files: an in-memory environment, the filesystem
//! bundle, and skills discovered in the environment. A scripted model
//! finds the skill, reads it, edits a file and answers; the run's records
//! are printed as they happened.
//!
//! `cargo run --example workspace_skills`

use std::sync::Arc;

use serde_json::json;
use starweaver::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
use starweaver::model::{ModelResponse, ToolCallPart};
use starweaver::skills::skill_tools;
use starweaver::{
    filesystem_tools, AgentBuilder, AgentSession, AgentStreamEvent, SkillRegistry,
    SkillSourceScope, TestModel,
};

const CHANGELOG_SKILL: &str = "---
name: changelog
description: Add release notes to CHANGELOG.md
---
Add one bullet under `## Unreleased`, in the imperative mood.
";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let workspace = Arc::new(
        VirtualEnvironmentProvider::new("workspace")
            .with_file("README.md", "# Demo\n")
            .with_file("CHANGELOG.md", "# Changelog\n\n## Unreleased\n")
            .with_file(".agents/skills/changelog/SKILL.md", CHANGELOG_SKILL)
            .with_file("skills/broken/SKILL.md", "no frontmatter here\n"),
    );

    // Discover skills; the broken one becomes a diagnostic, not a failure.
    let report =
        SkillRegistry::scan_with_report(workspace.clone(), &[SkillSourceScope::new("")]).await?;
    for diagnostic in report.diagnostics() {
        println!(
            "skill diagnostic: {:?}: {}",
            diagnostic.kind, diagnostic.message
        );
    }

    let model = TestModel::scripted([
        ModelResponse::tool_calls([ToolCallPart::new(
            "find",
            "glob",
            json!({"pattern": "**/SKILL.md"}),
        )]),
        ModelResponse::tool_calls([ToolCallPart::new(
            "read",
            "read_file",
            json!({"path": ".agents/skills/changelog/SKILL.md"}),
        )]),
        ModelResponse::tool_calls([ToolCallPart::new(
            "edit",
            "edit_file",
            json!({
                "path": "CHANGELOG.md",
                "old_string": "## Unreleased\n",
                "new_string": "## Unreleased\n\n- Add the workspace example\n",
            }),
        )]),
        ModelResponse::text("Added a release note to CHANGELOG.md."),
    ]);
    let agent = AgentBuilder::new(Arc::new(model))
        .instructions("You maintain this repository.")
        .toolset(&filesystem_tools())
        .toolset(&skill_tools(report.registry().packages()))
        .skills_report(report)
        .build();
    let mut session = AgentSession::new(agent).with_environment(workspace.clone());

    let stream = session.run_stream("Add a release note").await?;
    for record in stream.events() {
        match &record.event {
            AgentStreamEvent::Custom { event } => println!("event {}", event.kind),
            AgentStreamEvent::ToolCall { call } => {
                let arguments = call.arguments.to_json().unwrap_or_default();
                println!("call {} {arguments}", call.name);
            }
            AgentStreamEvent::ToolReturn { part } => {
                println!("return {} ({:?})", part.tool_name, part.kind);
            }
            _ => {}
        }
    }
    println!("answer: {}", stream.result().output);
    println!(
        "--- CHANGELOG.md ---\n{}",
        workspace.read_text("CHANGELOG.md").await?
    );
    Ok(())
}
