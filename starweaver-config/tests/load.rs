//! Loading manifests into agents and running them on the embedded test model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use starweaver_config::diagnostics::{Diagnostic, Rule};
use starweaver_config::load::{load, LoadError, LoadOptions};
use starweaver_config::validate::{check_manifest, CheckContext, Checked};
use starweaver_core::model::{ModelResponse, TestModel, ToolCallPart};
use starweaver_core::tools::{typed_tool, DynTool, ToolContext, ToolResult};

#[derive(Deserialize, JsonSchema)]
struct Term {
    /// The word to look up.
    #[allow(dead_code)]
    term: String,
}

fn test_tool(name: &str) -> DynTool {
    let answer = format!("{name} answered");
    std::sync::Arc::new(typed_tool::<Term, _, _>(
        name.to_string(),
        Some(format!("Test tool {name}.")),
        move |_ctx: ToolContext, _args: Term| {
            let answer = answer.clone();
            async move { Ok(ToolResult::new(json!(answer))) }
        },
    ))
}

/// The code tools the host has.
const CATALOG: [&str; 2] = ["lookup", "render_video"];

fn options() -> LoadOptions {
    LoadOptions::new().with_tools(|name| CATALOG.contains(&name).then(|| test_tool(name)))
}

fn context(dir: &std::path::Path) -> CheckContext {
    CheckContext::new().with_catalog(CATALOG).with_base_dir(dir)
}

/// The manifest `text` checked in the folder `dir`; it must check.
fn checked(text: &str, dir: &std::path::Path) -> Checked {
    let (found, checked) = check_manifest(text.as_bytes(), &context(dir));
    checked.unwrap_or_else(|| panic!("does not check: {found:#?}"))
}

/// What the checker finds in `text`, which must not check.
fn refused(text: &str, dir: &std::path::Path) -> Vec<Diagnostic> {
    let (found, checked) = check_manifest(text.as_bytes(), &context(dir));
    assert!(checked.is_none(), "checks: {text}");
    found
}

fn messages_json(result: &starweaver_core::agent::AgentRunResult) -> String {
    serde_json::to_string(&result.messages).unwrap()
}

/// The documented example, without the two toolsets that pause a run (user input, deferred).
const FULL: &str = r"
version: 1
name: repo-helper
description: Answers questions about this repository.
model:
  id: test
  settings: { temperature: 0.2, max_tokens: 2048 }
vars:
  audience: developers
instructions: |
  You help {{ vars.audience }} with {{ name }}.
environment:
  type: local
  root: .
shell:
  allow_execute: true
  allowed_programs: [git, cargo]
  timeout_ms: 30000
  max_output_bytes: 1048576
  max_concurrent_processes: 4
  sandbox:
    mode: read-only
    writable: [target]
    network: false
    read: all
    required: true
toolsets:
  - type: tools
    name: glossary
    tools: [lookup]
    instructions: Prefer exact lookup before answering.
    timeout_ms: 5000
    max_retries: 2
    prefix: null
    approval_required: []
  - type: filesystem
    read_only: true
  - type: shell
  - type: proxy
    name: workspace
    toolsets: [glossary]
skills:
  scopes: [{ path: ., source: workspace }]
runtime:
  tool_execution: parallel
  unavailable_tools: skip
  timeout_ms: 60000
  max_retries: 3
  max_steps: 20
";

#[tokio::test]
async fn the_full_example_loads_and_runs_to_its_answer() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "hello").unwrap();
    let manifest = checked(FULL, dir.path());
    let mut loaded = load(&manifest, &options()).await.unwrap();
    assert_eq!(
        loaded.instructions.as_deref(),
        Some("You help developers with repo-helper.")
    );
    // The glossary sits behind the proxy only.
    assert!(!loaded.tool_names.contains(&"lookup".to_string()));
    assert!(loaded.tool_names.contains(&"read_file".to_string()));
    assert!(!loaded.tool_names.contains(&"write_file".to_string()));
    assert!(loaded.tool_names.contains(&"shell_exec".to_string()));
    let result = loaded.session.run("What is this?").await.unwrap();
    assert!(!result.is_waiting());
    assert!(!result.output.is_empty());
    let sent = messages_json(&result);
    assert!(sent.contains("call_tool"), "{sent}");
}

