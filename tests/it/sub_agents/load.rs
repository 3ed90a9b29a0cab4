//! Loading a tree of sub-agents: one tool per sub-agent, in one toolset under the entry's name,
//! each running its own manifest's agent on the task a call gives it.

use std::sync::Arc;

use serde_json::json;
use starweaver::config::load::{load, LoadOptions};
use starweaver::model::ModelResponse;
use starweaver::TestModel;

use super::check_root;
use crate::common::call_response;

const LEAD: &str = "version: 1
name: lead
model: {id: test}
instructions: You lead.
toolsets:
  - type: agents
    name: helpers
    agents:
      - path: team/reviewer.yaml
        tool: review_change
        description: Reviews a diff and returns findings.
";

const REVIEWER: &str = "version: 1
name: reviewer
description: Reviews changes.
model: {id: script, script: reviewer.script.yaml}
vars:
  focus: correctness
instructions: Review for {{ vars.focus }}.
environment: {type: virtual}
toolsets:
  - type: filesystem
    read_only: true
";

const SCRIPT: &str = "- answer: \"Reviewed: {{ prompt }}\"\n";

#[tokio::test]
async fn a_tree_loads_into_one_tool_per_sub_agent_that_runs_it() {
    let (_dir, tree) = check_root(
        &[
            ("lead.yaml", LEAD),
            ("team/reviewer.yaml", REVIEWER),
            ("team/reviewer.script.yaml", SCRIPT),
        ],
        "lead.yaml",
    );
    assert!(tree.diagnostics.is_empty(), "{:#?}", tree.diagnostics);
    let checked = tree.checked.unwrap();
    // The host's model is the root's; the reviewer plays its own script.
    let model = Arc::new(TestModel::scripted([
        call_response(
            "c1",
            "review_change",
            json!({"task": "the diff", "focus": "style"}),
        ),
        ModelResponse::text("done"),
    ]));
    let loaded = load(&checked, &LoadOptions::new().with_model(model.clone()))
        .await
        .unwrap();
    assert_eq!(loaded.tool_names, ["review_change"]);
    let summary = &loaded.toolsets[0];
    assert_eq!((summary.name.as_str(), summary.kind), ("helpers", "agents"));
    let tools: Vec<&str> = summary
        .tools
        .iter()
        .map(|tool| tool.name.as_str())
        .collect();
    assert_eq!(tools, ["review_change"]);

    // The sub-agent, loaded from its own manifest, in its own folder, with its own tools.
    let sub = &loaded.sub_agents[0];
    assert_eq!(
        (sub.toolset.as_str(), sub.tool.as_str()),
        ("helpers", "review_change")
    );
    assert_eq!(sub.checked.manifest().name, "reviewer");
    assert_eq!(sub.loaded.tool_names, ["glob", "grep", "ls", "read_file"]);
    // Its instructions are rendered per call; with the defaults they read:
    assert_eq!(
        sub.loaded.instructions.as_deref(),
        Some("Review for correctness.")
    );

    let result = loaded.agent.run("Review my change").await.unwrap();
    assert_eq!(result.output, "done");
    // The lead's request, the reviewer's and the lead's second.
    assert_eq!(result.usage.requests, 3);
    let sent = model.requests();
    let definition = sent[0]
        .parameters
        .tools
        .iter()
        .find(|tool| tool.name == "review_change")
        .unwrap();
    assert_eq!(
        definition.description.as_deref(),
        Some("Reviews a diff and returns findings.")
    );
    assert_eq!(definition.parameters["required"], json!(["task"]));
    assert_eq!(
        definition.parameters["properties"]["focus"]["type"],
        "string"
    );
    // The reviewer's answer came back as the call's return.
    let returned = format!("{:?}", sent[1].messages);
    assert!(returned.contains("Reviewed: the diff"), "{returned}");
}

#[tokio::test]
async fn the_hosts_model_and_variables_are_the_root_agents_alone() {
    let (_dir, tree) = check_root(
        &[
            ("lead.yaml", LEAD),
            ("team/reviewer.yaml", REVIEWER),
            ("team/reviewer.script.yaml", SCRIPT),
        ],
        "lead.yaml",
    );
    let checked = tree.checked.unwrap();
    let options = LoadOptions::new()
        .with_model(Arc::new(TestModel::with_text("root")))
        .with_var("focus", "ignored by the sub-agent");
    let loaded = load(&checked, &options).await.unwrap();
    let sub = &loaded.sub_agents[0];
    assert_eq!(
        sub.loaded.instructions.as_deref(),
        Some("Review for correctness.")
    );
    assert_eq!(sub.loaded.agent.model().name(), "script");
}

/// Regression: `starweaver run` masked the root agent's secrets only, so a sub-agent's secret
/// variable showed wherever its run echoed it.
#[test]
fn a_run_masks_a_sub_agents_secret_values_too() {
    let lead = "version: 1\nname: lead\nmodel: {id: script, script: lead.script.yaml}\ntoolsets:\n  - type: agents\n    name: helpers\n    agents: [{path: deployer.yaml}]\n";
    let lead_script = "- calls:\n    - tool: deployer\n      args: {task: deploy}\n- answer: \"{{ calls[0].result }}\"\n";
    let deployer = "version: 1\nname: deployer\nmodel: {id: script, script: deployer.script.yaml}\nvars:\n  deploy_token: tok-5ecret-0042\ninstructions: Deploy with {{ vars.deploy_token }}.\n";
    let deployer_script = "- answer: \"used tok-5ecret-0042\"\n";
    let dir = crate::run_cli::folder(&[
        ("lead.yaml", lead),
        ("lead.script.yaml", lead_script),
        ("deployer.yaml", deployer),
        ("deployer.script.yaml", deployer_script),
    ]);
    let output = crate::run_cli::run(
        dir.path(),
        &["run", "lead.yaml", "--json", "--prompt", "go"],
    );
    crate::run_cli::assert_status(&output, 0);
    let text = crate::run_cli::stdout(&output);
    assert!(text.contains("used ***"), "{text}");
    assert!(!text.contains("tok-5ecret-0042"), "{text}");
}
