//! The manifests in `agents/`: `starweaver check` (which checks that folder by default) finds
//! nothing wrong with them, each names the committed schema and plays a script beside it,
//! together they use every first-party feature, each loads and runs to its answer on the
//! embedded `test` model given in place of its script (its approvals, questions and deferred
//! calls answered) without changing the checkout, and a host plays a script in code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use std::sync::Arc;

use crate::common::interop::{everything_on_path, MCP_AGENT};
use serde_json::json;
use starweaver::agent::{
    AgentHitlRequestKind, AgentHitlResults, AgentHitlUserInteraction, AgentRunResult,
};
use starweaver::bundles::CLARIFYING_QUESTIONS_REQUEST_KIND;
use starweaver::config::load::{load, LoadOptions, LoadedAgent};
use starweaver::config::manifest::{ApprovalRequired, EnvironmentKind, Manifest, ToolsetSpec};
use starweaver::config::script::{ScriptCall, ScriptModel, ScriptTurn};
use starweaver::config::validate::{check_manifest, CheckContext, Checked};
use starweaver::TestModel;

/// The header every manifest starts with, so editors validate it against the committed schema.
const SCHEMA_HEADER: &str = "# yaml-language-server: $schema=../schema/agent.schema.json";

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn agents_dir() -> PathBuf {
    repository().join("agents")
}

/// Every `*.yaml`/`*.yml` directly in `agents/` but the scripts (`*.script.yaml`), sorted.
fn manifests() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(agents_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "yaml" || extension == "yml")
                && !path.to_string_lossy().contains(".script.")
        })
        .collect();
    found.sort();
    found
}