/// Calls `shell_exec` with `echo loaded-ok`, then answers.
fn echo_model() -> std::sync::Arc<TestModel> {
    std::sync::Arc::new(TestModel::scripted([
        ModelResponse::tool_calls([ToolCallPart::new(
            "call-1",
            "shell_exec",
            json!({"command": "echo loaded-ok"}),
        )]),
        ModelResponse::text("done"),
    ]))
}

const VIRTUAL_SHELL: &str = "version: 1\nname: v\nmodel: {id: test}\nenvironment: {type: virtual}\nshell: {allow_execute: true}\ntoolsets: [{type: shell, tools: [shell_exec]}]\n";

#[tokio::test]
async fn a_shell_toolset_on_a_virtual_environment_runs_shell_exec() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = checked(VIRTUAL_SHELL, dir.path());
    let mut loaded = load(&manifest, &options().with_model(echo_model()))
        .await
        .unwrap();
    assert_eq!(loaded.tool_names, ["shell_exec"]);
    let result = loaded.session.run("run something").await.unwrap();
    let sent = messages_json(&result);
    assert!(sent.contains("loaded-ok"), "{sent}");
    assert!(!sent.contains("execution_disabled"), "{sent}");
}

#[tokio::test]
async fn without_a_shell_section_commands_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // The checker refuses a shell toolset without a shell section, so it never loads...
    let text = VIRTUAL_SHELL.replace("shell: {allow_execute: true}\n", "");
    let found = refused(&text, dir.path());
    assert!(
        found.iter().any(|d| d.rule == Rule::ShellPolicy),
        "{found:?}"
    );
    // ...and no section is the policy that runs nothing.
    assert_eq!(
        starweaver_config::load::shell_policy(None),
        starweaver_core::environment::ShellPolicy::disabled()
    );
    // A section that turns execution off leaves the agent no tool that runs commands.
    let off = "version: 1\nname: v\nmodel: {id: test}\nenvironment: {type: virtual}\nshell: {allow_execute: false}\ntoolsets: [{type: filesystem, tools: [ls]}]\n";
    let mut loaded = load(
        &checked(off, dir.path()),
        &options().with_model(echo_model()),
    )
    .await
    .unwrap();
    let result = loaded.session.run("run something").await.unwrap();
    let sent = messages_json(&result);
    assert!(sent.contains("unknown tool `shell_exec`"), "{sent}");
    assert!(!sent.contains("\"exit_code\""), "{sent}");
}

#[tokio::test]
async fn proxied_and_searched_toolsets_are_not_exposed_directly() {
    let dir = tempfile::tempdir().unwrap();
    let text = "version: 1\nname: p\nmodel: {id: test}\ntoolsets:\n  - {type: tools, name: glossary, tools: [lookup]}\n  - {type: tools, name: media, tools: [render_video]}\n  - {type: proxy, name: workspace, toolsets: [glossary]}\n  - {type: search, name: docs, toolsets: [media]}\n";
    let manifest = checked(text, dir.path());
    let loaded = load(&manifest, &options()).await.unwrap();
    for hidden in ["lookup", "render_video"] {
        assert!(!loaded.tool_names.contains(&hidden.to_string()), "{hidden}");
    }
    assert!(loaded.tool_names.contains(&"call_tool".to_string()));
    let model = std::sync::Arc::new(TestModel::auto());
    let mut run = load(&manifest, &options().with_model(model.clone()))
        .await
        .unwrap();
    run.session.run("look").await.unwrap();
    let offered: Vec<String> = model.requests()[0]
        .parameters
        .tools
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    assert!(offered.contains(&"call_tool".to_string()), "{offered:?}");
    for hidden in ["lookup", "render_video"] {
        assert!(!offered.contains(&hidden.to_string()), "{offered:?}");
    }
}

#[tokio::test]
async fn a_deferred_toolset_makes_the_run_wait() {
    let dir = tempfile::tempdir().unwrap();
    let text = "version: 1\nname: d\nmodel: {id: test}\ntoolsets: [{type: deferred, name: jobs, tools: [render_video]}]\n";
    let manifest = checked(text, dir.path());
    let mut loaded = load(&manifest, &options()).await.unwrap();
    let result = loaded.session.run("render").await.unwrap();
    assert!(result.is_waiting());
    assert_eq!(result.pending[0].tool_name, "render_video");
}

