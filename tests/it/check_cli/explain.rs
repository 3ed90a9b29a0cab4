//! `starweaver check --explain`: what a checked agent can do, from the agent the loader builds.

use serde_json::Value;

use super::{folder, run, stderr, stdout};

/// Explains `manifest` (written as `agent.yaml` beside `files`) as JSON; returns the agent.
fn explain_json(files: &[(&str, &[u8])], extra: &[&str]) -> (tempfile::TempDir, Value) {
    let dir = folder(files);
    let mut args = vec!["check", "--explain", "--format", "json"];
    args.extend_from_slice(extra);
    args.push("agent.yaml");
    let output = run(dir.path(), &args);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}{}", stderr(&output));
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["version"], 1, "{text}");
    let agent = value["agents"][0].clone();
    (dir, agent)
}

/// The tool named `name` of an explained agent.
fn tool<'a>(agent: &'a Value, name: &str) -> &'a Value {
    agent["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == name)
        .unwrap_or_else(|| panic!("no tool `{name}` in {agent:#}"))
}

const CATALOG: &str = r#"{"version":1,"tools":[
  {"name":"fetch","description":"Fetch a page","parameters":{"type":"object"}},
  {"name":"deploy","description":"Ship it","parameters":{"type":"object"}}
],"conflicts":[]}"#;

const LAYERED: &str = "version: 1
name: layered
model: {id: test}
environment: {type: virtual}
toolsets:
  - type: filesystem
    approval_required: [write_file]
  - type: filesystem
    name: hidden
    prefix: h
    read_only: true
  - type: proxy
    name: more
    toolsets: [hidden]
  - type: tools
    name: web
    tools: [fetch]
  - type: search
    name: finder
    toolsets: [web]
  - type: deferred
    name: jobs
    tools: [deploy]
";

#[test]
fn tools_seen_at_the_start_are_told_apart_from_those_behind_a_proxy_or_search() {
    let (_dir, agent) = explain_json(
        &[
            ("agent.yaml", LAYERED.as_bytes()),
            ("tools.json", CATALOG.as_bytes()),
        ],
        &["--catalog", "tools.json"],
    );
    let read = tool(&agent, "read_file");
    assert_eq!(read["seen"], true);
    assert_eq!(read["reach"], "direct");
    assert_eq!(read["approval"], false);
    assert_eq!(tool(&agent, "write_file")["approval"], true);
    assert_eq!(tool(&agent, "edit_file")["approval"], false);
    for own in ["search_tools", "call_tool", "tool_search"] {
        assert_eq!(tool(&agent, own)["seen"], true, "{own}");
    }
    let hidden = tool(&agent, "h_read_file");
    assert_eq!(hidden["seen"], false);
    assert_eq!(hidden["reach"], "proxy");
    assert_eq!(hidden["via"], "more");
    let fetch = tool(&agent, "fetch");
    assert_eq!(fetch["seen"], false);
    assert_eq!(fetch["reach"], "search");
    assert_eq!(fetch["via"], "finder");
    assert_eq!(fetch["verified"], true);
    let deploy = tool(&agent, "deploy");
    assert_eq!(deploy["seen"], true);
    assert_eq!(deploy["deferred"], true);
    assert_eq!(deploy["type"], "deferred");
    assert_eq!(agent["files"]["environment"], "virtual");
    assert_eq!(agent["files"]["root"], Value::Null);
    assert_eq!(
        agent["files"]["write_tools"],
        serde_json::json!(["write_file", "edit_file"])
    );
}