/// Every file under `folder` with its contents, to show a run changed nothing.
fn snapshot(folder: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Whether a run of the manifest could change files: a filesystem toolset that may write, or a
/// shell that may execute.
fn may_write(manifest: &Manifest) -> bool {
    let executes = manifest
        .shell
        .as_ref()
        .is_some_and(|shell| shell.allow_execute);
    let writes = manifest
        .toolsets
        .iter()
        .any(|spec| matches!(spec, ToolsetSpec::Filesystem(files) if !files.read_only));
    executes || writes
}

/// The kinds of waiting a run went through before its answer.
#[derive(Debug, Default)]
struct Waited {
    approvals: Vec<String>,
    questions: Vec<String>,
    deferred: Vec<String>,
}

/// Runs the agent on the test model, answering whatever it waits for the way a person and a
/// worker would: approvals approved, clarifying questions answered, deferred calls given a
/// result. Returns the final result and what was waited for.
async fn run_to_answer(loaded: &mut LoadedAgent, shown: &str) -> (AgentRunResult, Waited) {
    let mut waited = Waited::default();
    let mut result = loaded
        .session
        .run("What can you tell me about this project?")
        .await
        .unwrap_or_else(|error| panic!("{shown}: {error}"));
    for _ in 0..8 {
        if !result.is_waiting() {
            return (result, waited);
        }
        let mut answers = AgentHitlResults::new();
        for pending in &result.pending {
            let id = pending.tool_call_id.clone();
            let name = pending.tool_name.clone();
            answers = match pending.kind {
                AgentHitlRequestKind::Deferred => {
                    waited.deferred.push(name);
                    answers.with_deferred_result(id, json!({"applied": false, "by": "a test"}))
                }
                AgentHitlRequestKind::Approval
                    if pending.request_kind() == CLARIFYING_QUESTIONS_REQUEST_KIND =>
                {
                    waited.questions.push(name);
                    answers.with_interaction(
                        AgentHitlUserInteraction::approved(id)
                            .with_user_input(json!("Yes, that is done.")),
                    )
                }
                AgentHitlRequestKind::Approval => {
                    waited.approvals.push(name);
                    answers.with_interaction(AgentHitlUserInteraction::approved(id))
                }
            };
        }
        result = loaded
            .session
            .resume_after_hitl(answers)
            .await
            .unwrap_or_else(|error| panic!("{shown}: {error}"));
    }
    panic!(
        "{shown} still waits after 8 rounds of answers: {:?}",
        result.pending
    );
}

/// The manifest file at `path`, checked in its folder (the folder it loads from).
fn checked_at(path: &Path) -> Checked {
    let bytes = std::fs::read(path).unwrap();
    let (found, checked) = check_manifest(&bytes, &CheckContext::new().with_file(path));
    checked.unwrap_or_else(|| panic!("{}: {found:#?}", path.display()))
}

fn load_agent(name: &str) -> (Checked, PathBuf) {
    let path = agents_dir().join(name);
    (checked_at(&path), path)
}

/// Loading options with the embedded `test` model in place of the manifest's script, which
/// calls every tool it is offered.
fn on_the_test_model() -> LoadOptions {
    LoadOptions::new().with_model(Arc::new(TestModel::auto()))
}

#[test]
fn together_the_manifests_use_every_first_party_feature() {
    let all: Vec<Manifest> = manifests()
        .iter()
        .map(|path| checked_at(path).manifest().clone())
        .collect();
    assert!(all.len() >= 5, "agents/ holds at least five manifests");
    let kinds: BTreeSet<&str> = all
        .iter()
        .flat_map(|manifest| &manifest.toolsets)
        .map(|spec| match spec {
            ToolsetSpec::Tools(_) => "tools",
            ToolsetSpec::Filesystem(_) => "filesystem",
            ToolsetSpec::Shell(_) => "shell",
            ToolsetSpec::UserInput(_) => "user_input",
            ToolsetSpec::Proxy(_) => "proxy",
            ToolsetSpec::Search(_) => "search",
            ToolsetSpec::Deferred(_) => "deferred",
            ToolsetSpec::Mcp(_) => "mcp",
            ToolsetSpec::Agents(_) => "agents",
        })
        .collect();
    let expected: BTreeSet<&str> = [
        "filesystem",
        "shell",
        "user_input",
        "proxy",
        "search",
        "deferred",
        "mcp",
        "agents",
    ]
    .into();
    // First-party tools only: no `tools` entry, so no catalog is needed.
    assert_eq!(kinds, expected);
    for kind in [EnvironmentKind::Local, EnvironmentKind::Virtual] {
        assert!(
            all.iter()
                .any(|manifest| manifest.environment.as_ref().map(|spec| spec.kind) == Some(kind)),
            "no manifest has a {kind:?} environment"
        );
    }
    assert!(all.iter().any(|manifest| manifest
        .shell
        .as_ref()
        .is_some_and(|shell| shell.allow_execute && !shell.allowed_programs.is_empty())));
    assert!(all.iter().any(|manifest| manifest.skills.is_some()));
    assert!(all.iter().any(|manifest| !manifest.vars.is_empty()
        && manifest
            .instructions
            .as_deref()
            .is_some_and(|text| text.contains("{{ vars."))));
    let approvals = all.iter().flat_map(|manifest| &manifest.toolsets).any(|spec| {
        matches!(spec, ToolsetSpec::Filesystem(files) if files.approval_required != ApprovalRequired::default())
    });
    assert!(approvals, "some toolset needs approval");
    // Every skill folder holds a SKILL.md with a name and a description.
    for entry in std::fs::read_dir(agents_dir().join("skills")).unwrap() {
        let skill = entry.unwrap().path().join("SKILL.md");
        let text = std::fs::read_to_string(&skill).unwrap();
        assert!(text.starts_with("---\nname: "), "{}", skill.display());
        assert!(text.contains("\ndescription: "), "{}", skill.display());
    }
}

#[tokio::test]
async fn the_release_checklist_asks_the_maintainer_and_waits_for_approval_to_write() {
    let (manifest, _) = load_agent("release-checklist.yaml");
    let mut loaded = load(&manifest, &on_the_test_model()).await.unwrap();
    let (result, waited) = run_to_answer(&mut loaded, "release-checklist").await;
    assert_eq!(waited.questions, ["ask_user_question"]);
    let mut approvals = waited.approvals.clone();
    approvals.sort();
    assert_eq!(approvals, ["edit_file", "write_file"]);
    assert!(waited.deferred.is_empty());
    assert!(!result.output.is_empty());
    // The drafts live in memory: the environment has no folder.
    assert!(loaded.environment_root.is_none());
}

#[tokio::test]
async fn the_triage_agent_hands_its_proposed_edit_to_a_person_and_changes_nothing() {
    let before = snapshot(&agents_dir());
    let (manifest, _) = load_agent("triage.yaml");
    let mut loaded = load(&manifest, &on_the_test_model()).await.unwrap();
    // `grep` is preloaded; the other file tools wait for `tool_search`.
    assert!(loaded.tool_names.contains(&"grep".to_string()));
    assert!(loaded.tool_names.contains(&"propose_edit_file".to_string()));
    assert!(!loaded.tool_names.contains(&"read_file".to_string()));
    let first = loaded
        .session
        .run("Triage: check fails on an empty file")
        .await
        .unwrap();
    // The run ends waiting on the deferred call, as designed, until a worker answers it.
    assert!(first.is_waiting());
    assert!(first
        .pending
        .iter()
        .all(|pending| pending.kind == AgentHitlRequestKind::Deferred
            && pending.tool_name == "propose_edit_file"));
    let mut answers = AgentHitlResults::new();
    for pending in &first.pending {
        answers =
            answers.with_deferred_result(pending.tool_call_id.clone(), json!({"applied": false}));
    }
    let done = loaded.session.resume_after_hitl(answers).await.unwrap();
    assert!(!done.is_waiting());
    // Its `output:` schema: the answer is an object in that shape, through `final_answer`.
    let answer = done.structured_output.expect("a structured answer");
    let schema = manifest
        .output_schema()
        .expect("triage declares an output schema");
    assert!(
        jsonschema::validator_for(schema).unwrap().is_valid(&answer),
        "{answer}"
    );
    assert!(
        before == snapshot(&agents_dir()),
        "the triage run changed agents/"
    );
    let events = serde_json::to_string(loaded.session.context().events.events()).unwrap();
    assert!(events.contains("triage-issue"), "{events}");
}

#[tokio::test]
async fn the_sandbox_shell_offers_only_its_proxy_and_runs_in_memory() {
    let (manifest, _) = load_agent("sandbox-shell.yaml");
    let loaded = load(&manifest, &LoadOptions::new()).await.unwrap();
    assert_eq!(loaded.tool_names, ["call_tool", "search_tools"]);
    let behind: Vec<&str> = loaded.proxied.iter().map(|d| d.name.as_str()).collect();
    for tool in [
        "shell_exec",
        "shell_wait",
        "shell_kill",
        "write_file",
        "grep",
    ] {
        assert!(
            behind.contains(&tool),
            "{tool} not behind the proxy: {behind:?}"
        );
    }
    assert!(loaded.environment_root.is_none());
}

#[test]
fn check_finds_nothing_in_the_agents_folder() {
    assert!(
        manifests().len() >= 2,
        "agents/ holds at least two manifests"
    );
    let human = crate::common::starweaver_binary()
        .current_dir(repository())
        .args(["check", "agents", "--deny-warnings"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(human.stdout).unwrap();
    assert_eq!(human.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("0 errors, 0 warnings"), "{stdout}");
    assert!(human.stderr.is_empty());
    // With no path, `check` checks `agents/`; as JSON, no problem at all is an empty array.
    let json = crate::common::starweaver_binary()
        .current_dir(repository())
        .args(["check", "--deny-warnings", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(0));
    let problems: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(problems, serde_json::json!([]));
}

#[test]
fn every_manifest_names_the_committed_schema() {
    for path in manifests() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.lines().next(),
            Some(SCHEMA_HEADER),
            "{} must start with the schema header",
            path.display()
        );
        let schema = agents_dir().join("../schema/agent.schema.json");
        assert!(schema.is_file(), "the header names {}", schema.display());
    }
}

#[tokio::test]
async fn every_manifest_runs_to_an_answer_on_the_test_model_and_changes_nothing() {
    let before = snapshot(&agents_dir());
    for path in manifests() {
        let shown = path.display().to_string();
        let mcp = path.file_name().is_some_and(|name| name == MCP_AGENT);
        if mcp && !everything_on_path() {
            continue;
        }
        let checked = checked_at(&path);
        let manifest = checked.manifest();
        // Each plays a script beside it (`run_cli::agents` plays them); here the `test` model
        // takes its place and calls every tool.
        assert_eq!(manifest.model.id, "script", "{shown}");
        let script = manifest.model.script.as_deref().unwrap_or_default();
        assert!(agents_dir().join(script).is_file(), "{shown}: {script}");
        // A manifest that could write runs on a copy of the folder, with the same layout
        // (`root: ..` then names the copy's parent, a fresh temporary folder).
        let copy = tempfile::tempdir().unwrap();
        let checked = if may_write(manifest) {
            let agents = copy.path().join("agents");
            copy_tree(&agents_dir(), &agents);
            checked_at(&agents.join(path.file_name().unwrap()))
        } else {
            checked
        };
        let mut loaded = load(&checked, &on_the_test_model())
            .await
            .unwrap_or_else(|error| panic!("{shown}: {error}"));
        // A server's tools are known once it starts, when the run enters its toolset.
        assert!(mcp || !loaded.tool_names.is_empty(), "{shown} offers tools");
        assert!(
            loaded
                .instructions
                .as_deref()
                .is_some_and(|text| !text.contains("{{")),
            "{shown}: instructions render"
        );
        let (result, _) = run_to_answer(&mut loaded, &shown).await;
        assert!(!result.output.is_empty(), "{shown} gave no answer");
        let sent = serde_json::to_string(&result.messages).unwrap();
        let served = ["ev_echo".to_string(), "ev_get-sum".to_string()];
        let offered = if mcp {
            &served[..]
        } else {
            &loaded.tool_names[..]
        };
        for tool in offered {
            assert!(
                sent.contains(&format!("\"{tool}\"")),
                "{shown} never called {tool}"
            );
        }
    }
    assert!(before == snapshot(&agents_dir()), "a run changed agents/");
}

#[tokio::test]
async fn the_docs_assistant_finds_its_skills_and_reads_files_through_search() {
    let (manifest, _) = load_agent("docs-assistant.yaml");
    let mut loaded = load(&manifest, &LoadOptions::new()).await.unwrap();
    // The filesystem toolset sits behind the search; only `read_file` is preloaded.
    assert!(loaded.tool_names.contains(&"tool_search".to_string()));
    assert!(loaded.tool_names.contains(&"read_file".to_string()));
    assert!(!loaded.tool_names.contains(&"grep".to_string()));
    loaded
        .session
        .run("How do I write a manifest?")
        .await
        .unwrap();
    // The skill scan is recorded when the run starts: both skills were found, none broken.
    let events = serde_json::to_string(loaded.session.context().events.events()).unwrap();
    for skill in ["write-manifest", "review-manifest"] {
        assert!(events.contains(skill), "{skill} not found: {events}");
    }
}

#[tokio::test]
async fn a_host_plays_an_agents_script_in_code_and_its_own_turns() {
    let (manifest, _) = load_agent("repo-helper.yaml");
    let script = agents_dir().join(manifest.manifest().model.script.as_deref().unwrap());
    // The manifest's script, read by the host itself: the same run as `starweaver run`.
    let model = ScriptModel::from_file(&script).unwrap();
    let mut loaded = load(&manifest, &LoadOptions::new().with_model(Arc::new(model)))
        .await
        .unwrap();
    let result = loaded
        .session
        .run("Where is the manifest loader?")
        .await
        .unwrap();
    assert!(
        result.output.contains("starweaver-config/src/load/"),
        "{}",
        result.output
    );
    // Turns built in code, on the same agent: a call the model could not make (`read_file`
    // without a path) gets the runtime's retry request, which the next turn quotes.
    let model = ScriptModel::new([
        ScriptTurn::calls([ScriptCall::new("read_file", json!({}))]),
        ScriptTurn::calls([ScriptCall::new("ls", json!({"path": "agents"}))]),
        ScriptTurn::answer(
            "{{ calls[0].kind }} then {{ calls[1].result.entries | length }} entries in agents/",
        ),
    ]);
    let mut loaded = load(&manifest, &LoadOptions::new().with_model(Arc::new(model)))
        .await
        .unwrap();
    let result = loaded.session.run("look around").await.unwrap();
    assert!(
        result.output.starts_with("retry then ") && result.output.ends_with("entries in agents/"),
        "{}",
        result.output
    );
}

#[test]
fn check_explains_a_scripted_agent_with_its_script_as_the_model() {
    let output = crate::common::starweaver_binary()
        .current_dir(repository())
        .args(["check", "--explain", "agents/repo-helper.yaml"])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(
        text.contains("Model     script (plays the turns in repo-helper.script.yaml)\n"),
        "{text}"
    );
    let json = crate::common::starweaver_binary()
        .current_dir(repository())
        .args([
            "check",
            "--explain",
            "--format",
            "json",
            "agents/repo-helper.yaml",
        ])
        .output()
        .unwrap();
    let facts: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        facts["agents"][0]["model"],
        json!({"id": "script", "script": "repo-helper.script.yaml", "base_url": null, "api_key_env": null, "settings": {}})
    );
}