#[tokio::test]
async fn a_deferred_set_hands_first_party_tools_to_the_host_without_a_catalog() {
    let dir = tempfile::tempdir().unwrap();
    let text = "version: 1\nname: d\nmodel: {id: test}\ntoolsets: [{type: deferred, name: proposals, tools: [edit_file]}]\n";
    let manifest = checked(text, dir.path());
    // No resolver knows any tool, and there is no environment: the definition is enough.
    let options = LoadOptions::new().with_tools(|_| None);
    let mut loaded = load(&manifest, &options).await.unwrap();
    assert_eq!(loaded.tool_names, ["edit_file"]);
    assert!(loaded.toolsets[0].tools[0].deferred);
    let definition = loaded
        .agent
        .tool_registry()
        .definition("edit_file")
        .unwrap();
    assert!(definition.parameters["properties"]["path"].is_object());
    let result = loaded.session.run("fix the typo").await.unwrap();
    assert!(result.is_waiting());
    assert_eq!(result.pending[0].tool_name, "edit_file");
    // The file the call names was not touched: nothing ran.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[tokio::test]
async fn the_tools_behind_a_proxy_are_listed_with_their_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let text = "version: 1\nname: p\nmodel: {id: test}\ntoolsets:\n  - {type: tools, name: glossary, tools: [lookup]}\n  - {type: proxy, name: more, toolsets: [glossary]}\n";
    let manifest = checked(text, dir.path());
    let loaded = load(&manifest, &options()).await.unwrap();
    let names: Vec<&str> = loaded.proxied.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["lookup"]);
    assert_eq!(
        loaded.proxied[0].description.as_deref(),
        Some("Test tool lookup.")
    );
    assert!(!loaded.tool_names.contains(&"lookup".to_string()));
}

#[tokio::test]
async fn vars_are_overridden_by_the_options() {
    let dir = tempfile::tempdir().unwrap();
    let text = "version: 1\nname: scout\nmodel: {id: test}\nvars: {audience: developers}\ninstructions: 'For {{ vars.audience }} ({{ name }})'\n";
    let manifest = checked(text, dir.path());
    let loaded = load(&manifest, &options().with_var("audience", "writers"))
        .await
        .unwrap();
    assert_eq!(loaded.instructions.as_deref(), Some("For writers (scout)"));
    let unknown = "version: 1\nname: scout\nmodel: {id: test}\ninstructions: '{{ vars.nope }}'\n";
    let found = refused(unknown, dir.path());
    assert!(
        found.iter().any(|d| d.rule == Rule::UndefinedVariable),
        "{found:?}"
    );
    // A run's value the template cannot use is refused when it renders.
    let counted = "version: 1\nname: scout\nmodel: {id: test}\nvars: {n: 3}\ninstructions: '{{ vars.n + 1 }}'\n";
    let error = load(&checked(counted, dir.path()), &options().with_var("n", "x"))
        .await
        .unwrap_err();
    assert!(matches!(error, LoadError::Template { .. }), "{error}");
}

#[test]
fn nothing_the_checker_rejects_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let found = refused("version: 1\nnme: scout\nmodel: {id: test}\n", dir.path());
    assert!(found.iter().any(|d| d.rule == Rule::UnknownField));
    let typed = refused("version: 1\nname: 42\nmodel: {id: test}\n", dir.path());
    assert!(
        typed.iter().any(|d| d.rule == Rule::InvalidValue),
        "{typed:?}"
    );
    let broken = refused("version: [\n", dir.path());
    assert!(broken.iter().any(|d| d.rule == Rule::Syntax), "{broken:?}");
}

#[tokio::test]
async fn approval_gates_prefixes_and_read_only_choices_apply() {
    let dir = tempfile::tempdir().unwrap();
    let text = "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: virtual}\ntoolsets:\n  - {type: tools, name: g, tools: [lookup], prefix: kb, approval_required: true}\n  - {type: filesystem, read_only: true}\n";
    let mut loaded = load(&checked(text, dir.path()), &options()).await.unwrap();
    assert_eq!(
        loaded.tool_names,
        ["glob", "grep", "kb_lookup", "ls", "read_file"]
    );
    let result = loaded.session.run("look").await.unwrap();
    assert!(result.is_waiting());
    assert!(result.pending.iter().any(|p| p.tool_name == "kb_lookup"));
}

