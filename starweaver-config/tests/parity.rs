//! The checker and the loader agree: the loader takes only what the checker passed, so every
//! manifest the checker refuses (with its rule and position) has no checked form to load, and
//! whatever the checker accepts loads and runs on the `test` model to its answer, or to a
//! waiting state that resumes to one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use starweaver_config::diagnostics::{Diagnostic, Rule, Severity};
use starweaver_config::load::{load, LoadOptions, LoadedAgent};
use starweaver_config::validate::{check, check_manifest, CheckContext};
use starweaver_core::agent::{AgentHitlRequestKind, AgentHitlResults, AgentHitlUserInteraction};
use starweaver_core::bundles::CLARIFYING_QUESTIONS_REQUEST_KIND;
use starweaver_core::tools::{typed_tool, DynTool, ToolContext, ToolResult};

#[derive(Deserialize, JsonSchema)]
struct Term {
    /// The word to look up.
    #[allow(dead_code)]
    term: String,
}

/// The code tools the host registers.
const CATALOG: [&str; 2] = ["lookup", "render_video"];

fn code_tool(name: &str) -> DynTool {
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

fn options() -> LoadOptions {
    LoadOptions::new().with_tools(|name| CATALOG.contains(&name).then(|| code_tool(name)))
}

fn context(dir: &Path) -> CheckContext {
    CheckContext::new().with_catalog(CATALOG).with_base_dir(dir)
}

/// A project folder: a file to read, a sub-folder, and one skill.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "remember the milk\n").unwrap();
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    std::fs::create_dir_all(dir.path().join("skills/review")).unwrap();
    std::fs::write(
        dir.path().join("skills/review/SKILL.md"),
        "---\nname: review\ndescription: Review a change.\n---\nRead the diff first.\n",
    )
    .unwrap();
    dir
}

/// The errors the checker reports, with the file's folder and the catalog known.
fn errors(text: &str, dir: &Path) -> Vec<Diagnostic> {
    let found: Vec<Diagnostic> = check(text.as_bytes(), &context(dir))
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    // The checked form the loader takes exists exactly when the checker finds no error, and
    // the diagnostics that come with it are the checker's.
    let (with_checked, checked) = check_manifest(text.as_bytes(), &context(dir));
    assert_eq!(
        checked.is_some(),
        found.is_empty(),
        "the checked form and the checker disagree on:\n{text}"
    );
    assert_eq!(
        with_checked
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count(),
        found.len(),
        "{text}"
    );
    found
}

/// Checks and loads, the only way a manifest reaches the loader. `Err` says which step
/// refused it.
async fn check_and_load(text: &str, dir: &Path) -> Result<LoadedAgent, String> {
    let (found, checked) = check_manifest(text.as_bytes(), &context(dir));
    let Some(checked) = checked else {
        return Err(format!("check: {found:?}"));
    };
    load(&checked, &options())
        .await
        .map_err(|error| format!("load: {error}"))
}

/// Runs the agent on the test model; answers approvals (denying clarifying questions, which
/// need a person) and deferred calls until it finishes.
async fn run_to_answer(loaded: &mut LoadedAgent) -> Result<String, String> {
    let mut result = loaded
        .session
        .run("do the task")
        .await
        .map_err(|e| e.to_string())?;
    for _ in 0..8 {
        if !result.is_waiting() {
            return Ok(result.output);
        }
        let mut answers = AgentHitlResults::new();
        for pending in &result.pending {
            answers = match pending.kind {
                AgentHitlRequestKind::Deferred => answers
                    .with_deferred_result(pending.tool_call_id.clone(), json!({"done": true})),
                AgentHitlRequestKind::Approval
                    if pending.request_kind() == CLARIFYING_QUESTIONS_REQUEST_KIND =>
                {
                    answers.with_interaction(
                        AgentHitlUserInteraction::denied(pending.tool_call_id.clone())
                            .with_reason("nobody is at the terminal"),
                    )
                }
                AgentHitlRequestKind::Approval => answers.with_interaction(
                    AgentHitlUserInteraction::approved(pending.tool_call_id.clone()),
                ),
            };
        }
        result = loaded
            .session
            .resume_after_hitl(answers)
            .await
            .map_err(|e| e.to_string())?;
    }
    Err("still waiting after 8 rounds of answers".to_string())
}

const HEAD: &str = "version: 1\nname: a\nmodel: {id: test}\n";