#[test]
fn human_explanation_has_every_section_on_one_screen() {
    let dir = folder(&[
        ("agent.yaml", LAYERED.as_bytes()),
        ("tools.json", CATALOG.as_bytes()),
    ]);
    let output = run(
        dir.path(),
        &[
            "check",
            "--explain",
            "--catalog",
            "tools.json",
            "agent.yaml",
        ],
    );
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}{}", stderr(&output));
    for section in [
        "Agent     layered (agent.yaml)\n",
        "Model     test\n",
        "Tools seen on the first request (",
        "Reachable only through a proxy or search (5)\n",
        "Shell     execution off",
        "Files     virtual (in memory, starts empty), writable through write_file, edit_file\n",
        "Skills    none",
        "Runtime   parallel tool calls, at most 50 steps",
        "Output    text (no `output:` section)\n",
    ] {
        assert!(text.contains(section), "missing {section:?} in\n{text}");
    }
    let line = |name: &str| {
        text.lines()
            .find(|line| line.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no line for {name} in\n{text}"))
            .to_string()
    };
    assert!(line("write_file").ends_with("waits for approval"), "{text}");
    assert!(line("h_grep").contains("via proxy `more`"), "{text}");
    assert!(line("fetch").contains("via search `finder`"), "{text}");
    assert!(line("deploy").contains("deferred"), "{text}");
    assert!(text.lines().count() < 40, "{text}");
}

#[test]
fn preloaded_search_tools_are_seen_at_the_start() {
    let manifest = "version: 1
name: a
model: {id: test}
toolsets:
  - {type: tools, name: web, tools: [fetch, deploy], approval_required: [deploy]}
  - {type: search, name: finder, toolsets: [web], preload: [fetch]}
";
    let (_dir, agent) = explain_json(
        &[
            ("agent.yaml", manifest.as_bytes()),
            ("tools.json", CATALOG.as_bytes()),
        ],
        &["--catalog", "tools.json"],
    );
    assert_eq!(tool(&agent, "fetch")["seen"], true);
    let deploy = tool(&agent, "deploy");
    assert_eq!(deploy["seen"], false);
    assert_eq!(deploy["approval"], true);
    assert_eq!(agent["files"]["environment"], Value::Null);
}