#[tokio::test]
async fn search_preloads_are_offered_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let text = "version: 1\nname: a\nmodel: {id: test}\ntoolsets:\n  - {type: tools, name: media, tools: [render_video]}\n  - {type: search, name: docs, toolsets: [media], preload: [render_video]}\n";
    let loaded = load(&checked(text, dir.path()), &options()).await.unwrap();
    assert!(loaded.tool_names.contains(&"render_video".to_string()));
    let bad = text.replace("preload: [render_video]", "preload: [nope]");
    let found = refused(&bad, dir.path());
    assert!(
        found.iter().any(|d| d.rule == Rule::UnknownTool),
        "{found:?}"
    );
}

#[tokio::test]
async fn a_missing_local_root_names_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: local, root: missing}\n";
    // The checker looks for the folder first...
    let found = refused(text, dir.path());
    assert!(found[0].message.contains("`missing`"), "{found:?}");
    // ...and a folder gone between the check and the load is named by the loader.
    std::fs::create_dir(dir.path().join("missing")).unwrap();
    let passed = checked(text, dir.path());
    std::fs::remove_dir(dir.path().join("missing")).unwrap();
    let error = load(&passed, &options()).await.unwrap_err();
    assert!(matches!(error, LoadError::Environment { .. }), "{error}");
    assert!(error.to_string().contains("missing"), "{error}");
}

#[test]
fn warnings_come_back_with_an_accepted_manifest() {
    let (warnings, checked) = check_manifest(
        b"version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: virtual}\nshell: {allow_execute: true}\n",
        &CheckContext::new(),
    );
    assert_eq!(checked.unwrap().manifest().name, "a");
    assert!(!warnings.is_empty());
    assert!(warnings
        .iter()
        .all(|d| d.severity == starweaver_config::diagnostics::Severity::Warning));
}

#[tokio::test]
async fn the_pausing_toolsets_of_the_example_load_and_the_run_waits() {
    let dir = tempfile::tempdir().unwrap();
    let text = FULL.replace(
        "  - type: proxy\n",
        "  - type: user_input\n  - type: search\n    name: docs\n    toolsets: [glossary]\n    preload: []\n  - type: deferred\n    name: jobs\n    tools: [render_video]\n  - type: proxy\n",
    );
    let mut loaded = load(&checked(&text, dir.path()), &options()).await.unwrap();
    assert!(loaded.tool_names.contains(&"ask_user_question".to_string()));
    assert!(loaded.tool_names.contains(&"render_video".to_string()));
    let result = loaded.session.run("help").await.unwrap();
    assert!(result.is_waiting());
}

// Skills were scanned at load but never reached the model: only a startup event listed them.
#[tokio::test]
async fn skills_found_in_the_scopes_reach_the_model_instructions() {
    use starweaver_core::model::FunctionModel;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("agents/skills/review")).unwrap();
    std::fs::write(
        dir.path().join("agents/skills/review/SKILL.md"),
        "---\nname: review\ndescription: Review a change.\n---\nRead the diff.\n",
    )
    .unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let model = std::sync::Arc::new(FunctionModel::new(move |_messages, parameters| {
        record
            .lock()
            .unwrap()
            .extend(parameters.instructions.clone());
        Ok(ModelResponse::text("done"))
    }));
    // The manifest sits in `agents/`; its environment is the repository above it.
    let text = "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: local, root: ..}\nskills: {scopes: [{path: .}]}\ntoolsets: [{type: filesystem, read_only: true}]\n";
    let options = LoadOptions::new().with_model(model);
    let mut loaded = load(&checked(text, &dir.path().join("agents")), &options)
        .await
        .unwrap();
    loaded.session.run("hi").await.unwrap();
    let instructions = seen.lock().unwrap().join("\n");
    // The path is the one the agent's file tools resolve inside the environment.
    assert!(
        instructions.contains("- review: Review a change. (read `agents/skills/review/SKILL.md`)"),
        "{instructions}"
    );
}

// The manifest's token budget was refused as unsupported; now the run enforces it.
#[tokio::test]
async fn the_token_budget_of_the_manifest_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let text = "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: virtual}\ntoolsets: [{type: filesystem, tools: [ls]}]\nruntime: {max_tokens: 1}\n";
    let mut loaded = load(&checked(text, dir.path()), &options()).await.unwrap();
    let error = loaded.session.run("list the files").await.unwrap_err();
    assert!(
        matches!(
            error,
            starweaver_core::agent::AgentError::TokenBudgetExceeded { max_tokens: 1, .. }
        ),
        "{error}"
    );
}