/// A project with model scripts beside the manifest: one that plays, one that does not parse.
fn project_with_scripts() -> tempfile::TempDir {
    let dir = project();
    std::fs::write(
        dir.path().join("ok.script.yaml"),
        "- calls: [{tool: read_file, args: {path: notes.txt}}]\n- answer: 'notes: {{ calls[0].result.content | trim }}'\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("bad.script.yaml"), "- answr: hi\n").unwrap();
    dir
}

#[tokio::test]
async fn whatever_the_checker_refuses_has_no_checked_form() {
    let dir = project_with_scripts();
    let cases: &[(&str, Rule)] = &[
        ("model: {id: script}", Rule::MissingField),
        ("model: {id: test, script: ok.script.yaml}", Rule::InvalidValue),
        ("model: {id: script, script: ../ok.script.yaml}", Rule::PathEscape),
        ("model: {id: script, script: missing.script.yaml}", Rule::InvalidValue),
        ("model: {id: script, script: sub}", Rule::InvalidValue),
        ("model: {id: script, script: bad.script.yaml}", Rule::UnknownField),
        ("model: {id: script, script: ok.script.yaml, timeout_ms: 5}", Rule::InvalidValue),
        ("model: {id: 'gemini:pro'}", Rule::UnknownModel),
        ("shell: {allow_execute: true, allowed_programs: [git]}", Rule::MissingField),
        ("toolsets: [{type: user_input}, {type: filesystem}]", Rule::MissingField),
        ("toolsets: [{type: shell}]\nshell: {allow_execute: true, allowed_programs: [git]}", Rule::MissingField),
        ("skills: {scopes: [{path: .}]}", Rule::MissingField),
        ("environment: {type: virtual, root: x}", Rule::InvalidValue),
        ("environment: {type: local, root: missing}", Rule::InvalidValue),
        ("environment: {type: virtual}\nshell: {allow_execute: true, allowed_programs: [echo], sandbox: {mode: read-only}}", Rule::InvalidValue),
        ("environment: {type: local}\nshell: {allow_execute: true, allowed_programs: [echo], sandbox: {writable: [../out]}}", Rule::PathEscape),
        ("environment: {type: local}\nshell: {allow_execute: true, allowed_programs: [echo], sandbox: {writable: [/tmp]}}", Rule::PathEscape),
        ("environment: {type: local}\nshell: {sandbox: {mode: sealed}}", Rule::InvalidValue),
        ("environment: {type: local}\nshell: {sandbox: {network: yes}}", Rule::InvalidValue),
        ("environment: {type: local}\nshell: {sandbox: {writeable: [sub]}}", Rule::UnknownField),
        ("environment: {type: virtual}\nskills: {scopes: [{path: .}]}", Rule::SkillScope),
        ("environment: {type: local, root: sub}\nskills: {scopes: [{path: .}]}", Rule::SkillScope),
        ("environment: {type: local}\nskills: {scopes: [{path: nowhere}]}", Rule::SkillScope),
        ("toolsets: [{type: tools, name: g, tools: [lookup]}, {type: proxy, name: p, toolsets: [g], timeout_ms: 5}]", Rule::UnknownField),
        ("toolsets: [{type: tools, name: g, tools: [lookup]}, {type: search, name: s, toolsets: [g], instructions: hi}]", Rule::UnknownField),
        ("toolsets: [{type: tools, name: g, tools: [lookup]}, {type: proxy, name: p, toolsets: [g]}, {type: search, name: s, toolsets: [p]}]", Rule::UnknownToolset),
        ("toolsets: [{type: tools, name: g, tools: [lookup]}, {type: tools, name: g, tools: [lookup]}]", Rule::DuplicateName),
        ("environment: {type: virtual}\ntoolsets: [{type: shell, tools: [shell_run]}]\nshell: {allow_execute: true, allowed_programs: [git]}", Rule::UnknownTool),
        ("toolsets: [{type: tools, name: g, tools: [lookup], approval_required: [lokup]}]", Rule::UnknownTool),
        ("environment: {type: virtual}\ntoolsets: [{type: filesystem, read_only: true, tools: [write_file]}]", Rule::InvalidValue),
        ("toolsets: [{type: tools, name: g, tools: [nope]}]", Rule::UnknownTool),
        ("toolsets: [{type: proxy, name: p, toolsets: [ghost]}]", Rule::UnknownToolset),
        ("toolsets: [{type: tools, name: m, tools: [render_video]}, {type: search, name: s, toolsets: [m], preload: [nope]}]", Rule::UnknownTool),
        ("model: {id: test, base_url: 'http://localhost:1'}", Rule::InvalidValue),
        ("model: {id: test, settings: {top_p: high}}", Rule::InvalidValue),
        ("vars: {n: 3}\ninstructions: '{{ vars.n + \"x\" }}'", Rule::Template),
        ("instructions: '{{ vars.who }}'", Rule::UndefinedVariable),
        ("runtime: {max_steps: 5000000000}", Rule::InvalidValue),
        // Found by the fuzzer: free-form values the agent receives as JSON.
        ("vars: {x: .inf}", Rule::InvalidValue),
        ("vars: {audience: {1: x}}", Rule::InvalidValue),
        ("vars:\n  : x", Rule::InvalidValue),
        ("model: {id: test, settings: {temperature: .nan}}", Rule::InvalidValue),
        ("model: {id: test, settings: {[a]: x}}", Rule::InvalidValue),
        ("model: {id: test, stream: false}", Rule::InvalidValue),
        ("model: {id: 'openai:'}", Rule::UnknownModel),
        // With the providers built: a setting the provider does not have, a URL that is not one.
        ("model: {id: 'anthropic:claude-sonnet-4-5', settings: {seed: 1}}", if cfg!(feature = "anthropic") { Rule::UnknownField } else { Rule::UnknownModel }),
        ("model: {id: 'openai:gpt-4o', settings: {top_k: 1}}", if cfg!(feature = "openai") { Rule::UnknownField } else { Rule::UnknownModel }),
        ("model: {id: 'openai:gpt-4o', base_url: 'ftp://x/v1'}", if cfg!(feature = "openai") { Rule::InvalidValue } else { Rule::UnknownModel }),
    ];
    for (body, rule) in cases {
        let text = if body.starts_with("model:") {
            format!("version: 1\nname: a\n{body}\n")
        } else {
            format!("{HEAD}{body}\n")
        };
        let found = errors(&text, dir.path());
        assert!(
            found.iter().any(|d| d.rule == *rule),
            "the checker missed `{rule}` in:\n{text}\nfound: {found:?}"
        );
        assert!(
            check_manifest(text.as_bytes(), &context(dir.path()))
                .1
                .is_none(),
            "a manifest the checker refuses has a checked form:\n{text}"
        );
    }
}

/// A small deterministic generator (xorshift), so the cases are the same on every machine.
struct Dice(u64);

impl Dice {
    fn pick(&mut self, sides: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % sides
    }

    fn chance(&mut self, in_four: u64) -> bool {
        self.pick(4) < in_four
    }
}

/// One manifest made of random choices among the format's features, valid or not.
fn generated(dice: &mut Dice, index: usize) -> String {
    let mut text = format!("version: 1\nname: generated-{index}\nmodel:\n  id: test\n");
    if dice.chance(1) {
        text.push_str("  settings: {temperature: 0.1, seed: 3}\n");
    }
    let environment = dice.pick(5);
    match environment {
        0 => {}
        1 => text.push_str("environment: {type: local}\n"),
        2 => text.push_str("environment: {type: local, root: sub}\n"),
        3 => text.push_str("environment: {type: virtual}\n"),
        _ => text.push_str("environment: {type: virtual, root: sub}\n"),
    }
    // A sandbox on some of the shell sections, chosen by the index so the dice (and so every
    // other choice) stay as they were; a virtual environment refuses it.
    let sandbox = match index % 5 {
        0 => ", sandbox: {mode: read-only, writable: [sub]}",
        1 => ", sandbox: {read: workspace, required: false}",
        2 => ", sandbox: {mode: off}",
        _ => "",
    };
    // Any-program execution only in memory: the test model's commands are made-up words.
    match dice.pick(4) {
        0 => {}
        1 => text.push_str(&format!("shell: {{allow_execute: false{sandbox}}}\n")),
        2 => text.push_str(&format!(
            "shell: {{allow_execute: true, allowed_programs: [echo]{sandbox}}}\n"
        )),
        _ if environment >= 3 => {
            text.push_str(&format!("shell: {{allow_execute: true{sandbox}}}\n"))
        }
        _ => text.push_str(&format!(
            "shell: {{allow_execute: true, allowed_programs: [true]{sandbox}}}\n"
        )),
    }
    if dice.chance(1) {
        text.push_str("skills: {scopes: [{path: .}]}\n");
    }
    match dice.pick(3) {
        0 => {}
        1 => {
            text.push_str("vars: {who: devs}\ninstructions: Help {{ vars.who }} with {{ name }}.\n")
        }
        _ => text.push_str("instructions: Help {{ vars.whom }}.\n"),
    }
    if dice.chance(1) {
        text.push_str(
            "runtime: {tool_execution: sequential, max_steps: 12, max_tokens: 1000000}\n",
        );
    }
    let mut toolsets = Vec::new();
    let mut wrappable = Vec::new();
    if dice.chance(2) {
        toolsets.push(
            match dice.pick(4) {
                0 => "{type: filesystem}",
                1 => "{type: filesystem, read_only: true}",
                2 => "{type: filesystem, tools: [ls, read_file], approval_required: [read_file]}",
                _ => "{type: filesystem, read_only: true, tools: [write_file]}",
            }
            .to_string(),
        );
        wrappable.push("filesystem");
    }
    if dice.chance(1) {
        toolsets.push("{type: shell, tools: [shell_exec]}".to_string());
        wrappable.push("shell");
    }
    if dice.chance(1) {
        toolsets.push("{type: user_input}".to_string());
    }
    if dice.chance(2) {
        let prefix = if dice.chance(2) { ", prefix: kb" } else { "" };
        let approval = if dice.chance(1) {
            ", approval_required: true"
        } else {
            ""
        };
        toolsets.push(format!(
            "{{type: tools, name: glossary, tools: [lookup]{prefix}{approval}}}"
        ));
        wrappable.push("glossary");
    }
    if dice.chance(1) {
        toolsets.push("{type: deferred, name: jobs, tools: [render_video]}".to_string());
        wrappable.push("jobs");
    }
    if !wrappable.is_empty() && dice.chance(1) {
        let target = wrappable[dice.pick(wrappable.len() as u64) as usize];
        toolsets.push(format!(
            "{{type: proxy, name: hidden, toolsets: [{target}]}}"
        ));
    } else if !wrappable.is_empty() && dice.chance(1) {
        let target = wrappable[dice.pick(wrappable.len() as u64) as usize];
        toolsets.push(format!(
            "{{type: search, name: found, toolsets: [{target}]}}"
        ));
    }
    if !toolsets.is_empty() {
        text.push_str("toolsets:\n");
        for toolset in toolsets {
            text.push_str(&format!("  - {toolset}\n"));
        }
    }
    text
}

#[tokio::test]
async fn whatever_the_checker_accepts_loads_and_runs_and_the_rest_it_reports() {
    let mut dice = Dice(0x5eed_cafe_f00d);
    let (mut accepted, mut refused) = (0, 0);
    for index in 0..300 {
        let dir = project();
        let text = generated(&mut dice, index);
        let found = errors(&text, dir.path());
        let loaded = check_and_load(&text, dir.path()).await;
        if found.is_empty() {
            accepted += 1;
            let mut loaded = loaded.unwrap_or_else(|error| {
                panic!("the checker accepts but loading refuses ({error}):\n{text}")
            });
            let answer = run_to_answer(&mut loaded)
                .await
                .unwrap_or_else(|error| panic!("the run failed ({error}):\n{text}"));
            assert!(!answer.is_empty(), "no answer:\n{text}");
        } else {
            refused += 1;
            // Nothing the checker refuses reaches the loader.
            assert!(loaded.is_err(), "loaded what the checker refuses:\n{text}");
        }
    }
    // The generator must exercise both sides.
    assert!(accepted >= 50, "only {accepted} accepted");
    assert!(refused >= 40, "only {refused} refused");
}

/// Every input the fuzzer found where the checker and the reader disagreed now agrees.
#[test]
fn the_fuzzers_reproducers_agree() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/reproducers");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    let dir = project();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        // `errors` asserts the agreement.
        let found = errors(&text, dir.path());
        let builtin = file.ends_with("template-builtin-function.yaml");
        assert_eq!(found.is_empty(), builtin, "{}: {found:?}", file.display());
    }
}

#[tokio::test]
async fn a_script_the_checker_accepts_loads_and_plays_to_its_answer() {
    let dir = project_with_scripts();
    let text = "version: 1\nname: a\nmodel: {id: script, script: ok.script.yaml}\n\
environment: {type: local}\ntoolsets: [{type: filesystem, read_only: true}]\n";
    assert!(errors(text, dir.path()).is_empty());
    let mut loaded = check_and_load(text, dir.path()).await.unwrap();
    let answer = run_to_answer(&mut loaded).await.unwrap();
    assert_eq!(answer, "notes: remember the milk");
}