#[test]
fn shell_allowlist_and_any_program_are_told_apart() {
    let shell = |section: &str| {
        format!(
            "version: 1\nname: a\nmodel: {{id: test}}\nenvironment: {{type: virtual}}\n{section}\ntoolsets:\n  - type: shell\n"
        )
    };
    let listed = shell("shell: {allow_execute: true, allowed_programs: [git], timeout_ms: 5000}");
    let (_dir, agent) = explain_json(&[("agent.yaml", listed.as_bytes())], &[]);
    let facts = &agent["shell"];
    assert_eq!(facts["execution"], true);
    assert_eq!(facts["any_program"], false);
    assert_eq!(facts["programs"], serde_json::json!(["git"]));
    assert_eq!(facts["timeout_ms"], 5000);
    assert_eq!(facts["toolset"], "shell");
    assert_eq!(agent["files"]["shell_can_write"], true);

    let any = shell("shell: {allow_execute: true}");
    let dir = folder(&[("agent.yaml", any.as_bytes())]);
    let output = run(dir.path(), &["check", "--explain", "agent.yaml"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(
        text.contains("Shell     execution on: any program and shell scripts (toolset `shell`)"),
        "{text}"
    );
    // The check's warning about it still reaches the reviewer, on standard error.
    assert!(
        stderr(&output).contains("warning[shell-policy]"),
        "{}",
        stderr(&output)
    );

    // A shell toolset that can run nothing is a check error, so "off" means no shell at all.
    let off = "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: virtual}\n";
    let (_dir, agent) = explain_json(&[("agent.yaml", off.as_bytes())], &[]);
    assert_eq!(agent["shell"]["execution"], false);
    assert_eq!(agent["shell"]["toolset"], Value::Null);
    assert_eq!(agent["files"]["shell_can_write"], false);
}

#[test]
fn a_read_only_filesystem_leaves_no_writable_folder() {
    let manifest = "version: 1
name: a
model: {id: test}
environment: {type: local}
toolsets:
  - {type: filesystem, read_only: true}
";
    let (dir, agent) = explain_json(&[("agent.yaml", manifest.as_bytes())], &[]);
    let files = &agent["files"];
    assert_eq!(files["writable"], false);
    assert_eq!(files["write_tools"], serde_json::json!([]));
    let root = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(files["root"], root.display().to_string());
    let output = run(dir.path(), &["check", "--explain", "agent.yaml"]);
    assert!(
        stdout(&output).contains("read-only (no file-writing tool)"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_root_above_the_manifest_shows_the_resolved_folder() {
    let manifest = "version: 1
name: a
model: {id: test}
environment: {type: local, root: ..}
toolsets:
  - type: filesystem
";
    let dir = folder(&[("repo/agents/agent.yaml", manifest.as_bytes())]);
    let output = run(
        dir.path(),
        &["check", "--explain", "repo/agents/agent.yaml"],
    );
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}{}", stderr(&output));
    let repo = std::fs::canonicalize(dir.path().join("repo")).unwrap();
    assert!(repo.is_absolute());
    assert!(
        text.contains(&format!(
            "Files     local folder {}, writable",
            repo.display()
        )),
        "{text}"
    );
    assert!(!text.contains(".."), "{text}");
}

#[test]
fn skills_that_load_are_listed_with_scan_findings() {
    let manifest = "version: 1
name: a
model: {id: test}
environment: {type: local}
skills:
  scopes: [{path: .}]
";
    let skill = b"---\nname: review\ndescription: Review a change.\n---\nRead the diff.\n";
    let (_dir, agent) = explain_json(
        &[
            ("agent.yaml", manifest.as_bytes()),
            ("skills/review/SKILL.md", skill),
            (
                "skills/old-name/SKILL.md",
                b"---\nname: renamed\ndescription: Moved.\n---\nBody.\n",
            ),
        ],
        &[],
    );
    let skills = &agent["skills"];
    assert_eq!(skills["scopes"], serde_json::json!(["."]));
    let loaded = skills["loaded"].as_array().unwrap();
    assert_eq!(loaded.len(), 2, "{skills:#}");
    assert!(loaded
        .iter()
        .any(|skill| skill["name"] == "review" && skill["path"] == "skills/review/SKILL.md"));
    let problems = skills["diagnostics"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["path"]
            .as_str()
            .is_some_and(|path| path.contains("old-name"))),
        "{skills:#}"
    );
}

#[test]
fn a_manifest_with_errors_gets_the_usual_report_and_exit_1() {
    let dir = folder(&[("agent.yaml", super::BROKEN.as_bytes())]);
    let output = run(dir.path(), &["check", "--explain", "agent.yaml"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("error[unknown-field]"), "{text}");
    assert!(!text.contains("Tools seen"), "{text}");
}

#[test]
fn a_missing_root_is_reported_by_the_check_before_anything_is_assembled() {
    let manifest =
        "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: local, root: missing}\n";
    let dir = folder(&[("agent.yaml", manifest.as_bytes())]);
    let output = run(dir.path(), &["check", "--explain", "agent.yaml"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains("error[invalid-value]"), "{text}");
    assert!(
        text.contains("environment root `missing` is not a folder"),
        "{text}"
    );
    assert!(!text.contains("Tools seen"), "{text}");
}

#[test]
fn code_tools_come_from_the_catalog_or_are_shown_unverified() {
    let manifest = "version: 1
name: a
model: {id: test}
toolsets:
  - {type: tools, name: web, tools: [fetch], prefix: net}
";
    let files: [(&str, &[u8]); 2] = [
        ("agent.yaml", manifest.as_bytes()),
        ("tools.json", CATALOG.as_bytes()),
    ];
    let (_dir, agent) = explain_json(&files, &["--catalog", "tools.json"]);
    let fetch = tool(&agent, "net_fetch");
    assert_eq!(fetch["verified"], true);
    assert_eq!(fetch["seen"], true);
    assert_eq!(agent["warnings"], serde_json::json!([]));

    let (_dir, agent) = explain_json(&files, &[]);
    assert_eq!(tool(&agent, "net_fetch")["verified"], false);
    assert_eq!(agent["warnings"][0]["rule"], "unknown-tool");

    // A name the catalog does not have is an error of the check, not an explanation.
    let other = r#"{"version":1,"tools":[{"name":"other"}]}"#;
    let dir = folder(&[
        ("agent.yaml", manifest.as_bytes()),
        ("tools.json", other.as_bytes()),
    ]);
    let output = run(
        dir.path(),
        &[
            "check",
            "--explain",
            "--catalog",
            "tools.json",
            "agent.yaml",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).contains("error[unknown-tool]"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn explain_prints_only_human_or_json() {
    let dir = folder(&[("agent.yaml", super::CLEAN.as_bytes())]);
    let output = run(
        dir.path(),
        &["check", "--explain", "--format", "sarif", "agent.yaml"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--explain prints"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn every_manifest_of_a_folder_is_explained_in_order() {
    let second = "version: 1\nname: second\nmodel: {id: test}\n";
    let dir = folder(&[
        ("agents/a.yaml", super::CLEAN.as_bytes()),
        ("agents/b.yaml", second.as_bytes()),
    ]);
    let output = run(
        dir.path(),
        &["check", "--explain", "--format", "json", "agents"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let value: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let names: Vec<&str> = value["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|agent| agent["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["scout", "second"]);
    let output = run(dir.path(), &["check", "--explain", "agents"]);
    let text = stdout(&output);
    assert!(text.contains("Agent     scout (agents/a.yaml)\n"), "{text}");
    assert!(
        text.contains("\n\nAgent     second (agents/b.yaml)\n"),
        "{text}"
    );
    assert!(
        text.contains("Tools seen on the first request (0)\n  (none)\n"),
        "{text}"
    );
}

#[test]
fn denied_warnings_stop_the_explanation() {
    let manifest = "version: 1
name: a
model: {id: test}
environment: {type: virtual}
shell: {allow_execute: true}
toolsets:
  - type: shell
";
    let dir = folder(&[("agent.yaml", manifest.as_bytes())]);
    let output = run(
        dir.path(),
        &["check", "--explain", "--deny-warnings", "agent.yaml"],
    );
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("warning[shell-policy]"), "{text}");
    assert!(!text.contains("Tools seen"), "{text}");
}

#[test]
fn the_run_budgets_are_shown() {
    let manifest =
        "version: 1\nname: a\nmodel: {id: test}\nruntime: {max_steps: 7, max_tokens: 5000}\n";
    let (_dir, agent) = explain_json(&[("agent.yaml", manifest.as_bytes())], &[]);
    assert_eq!(agent["runtime"]["max_steps"], 7);
    assert_eq!(agent["runtime"]["max_tokens"], 5000);
    let dir = folder(&[("agent.yaml", manifest.as_bytes())]);
    let output = run(dir.path(), &["check", "--explain", "agent.yaml"]);
    let text = stdout(&output);
    assert!(
        text.contains("at most 7 steps, at most 5000 tokens"),
        "{text}"
    );
}

// A name or description holding a newline or a terminal escape forged rows and drove the
// terminal through `--explain`; such characters now show as `?`.
#[test]
fn control_characters_in_names_never_reach_the_screen() {
    let manifest = "version: 1\nname: \"a\\nb\\u001b[31mRED\"\ndescription: \"d\\u001b]0;pwned\\u0007\\nFAKE line\"\nmodel: {id: test}\n";
    let dir = folder(&[("agent.yaml", manifest.as_bytes())]);
    let output = run(dir.path(), &["check", "--explain", "agent.yaml"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
    assert!(text.contains("Agent     a?b?[31mRED"), "{text}");
    assert!(!text.contains("\nFAKE"), "{text}");
}

#[test]
fn a_deferred_set_over_a_toolset_marks_its_tools_deferred_under_its_prefix() {
    let manifest = "version: 1
name: handoff
model: {id: test}
environment: {type: virtual}
toolsets:
  - type: filesystem
    name: files
    tools: [write_file]
  - type: deferred
    name: jobs
    prefix: later
    toolsets: [files]
";
    let (_dir, agent) = explain_json(&[("agent.yaml", manifest.as_bytes())], &[]);
    let write = tool(&agent, "later_write_file");
    assert_eq!(write["deferred"], true, "{write:#}");
    assert_eq!(write["seen"], true, "{write:#}");
    assert_eq!(write["toolset"], "files", "{write:#}");
    let tools = agent["tools"].as_array().unwrap();
    assert_eq!(
        tools
            .iter()
            .filter(|t| t["name"] == "later_write_file")
            .count(),
        1,
        "listed once: {tools:#?}"
    );
    assert!(
        !tools.iter().any(|t| t["name"] == "write_file"),
        "not offered unwrapped: {tools:#?}"
    );
}

#[test]
fn the_output_contract_is_shown_with_its_tool_schema_and_retries() {
    let inline = "version: 1\nname: triage\nmodel: {id: test}\noutput:\n  schema:\n    type: object\n    properties:\n      severity: { enum: [low, high] }\n      summary: { type: string }\n    required: [severity]\n  retries: 1\n";
    let (_dir, agent) = explain_json(&[("agent.yaml", inline.as_bytes())], &[]);
    let output = &agent["output"];
    assert_eq!(output["tool"], "final_answer", "{agent:#}");
    assert_eq!(output["source"], "inline");
    assert_eq!(output["schema_file"], Value::Null);
    assert_eq!(output["retries"], 1);
    assert_eq!(
        output["properties"],
        serde_json::json!(["severity", "summary"])
    );
    assert_eq!(output["required"], serde_json::json!(["severity"]));
    assert_eq!(
        output["schema"]["required"],
        serde_json::json!(["severity"])
    );
    // The tool is offered on every request, beside the agent's others.
    let answer = tool(&agent, "final_answer");
    assert_eq!(answer["seen"], true);
    assert_eq!(answer["type"], "output");

    let filed =
        "version: 1\nname: counter\nmodel: {id: test}\noutput: {schema_file: schemas/count.json}\n";
    let files: &[(&str, &[u8])] = &[
        ("agent.yaml", filed.as_bytes()),
        ("schemas/count.json", br#"{"type": "integer"}"#),
    ];
    let (_dir, agent) = explain_json(files, &[]);
    assert_eq!(agent["output"]["source"], "file", "{agent:#}");
    assert_eq!(agent["output"]["schema_file"], "schemas/count.json");
    assert_eq!(agent["output"]["retries"], 2, "the default");
    assert_eq!(
        agent["output"]["schema"],
        serde_json::json!({"type": "integer"})
    );

    let dir = folder(files);
    let result = run(dir.path(), &["check", "--explain", "agent.yaml"]);
    let text = stdout(&result);
    assert_eq!(result.status.code(), Some(0), "{text}{}", stderr(&result));
    assert!(
        text.contains("Output    answers through `final_answer`: an integer matching the schema (schema from schemas/count.json); 2 retries: 3 answers in all, then the run fails"),
        "{text}"
    );
    let line = text
        .lines()
        .find(|line| line.trim_start().starts_with("final_answer "))
        .unwrap_or_else(|| panic!("no final_answer line in\n{text}"));
    assert!(
        line.contains("(output:)") && line.contains("gives the answer"),
        "{line}"
    );
}

#[test]
fn an_agent_without_output_answers_in_text_and_has_no_output_tool() {
    let (_dir, agent) = explain_json(
        &[
            ("agent.yaml", LAYERED.as_bytes()),
            ("tools.json", CATALOG.as_bytes()),
        ],
        &["--catalog", "tools.json"],
    );
    assert_eq!(agent["output"], Value::Null);
    assert!(
        !agent["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool["name"] == "final_answer"),
        "{agent:#}"
    );
}