#[tokio::test]
async fn model_settings_reach_every_request_of_the_test_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = std::sync::Arc::new(TestModel::auto());
    let text = "version: 1\nname: a\nmodel: {id: test, settings: {temperature: 0.2, max_tokens: 50, stop: END, seed: 7}}\n";
    let options = LoadOptions::new().with_model(model.clone());
    let mut loaded = load(&checked(text, dir.path()), &options).await.unwrap();
    loaded.session.run("hi").await.unwrap();
    let sent = &model.requests()[0].parameters.settings;
    assert_eq!(sent.temperature, Some(0.2));
    assert_eq!(sent.max_tokens, Some(50));
    assert_eq!(sent.stop, ["END"]);
    assert_eq!(sent.seed, Some(7));
}

/// Runs `echo sandboxed` through `shell_exec` (an allowlisted program, not a shell script).
fn echo_program_model() -> std::sync::Arc<TestModel> {
    std::sync::Arc::new(TestModel::scripted([
        ModelResponse::tool_calls([ToolCallPart::new(
            "call-1",
            "shell_exec",
            json!({"program": "echo", "args": ["sandboxed"]}),
        )]),
        ModelResponse::text("done"),
    ]))
}

#[test]
fn the_sandbox_policy_is_the_manifests_or_the_safe_default() {
    use starweaver_config::load::sandbox_policy;
    use starweaver_core::environment::{SandboxMode, SandboxPolicy, SandboxReads};
    assert_eq!(sandbox_policy(None), SandboxPolicy::default());
    let dir = tempfile::tempdir().unwrap();
    let bare = checked("version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: local}\nshell: {allow_execute: true, allowed_programs: [git]}\n", dir.path());
    let policy = sandbox_policy(bare.manifest().shell.as_ref());
    assert_eq!(policy, SandboxPolicy::default());
    assert_eq!(policy.mode(), SandboxMode::WorkspaceWrite);
    assert!(!policy.network() && policy.required());
    let set = checked("version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: local}\nshell:\n  allow_execute: true\n  allowed_programs: [git]\n  sandbox: {mode: read-only, writable: [target], network: true, read: workspace, required: false}\n", dir.path());
    let policy = sandbox_policy(set.manifest().shell.as_ref());
    assert_eq!(policy.mode(), SandboxMode::ReadOnly);
    assert_eq!(policy.writable(), ["target"]);
    assert!(policy.network());
    assert_eq!(policy.reads(), SandboxReads::Workspace);
    assert!(!policy.required());
}

#[tokio::test]
async fn local_commands_run_under_the_manifests_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    // Not required, so the command runs on any kernel and its result says what it ran under.
    let text = "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: local}\nshell:\n  allow_execute: true\n  allowed_programs: [echo]\n  sandbox: {mode: read-only, read: workspace, required: false}\ntoolsets: [{type: shell, tools: [shell_exec]}]\n";
    let manifest = checked(text, dir.path());
    let mut loaded = load(&manifest, &options().with_model(echo_program_model()))
        .await
        .unwrap();
    let result = loaded.session.run("run something").await.unwrap();
    let sent = messages_json(&result);
    assert!(sent.contains("sandboxed"), "{sent}");
    assert!(sent.contains("read-only"), "{sent}");
}

#[test]
fn a_sandbox_the_runtime_cannot_honour_is_refused_before_loading() {
    let dir = tempfile::tempdir().unwrap();
    let head = "version: 1\nname: a\nmodel: {id: test}\n";
    // The checker refuses both, so neither reaches the loader.
    for (body, rule, at) in [
        (
            "environment: {type: virtual}\nshell: {allow_execute: true, allowed_programs: [echo], sandbox: {mode: read-only}}\n",
            Rule::InvalidValue,
            "sandbox",
        ),
        (
            "environment: {type: local}\nshell: {allow_execute: true, allowed_programs: [echo], sandbox: {writable: [target, ../out]}}\n",
            Rule::PathEscape,
            "../out",
        ),
    ] {
        let text = format!("{head}{body}");
        let found = refused(&text, dir.path());
        assert!(
            found
                .iter()
                .any(|d| d.rule == rule && d.full_text().contains(at)),
            "{found:?}"
        );
    }
}
