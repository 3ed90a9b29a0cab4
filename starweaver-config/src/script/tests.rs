#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver_core::agent::{AgentBuilder, AgentError};
use starweaver_core::model::ModelError;
use starweaver_core::tools::{string_tool, DynTool, ToolContext, ToolResult};

use super::{ScriptCall, ScriptError, ScriptModel, ScriptTurn, MAX_SCRIPT_BYTES};

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

/// `find` returns two matches for any pattern; `echo` returns its arguments.
fn tools() -> Vec<DynTool> {
    let find = string_tool(
        "find",
        Some("Finds text.".to_string()),
        json!({"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}),
        |_ctx: ToolContext, args: Value| async move {
            Ok(ToolResult::new(json!({
                "matches": [{"path": "src/load.rs", "line": 7}, {"path": "src/other.rs", "line": 9}],
                "pattern": args["pattern"],
            })))
        },
    );
    let echo = string_tool(
        "echo",
        Some("Echoes its arguments.".to_string()),
        json!({"type": "object"}),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    );
    vec![Arc::new(find), Arc::new(echo)]
}

fn run(model: ScriptModel, prompt: &str) -> Result<String, AgentError> {
    let mut builder = AgentBuilder::new(Arc::new(model));
    for tool in tools() {
        builder = builder.tool(tool);
    }
    block_on(builder.build().run(prompt)).map(|result| result.output)
}

#[test]
fn calls_and_answers_quote_every_earlier_call_of_the_run() {
    let model = ScriptModel::from_yaml(
        r#"
- calls:
    - { tool: find, args: { pattern: "{{ prompt }}" } }
- calls:
    - tool: echo
      args:
        path: "{{ calls[0].result.matches[0].path }}"
        line: "{{ calls[0].result.matches[0].line }}"
        both: "{{ calls[0].result.matches | map(attribute='path') | join(', ') }}"
        plain: "as written"
- answer: "{{ calls | length }} calls; {{ calls[1].tool }} got {{ calls[1].result.path }} (line {{ calls[1].args.line + 1 }}, {{ calls[1].kind }}) for turn {{ turn }}"
"#,
    )
    .unwrap();
    let output = run(model, "pub fn load").unwrap();
    assert_eq!(
        output,
        "2 calls; echo got src/load.rs (line 8, success) for turn 3"
    );
}

#[test]
fn a_whole_expression_keeps_its_type_and_other_templates_render_text() {
    let model = ScriptModel::new([
        ScriptTurn::calls([ScriptCall::new("find", json!({"pattern": "x"}))]),
        ScriptTurn::calls([ScriptCall::new(
            "echo",
            json!({
                "number": "{{ calls[0].result.matches[1].line }}",
                "list": "{{- calls[0].result.matches -}}",
                "text": "line {{ calls[0].result.matches[1].line }}",
                "nested": [{"deep": "{{ prompt }}"}],
                "flag": true,
            }),
        )]),
        ScriptTurn::answer("{{ calls[1].result }}"),
    ]);
    let output: Value = serde_json::from_str(&run(model, "hi").unwrap()).unwrap();
    assert_eq!(output["number"], json!(9));
    assert_eq!(output["list"][0]["path"], "src/load.rs");
    assert_eq!(output["text"], "line 9");
    assert_eq!(output["nested"][0]["deep"], "hi");
    assert_eq!(output["flag"], true);
}

#[test]
fn a_script_that_runs_out_before_an_answer_fails_naming_the_turn() {
    let model = ScriptModel::from_yaml("- calls: [{tool: find, args: {pattern: a}}]\n")
        .unwrap()
        .with_script_name("short.script.yaml");
    let error = run(model, "go").unwrap_err();
    let AgentError::Model(ModelError::Script {
        script,
        turn,
        message,
    }) = &error
    else {
        panic!("expected a script error, got {error:?}");
    };
    assert_eq!((script.as_str(), *turn), ("short.script.yaml", 2));
    assert!(message.contains("1 turn(s)"), "{message}");
    let shown = error.to_string();
    assert!(
        shown.contains("short.script.yaml") && shown.contains("turn 2"),
        "{shown}"
    );
}

#[test]
fn a_template_that_fails_to_render_fails_the_run_naming_the_turn() {
    let answer = ScriptModel::from_yaml(
        "- calls: [{tool: find, args: {pattern: a}}]\n- answer: 'found {{ calls[3].result.path }}'\n",
    )
    .unwrap();
    let error = run(answer, "go").unwrap_err().to_string();
    assert!(
        error.contains("turn 2") && error.contains("the answer does not render"),
        "{error}"
    );
    let argument = ScriptModel::new([ScriptTurn::calls([ScriptCall::new(
        "echo",
        json!({"at": {"path": "{{ calls[0].result }}"}}),
    )])]);
    let error = run(argument, "go").unwrap_err().to_string();
    assert!(
        error.contains("turn 1")
            && error.contains("call 1 (`echo`)")
            && error.contains("`args.at.path`"),
        "{error}"
    );
    let unknown = ScriptModel::new([ScriptTurn::answer("{{ nothing_here }}")]);
    let error = run(unknown, "go").unwrap_err().to_string();
    assert!(error.contains("turn 1"), "{error}");
}

#[test]
fn a_second_prompt_plays_the_turns_after_the_first_answer() {
    let model = ScriptModel::new([
        ScriptTurn::answer("first: {{ prompt }}"),
        ScriptTurn::calls([ScriptCall::new("find", json!({"pattern": "{{ prompt }}"}))]),
        ScriptTurn::answer("second: {{ calls | length }} call for {{ calls[0].result.pattern }}"),
    ]);
    let agent = AgentBuilder::new(Arc::new(model))
        .tool(tools().remove(0))
        .build();
    let mut session = starweaver_core::agent::AgentSession::new(agent);
    block_on(async {
        assert_eq!(session.run("one").await.unwrap().output, "first: one");
        assert_eq!(
            session.run("two").await.unwrap().output,
            "second: 1 call for two"
        );
        let error = session.run("three").await.unwrap_err().to_string();
        assert!(error.contains("turn 4"), "{error}");
    });
}

#[test]
fn malformed_scripts_are_refused_with_their_place() {
    let cases = [
        ("answer: hi\n", "must be a list of turns", 1, 1),
        ("[]\n", "no turns", 1, 1),
        ("- say: hi\n", "a turn has no key `say`", 1, 3),
        ("- answer: hi\n  calls: []\n", "not both", 1, 11),
        ("- {}\n", "neither `calls` nor `answer`", 1, 3),
        ("- calls: []\n", "`calls` is empty", 1, 10),
        ("- calls: [{args: {}}]\n", "has no `tool`", 1, 11),
        (
            "- calls: [{tool: a, arg: {}}]\n",
            "a call has no key `arg`",
            1,
            21,
        ),
        (
            "- calls: [{tool: a, args: [1]}]\n",
            "`args` must be a mapping",
            1,
            27,
        ),
        ("- answer: 3\n", "`answer` must be text", 1, 11),
        (
            "- answer: '{{ calls[0'\n",
            "the answer is not a valid template",
            1,
            11,
        ),
        ("- answer: 'a\n", "not readable YAML", 1, 11),
    ];
    for (text, expected, line, column) in cases {
        let error = ScriptModel::from_yaml(text).unwrap_err();
        let ScriptError::Invalid {
            line: at_line,
            column: at_column,
            message,
            ..
        } = &error
        else {
            panic!("{text}: {error:?}");
        };
        assert!(message.contains(expected), "{text}: {message}");
        assert_eq!((*at_line, *at_column), (line, column), "{text}: {error}");
        assert!(error.to_string().contains("(inline)"), "{error}");
    }
}

#[test]
fn script_files_are_read_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let missing = ScriptModel::from_file(dir.path().join("none.yaml")).unwrap_err();
    assert!(missing.to_string().contains("does not exist"), "{missing}");
    let folder = ScriptModel::from_file(dir.path()).unwrap_err();
    assert!(
        folder.to_string().contains("not a regular file"),
        "{folder}"
    );
    let big = dir.path().join("big.yaml");
    std::fs::write(&big, "#".repeat(MAX_SCRIPT_BYTES + 10)).unwrap();
    let error = ScriptModel::from_file(&big).unwrap_err().to_string();
    assert!(
        error.contains(&format!("{} bytes", MAX_SCRIPT_BYTES + 10)),
        "{error}"
    );
    let good = dir.path().join("good.yaml");
    std::fs::write(&good, "- answer: done\n").unwrap();
    let model = ScriptModel::from_file(&good).unwrap();
    assert_eq!(model.turns(), [ScriptTurn::answer("done")]);
    assert!(model.script_name().ends_with("good.yaml"));
}

#[test]
fn too_many_turns_or_calls_are_refused() {
    let turns = "- answer: a\n".repeat(super::MAX_TURNS + 1);
    let error = ScriptModel::from_yaml(&turns).unwrap_err().to_string();
    assert!(error.contains("more than the 1000"), "{error}");
    let calls = format!(
        "- calls: [{}]\n",
        vec!["{tool: a}"; super::MAX_CALLS_PER_TURN + 1].join(", ")
    );
    let error = ScriptModel::from_yaml(&calls).unwrap_err().to_string();
    assert!(error.contains("more than the 64"), "{error}");
}
