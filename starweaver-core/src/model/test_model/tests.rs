//! The auto mode: prompt words in free-text arguments, exactly-one-of
//! schemas, calls ordered by what they need, `call_tool` after a search,
//! the summary, determinism and bounds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{json, Value};

use super::plan::{MAX_CALLS, MAX_STEPS};
use super::words::Words;
use crate::model::{
    ModelMessage, ModelRequest, ModelRequestParameters, ModelResponse, RequestPart, ToolCallPart,
    ToolDefinition, ToolReturnKind, ToolReturnPart,
};

fn tool(name: &str, description: &str, parameters: Value) -> ToolDefinition {
    ToolDefinition::new(name, Some(description.to_string()), parameters)
}

fn grep_tool() -> ToolDefinition {
    tool(
        "grep",
        "Search file contents for a regular expression",
        json!({"type": "object", "properties": {
            "pattern": {"type": "string", "description": "Regular expression to search for."},
            "path": {"type": ["string", "null"], "description": "File or directory to search."}
        }, "required": ["pattern"], "additionalProperties": false}),
    )
}

fn read_tool() -> ToolDefinition {
    tool(
        "read_file",
        "Read a text file",
        json!({"type": "object", "properties": {
            "path": {"type": "string", "description": "File to read."}
        }, "required": ["path"], "additionalProperties": false}),
    )
}

/// The schema `shell_exec` has: nothing required, "exactly one of
/// `command` or `program`" said in words only.
fn shell_tool() -> ToolDefinition {
    tool(
        "shell_exec",
        "Run a command",
        json!({"type": "object", "properties": {
            "args": {"type": "array", "items": {"type": "string"}, "default": []},
            "background": {"type": "boolean", "default": false},
            "command": {"type": ["string", "null"], "default": null, "description": "A shell script. Give either this or `program`."},
            "cwd": {"type": ["string", "null"]},
            "program": {"type": ["string", "null"], "default": null, "description": "A program run directly. Give either this or `command`."}
        }, "required": [], "additionalProperties": false}),
    )
}

fn parameters(tools: Vec<ToolDefinition>) -> ModelRequestParameters {
    ModelRequestParameters {
        tools: tools.into_iter().map(std::sync::Arc::new).collect(),
        ..ModelRequestParameters::default()
    }
}

fn respond(messages: &[ModelMessage], tools: &[ToolDefinition]) -> ModelResponse {
    super::auto_response(messages, &parameters(tools.to_vec()))
}

fn calls(response: &ModelResponse) -> Vec<(String, Value)> {
    response
        .calls()
        .map(|call| (call.name.clone(), call.arguments.to_json().unwrap()))
        .collect()
}

fn returned(call: &ToolCallPart, kind: ToolReturnKind, content: Value) -> RequestPart {
    RequestPart::ToolReturn(ToolReturnPart {
        tool_call_id: call.id.as_str().into(),
        tool_name: call.name.as_str().into(),
        content,
        kind,
        metadata: serde_json::Map::new(),
        private_metadata: serde_json::Map::new(),
    })
}

/// Runs the auto model to its answer, `execute` playing the tools; at
/// most `limit` requests.
fn run(
    prompt: &str,
    tools: &[ToolDefinition],
    limit: usize,
    mut execute: impl FnMut(&str, &Value) -> (ToolReturnKind, Value),
) -> (Vec<ModelMessage>, String) {
    let mut messages = vec![ModelMessage::Request(ModelRequest::user(prompt))];
    for _ in 0..limit {
        let response = respond(&messages, tools);
        if response.calls().next().is_none() {
            let text = response.text_content();
            messages.push(ModelMessage::Response(response));
            return (messages, text);
        }
        let parts = response
            .calls()
            .map(|call| {
                let arguments = call.arguments.to_json().unwrap();
                let (kind, content) = execute(&call.name, &arguments);
                returned(call, kind, content)
            })
            .collect();
        messages.push(ModelMessage::Response(response));
        messages.push(ModelMessage::Request(ModelRequest { parts }));
    }
    panic!("no answer after {limit} requests: {messages:?}");
}

fn assert_valid(schema: &Value, value: &Value) {
    let validator = jsonschema::validator_for(schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|error| error.to_string())
        .collect();
    assert!(errors.is_empty(), "{value} against {schema}: {errors:?}");
}

#[test]
fn key_words_drop_stop_words_and_punctuation() {
    let words = Words::of("Where is the manifest loader?");
    assert_eq!(words.phrase(), "manifest loader");
    assert_eq!(words.specific(), "manifest");
    assert_eq!(words.sentence(), "Where is the manifest loader?");
    // Quotes, shell characters and leading dashes never reach a value.
    let hostile = Words::of("show `rm -rf /` and $(reboot) --force; \"quoted\"");
    assert_eq!(hostile.phrase(), "rm rf reboot force quoted");
    assert_eq!(Words::of("what is it?").phrase(), "what");
    assert_eq!(Words::of("  ?! ").phrase(), "example");
    assert_eq!(Words::of(&"word ".repeat(10_000)).key().len(), 1);
}

// Regression: every string argument was `example`, whatever the prompt asked.
#[test]
fn prompt_words_become_free_text_arguments() {
    let search = tool(
        "lookup_docs",
        "Look up documentation",
        json!({"type": "object", "properties": {
            "query": {"type": "string"},
            "question": {"type": "string"},
            "header": {"type": "string", "description": "A very short label"},
            "glob": {"type": "string"},
            "mode": {"enum": ["fast", "slow"]},
            "code": {"type": "string", "pattern": "^[0-9]+$"},
            "limited": {"type": "string", "maxLength": 4}
        }, "required": ["query", "question", "header", "glob", "mode", "code", "limited"]}),
    );
    let tools = [grep_tool(), search.clone()];
    let messages = [ModelMessage::Request(ModelRequest::user(
        "Where is the manifest loader?",
    ))];
    let response = respond(&messages, &tools);
    let calls = calls(&response);
    assert_eq!(
        calls[0],
        ("grep".to_string(), json!({"pattern": "manifest"}))
    );
    let arguments = &calls[1].1;
    assert_eq!(arguments["query"], "manifest loader");
    assert_eq!(arguments["question"], "Where is the manifest loader?");
    assert_eq!(arguments["header"], "manifest");
    assert_eq!(arguments["glob"], "*manifest*");
    assert_eq!(arguments["mode"], "fast");
    // The words do not fit the pattern: the plain sample, still checked.
    assert_eq!(arguments["limited"], "mani");
    assert_valid(&tools[0].parameters, &calls[0].1);
    assert_eq!(arguments["code"], "example");
}

// Regression: `shell_exec` got `{}`, neither `command` nor `program`.
#[test]
fn exactly_one_of_in_words_gets_the_program_form() {
    let tools = [shell_tool()];
    let messages = [ModelMessage::Request(ModelRequest::user(
        "show the build steps",
    ))];
    let calls = calls(&respond(&messages, &tools));
    assert_eq!(
        calls,
        [(
            "shell_exec".to_string(),
            json!({"program": "echo", "args": ["build", "steps"]})
        )]
    );
    assert_valid(&tools[0].parameters, &calls[0].1);
}

#[test]
fn one_of_schemas_get_exactly_one_branch() {
    let schema = json!({"type": "object", "properties": {
        "command": {"type": "string"},
        "program": {"type": "string"},
        "args": {"type": "array", "items": {"type": "string"}}
    }, "oneOf": [{"required": ["command"]}, {"required": ["program"]}],
       "not": {"required": ["command", "program"]},
       "dependentRequired": {"program": ["args"]}});
    let tools = [tool("run", "Run", schema.clone())];
    let messages = [ModelMessage::Request(ModelRequest::user("build the docs"))];
    let calls = calls(&respond(&messages, &tools));
    assert_eq!(calls[0].1, json!({"command": "echo build docs"}));
    assert_valid(&schema, &calls[0].1);

    // The first branch's sample matches the second too: the second branch.
    let overlapping = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "oneOf": [{"required": ["a"]}, {"required": ["a", "b"]}]});
    let tools = [tool("pick", "Pick", overlapping.clone())];
    let value = calls_of(&tools, "x")[0].1.clone();
    assert_valid(&overlapping, &value);
}

fn calls_of(tools: &[ToolDefinition], prompt: &str) -> Vec<(String, Value)> {
    let messages = [ModelMessage::Request(ModelRequest::user(prompt))];
    calls(&respond(&messages, tools))
}

// Regression: the answer was one line of JSON fragments, and `read_file` read `example`.
#[test]
fn reading_waits_for_a_file_an_earlier_call_found() {
    let tools = [read_tool(), grep_tool()];
    let (messages, answer) = run(
        "Where is the manifest loader?",
        &tools,
        5,
        |name, args| match name {
            "grep" => (
                ToolReturnKind::Success,
                json!({"matches": [
                    {"path": "src/load/mod.rs", "line_number": 3, "line": "manifest"},
                    {"path": "src/other.rs", "line_number": 9, "line": "manifest"}
                ], "count": 2, "truncated": false}),
            ),
            _ => {
                assert_eq!(args["path"], "src/load/mod.rs");
                (
                    ToolReturnKind::Success,
                    json!({"path": "src/load/mod.rs", "content": "//! Loads manifests.\n", "total_lines": 1}),
                )
            }
        },
    );
    let ModelMessage::Response(first) = &messages[1] else {
        panic!("{messages:?}");
    };
    assert_eq!(
        first
            .calls()
            .map(|call| call.name.as_str())
            .collect::<Vec<_>>(),
        ["grep"]
    );
    assert_eq!(
        answer,
        "Called 2 tool(s) for \"Where is the manifest loader?\":\n\
         - grep: 2 match(es), first src/load/mod.rs:3\n\
         - read_file: src/load/mod.rs, 1 line(s): \"//! Loads manifests.\""
    );
}

#[test]
fn a_tool_whose_input_never_came_is_left_out_with_the_reason() {
    let wait = tool(
        "shell_wait",
        "Wait for a process",
        json!({"type": "object", "properties": {
            "id": {"type": "string", "description": "The process id `shell_exec` returned."}
        }, "required": ["id"]}),
    );
    let tools = [read_tool(), wait, grep_tool()];
    let (_, answer) = run("count the lines", &tools, 4, |_, _| {
        (
            ToolReturnKind::Success,
            json!({"matches": [], "count": 0, "truncated": false}),
        )
    });
    assert_eq!(
        answer,
        "Called 1 tool(s) for \"count the lines\":\n\
         - grep: no matches\n\
         - read_file: not called, no earlier call returned a file to use\n\
         - shell_wait: not called, it needs an id that no earlier call returned"
    );
}

#[test]
fn edits_touch_only_the_file_the_run_wrote() {
    let write = tool(
        "write_file",
        "Create a file",
        json!({"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}
        }, "required": ["path", "content"]}),
    );
    let edit = tool(
        "edit_file",
        "Replace text",
        json!({"type": "object", "properties": {
            "path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}
        }, "required": ["path", "old_string", "new_string"]}),
    );
    let mut seen = Vec::new();
    let (_, answer) = run("note this", &[edit, write], 5, |name, args| {
        seen.push((name.to_string(), args.clone()));
        match name {
            "write_file" => (
                ToolReturnKind::Success,
                json!({"path": args["path"], "bytes_written": 9, "created": true}),
            ),
            _ => (
                ToolReturnKind::Success,
                json!({"path": args["path"], "replacements": 1, "first_line": 1}),
            ),
        }
    });
    assert_eq!(
        seen,
        [
            (
                "write_file".to_string(),
                json!({"path": "test-model-note.txt", "content": "note this"})
            ),
            (
                "edit_file".to_string(),
                json!({"path": "test-model-note.txt", "old_string": "note this", "new_string": "note this (edited)"})
            ),
        ]
    );
    assert!(
        answer.contains("- write_file: wrote test-model-note.txt (9 bytes)"),
        "{answer}"
    );
    assert!(
        answer.contains("- edit_file: 1 replacement(s) in test-model-note.txt"),
        "{answer}"
    );
}

fn proxy_tools() -> Vec<ToolDefinition> {
    vec![
        tool(
            "search_tools",
            "Find tools",
            json!({"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": ["integer", "null"]}}, "required": ["query"]}),
        ),
        tool(
            "call_tool",
            "Call a tool found with search_tools",
            json!({"type": "object", "properties": {"name": {"type": "string"}, "arguments": {}}, "required": ["name"]}),
        ),
    ]
}

#[test]
fn call_tool_names_a_tool_the_search_returned() {
    let found = json!({"tools": [
        {"name": "grep", "description": "Search", "parameters": grep_tool().parameters},
        {"name": "read_file", "description": "Read", "parameters": read_tool().parameters}
    ], "message": "Call one of these with call_tool."});
    let mut seen = Vec::new();
    let (_, answer) = run(
        "Where is the manifest loader?",
        &proxy_tools(),
        6,
        |name, args| {
            seen.push((name.to_string(), args.clone()));
            match (name, args["name"].as_str()) {
                ("search_tools", _) if args["query"] == "manifest loader" => (
                    ToolReturnKind::Success,
                    json!({"tools": [], "message": "No tools matched."}),
                ),
                ("search_tools", _) => (ToolReturnKind::Success, found.clone()),
                (_, Some("grep")) => (
                    ToolReturnKind::Success,
                    json!({"matches": [{"path": "a.rs", "line_number": 1, "line": "x"}], "count": 1}),
                ),
                _ => (
                    ToolReturnKind::Success,
                    json!({"path": "a.rs", "content": "x\n", "total_lines": 1}),
                ),
            }
        },
    );
    assert_eq!(
        seen,
        [
            (
                "search_tools".to_string(),
                json!({"query": "manifest loader"})
            ),
            (
                "search_tools".to_string(),
                json!({"query": super::plan::BROAD_QUERY})
            ),
            (
                "call_tool".to_string(),
                json!({"name": "grep", "arguments": {"pattern": "manifest"}})
            ),
            (
                "call_tool".to_string(),
                json!({"name": "read_file", "arguments": {"path": "a.rs"}})
            ),
        ]
    );
    assert!(
        answer.contains("- call_tool(grep): 1 match(es), first a.rs:1"),
        "{answer}"
    );
    assert!(
        answer.contains("- search_tools: 2 tool(s) found: grep, read_file"),
        "{answer}"
    );
}

#[test]
fn call_tool_without_a_found_tool_is_left_out() {
    let (_, answer) = run("anything", &proxy_tools(), 4, |_, _| {
        (ToolReturnKind::Success, json!({"tools": []}))
    });
    assert!(
        answer.ends_with("- call_tool: not called, no search returned a tool to call"),
        "{answer}"
    );
}

#[test]
fn failures_say_they_failed_and_why() {
    let tools = [grep_tool(), shell_tool()];
    let (_, answer) = run("run it", &tools, 3, |name, _| match name {
        "grep" => (
            ToolReturnKind::UserError,
            json!("the environment is not attached\nmore detail"),
        ),
        _ => (
            ToolReturnKind::Feedback,
            json!({"success": false, "error_kind": "feedback", "message": "`echo` is not an allowed program"}),
        ),
    });
    assert_eq!(
        answer,
        "Called 2 tool(s) for \"run it\":\n\
         - grep: failed (user_error), the environment is not attached\n\
         - shell_exec: failed (feedback), `echo` is not an allowed program"
    );
}

#[test]
fn answer_lines_stay_short() {
    let long = "x".repeat(10_000);
    let (_, answer) = run(&long, &[grep_tool()], 3, |_, _| {
        (ToolReturnKind::Success, json!({"blob": "y".repeat(10_000)}))
    });
    for line in answer.lines() {
        assert!(line.chars().count() <= 160, "{line}");
    }
    assert_eq!(answer.lines().count(), 2);
}

#[test]
fn same_prompt_and_tools_give_the_same_calls() {
    let tools = [grep_tool(), read_tool(), shell_tool()];
    let first = calls_of(&tools, "Where is the manifest loader?");
    for _ in 0..3 {
        assert_eq!(calls_of(&tools, "Where is the manifest loader?"), first);
    }
}

#[test]
fn a_run_always_ends() {
    // Every search returns new tools that need nothing: the model still
    // answers within its step and call bounds.
    let mut counter = 0;
    let tools = proxy_tools();
    let (messages, _) = run("go", &tools, MAX_STEPS + 2, |name, _| {
        counter += 1;
        let found: Vec<Value> = (0..40)
            .map(|index| json!({"name": format!("tool_{counter}_{index}"), "parameters": {"type": "object"}}))
            .collect();
        match name {
            "search_tools" => (ToolReturnKind::Success, json!({"tools": found})),
            _ => (ToolReturnKind::Success, json!({"tools": found})),
        }
    });
    let calls: usize = messages
        .iter()
        .filter_map(|message| match message {
            ModelMessage::Response(response) => Some(response.calls().count()),
            ModelMessage::Request(_) => None,
        })
        .sum();
    assert!(calls <= MAX_CALLS, "{calls}");
}

fn assert_bounded(tools: &[ToolDefinition]) -> Vec<(String, Value)> {
    let calls = calls_of(tools, "go");
    assert_eq!(calls.len(), tools.len());
    for (_, arguments) in &calls {
        assert!(arguments.to_string().len() < 100_000, "{arguments}");
    }
    calls
}

#[test]
fn deeply_nested_schemas_give_bounded_arguments() {
    let mut deep = json!({"type": "string"});
    for _ in 0..500 {
        // Built by moving: `json!` would copy the whole tree each level.
        let mut level = json!({"type": "object", "properties": {}, "required": ["n"],
            "oneOf": [{"required": ["n"]}, {"required": ["n"]}]});
        level["properties"]["n"] = deep;
        deep = level;
    }
    assert_bounded(&[tool("deep", "", deep)]);
}

#[test]
fn huge_enums_give_their_first_value() {
    let huge: Vec<Value> = (0..100_000)
        .map(|index| json!(format!("v{index}")))
        .collect();
    let schema = json!({"type": "object", "properties": {"e": {"enum": huge}}, "required": ["e"]});
    let calls = assert_bounded(&[tool("enum", "", schema)]);
    assert_eq!(calls[0].1, json!({"e": "v0"}));
}

#[test]
fn recursive_and_wide_schemas_give_bounded_arguments() {
    let recursive = json!({"$ref": "#/$defs/a", "$defs": {
        "a": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"},
            "b": {"oneOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}}, "required": ["a", "b"]}
    }});
    let wide: Vec<Value> = (0..1000)
        .map(|index| {
            json!({"type": "object", "properties": {format!("p{index}"): {"type": "string"}},
            "required": [format!("p{index}")]})
        })
        .collect();
    assert_bounded(&[
        tool("recursive", "", recursive),
        tool("wide", "", json!({"oneOf": wide})),
        tool("not_an_object", "", json!("nonsense")),
    ]);
}

fn edit_tool() -> ToolDefinition {
    tool(
        "edit_file",
        "Replace text",
        json!({"type": "object", "properties": {
            "path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}
        }, "required": ["path", "old_string", "new_string"]}),
    )
}

#[test]
fn a_handed_off_edit_proposes_a_change_to_a_found_file() {
    let mut proposal = edit_tool();
    proposal.name = "propose_edit_file".to_string();
    proposal
        .metadata
        .insert("deferred_call".to_string(), json!(true));
    let mut seen = Vec::new();
    let (_, answer) = run(
        "empty file check",
        &[proposal, grep_tool()],
        4,
        |name, args| {
            seen.push((name.to_string(), args.clone()));
            match name {
                "grep" => (
                    ToolReturnKind::Success,
                    json!({"matches": [{"path": "src/check.rs", "line_number": 7, "line": "    if empty {"}], "count": 1}),
                ),
                _ => (ToolReturnKind::Deferred, json!({"status": "deferred"})),
            }
        },
    );
    assert_eq!(
        seen[1],
        (
            "propose_edit_file".to_string(),
            json!({"path": "src/check.rs", "old_string": "if empty {", "new_string": "if empty { (edited)"})
        )
    );
    assert!(
        answer.contains("- propose_edit_file: deferred to the host"),
        "{answer}"
    );

    // Not handed off, the same edit waits for a file the run wrote.
    let (_, answer) = run(
        "empty file check",
        &[edit_tool(), grep_tool()],
        3,
        |_, _| {
            (
                ToolReturnKind::Success,
                json!({"matches": [{"path": "src/check.rs", "line_number": 7, "line": "x"}], "count": 1}),
            )
        },
    );
    assert!(
        answer.contains("- edit_file: not called, it changes only a file this run wrote"),
        "{answer}"
    );
}

#[test]
fn a_listing_of_folders_only_is_followed_into_the_first_folder() {
    let ls = tool(
        "ls",
        "List a directory",
        json!({"type": "object", "properties": {
            "path": {"type": ["string", "null"], "description": "Directory to list; omit for the root."}
        }, "required": []}),
    );
    let mut listed = Vec::new();
    let (_, answer) = run("what is here", &[ls, read_tool()], 5, |name, args| {
        listed.push((name.to_string(), args.clone()));
        match (name, args.get("path").and_then(Value::as_str)) {
            ("ls", None) => (
                ToolReturnKind::Success,
                json!({"path": "", "entries": [{"name": "agents/", "path": "agents", "kind": "directory"}], "total": 1}),
            ),
            ("ls", Some(_)) => (
                ToolReturnKind::Success,
                json!({"path": "agents", "entries": [{"name": "a.yaml", "path": "agents/a.yaml", "kind": "file"}], "total": 1}),
            ),
            _ => (
                ToolReturnKind::Success,
                json!({"path": "agents/a.yaml", "content": "version: 1\n", "total_lines": 1}),
            ),
        }
    });
    assert_eq!(
        listed,
        [
            ("ls".to_string(), json!({})),
            ("ls".to_string(), json!({"path": "agents"})),
            ("read_file".to_string(), json!({"path": "agents/a.yaml"})),
        ]
    );
    assert!(
        answer.contains("- ls: 1 entries: agents/\n- ls: 1 entries: a.yaml"),
        "{answer}"
    );
}

#[test]
fn a_handed_off_edit_with_nothing_found_goes_with_the_note_file() {
    let mut proposal = edit_tool();
    proposal
        .metadata
        .insert("deferred_call".to_string(), json!(true));
    let calls = calls_of(&[proposal], "fix the typo");
    assert_eq!(
        calls,
        [(
            "edit_file".to_string(),
            json!({"path": "test-model-note.txt", "old_string": "fix the typo", "new_string": "fix the typo (edited)"})
        )]
    );
}

#[test]
fn a_second_search_asks_with_the_instructions_words() {
    let mut messages = vec![ModelMessage::Request(ModelRequest::user("What is this?"))];
    let parameters = ModelRequestParameters {
        tools: proxy_tools().into_iter().map(std::sync::Arc::new).collect(),
        instructions: vec![
            "You help developers.\nPrefer exact lookup before answering.".to_string(),
        ],
        ..ModelRequestParameters::default()
    };
    let mut queries = Vec::new();
    for _ in 0..4 {
        let response = super::auto_response(&messages, &parameters);
        let Some(call) = response.calls().next().cloned() else {
            break;
        };
        queries.push(call.arguments.to_json().unwrap()["query"].clone());
        let part = returned(&call, ToolReturnKind::Success, json!({"tools": []}));
        messages.push(ModelMessage::Response(response));
        messages.push(ModelMessage::Request(ModelRequest { parts: vec![part] }));
    }
    assert_eq!(
        queries,
        [
            json!("what"),
            json!("developers prefer exact lookup answering"),
            json!(super::plan::BROAD_QUERY)
        ]
    );
}

#[test]
fn the_header_is_one_line_for_a_prompt_of_many_lines() {
    let (_, answer) = run("first line\n\nsecond   line", &[grep_tool()], 3, |_, _| {
        (ToolReturnKind::Success, json!({"matches": [], "count": 0}))
    });
    assert_eq!(
        answer.lines().next(),
        Some("Called 1 tool(s) for \"first line second line\":")
    );
    assert_eq!(
        Words::of("first line\n\nsecond   line").sentence(),
        "first line second line"
    );
}

#[test]
fn a_program_the_policy_refused_is_replaced_by_the_first_one_it_allows() {
    let mut seen = Vec::new();
    let (_, answer) = run("what changed", &[shell_tool()], 4, |_, args| {
        seen.push(args.clone());
        if args["program"] == "echo" {
            return (
                ToolReturnKind::Feedback,
                json!({"success": false, "error_kind": "feedback",
                    "message": "`echo` is not an allowed program; only these may run, named exactly (no path): `git`, `cargo` (shell policy rule `program_not_allowed`)",
                    "details": {"error": "policy_denied", "rule": "program_not_allowed", "allowed": ["git", "cargo"]}}),
            );
        }
        (
            ToolReturnKind::Success,
            json!({"status": "exited", "exit_code": 0, "stdout": "git version 2.43.0\n", "stderr": ""}),
        )
    });
    assert_eq!(
        seen,
        [
            json!({"program": "echo", "args": ["changed"]}),
            json!({"program": "git", "args": ["--version"]}),
        ]
    );
    assert!(
        answer.ends_with("- shell_exec: exit_code 0, stdout \"git version 2.43.0\""),
        "{answer}"
    );
}

// Regression: a question's answer came back as the question's JSON echo cut at 160
// characters, so the answer a person gave never showed in the run's answer.
#[test]
fn answered_questions_show_what_was_answered() {
    let ask = tool(
        "ask_user_question",
        "Ask the user clarifying questions",
        json!({"type": "object", "properties": {
            "questions": {"type": "array", "items": {"type": "object", "properties": {
                "question": {"type": "string"}, "header": {"type": "string"}
            }, "required": ["question", "header"]}}
        }, "required": ["questions"]}),
    );
    let (_, answer) = run("ship it", &[ask], 3, |_, _| {
        (
            ToolReturnKind::Success,
            json!({"answers": [
                {"question": "A long question about where the release should go first, and why it matters so much?", "header": "ship", "answer": "staging"},
                {"question": "Other", "header": "other", "answer": null}
            ], "response": "ship to staging first"}),
        )
    });
    assert_eq!(
        answer.lines().nth(1),
        Some(
            "- ask_user_question: answered \"staging\", no answer, response \"ship to staging first\""
        ),
        "{answer}"
    );
}

/// The output tool of a run that asks for a structured answer: kind `output` in its metadata.
fn output_tool(parameters: Value) -> ToolDefinition {
    let mut definition = tool("final_answer", "Give your final answer.", parameters);
    definition
        .metadata
        .insert("starweaver_tool_kind".into(), json!("output"));
    definition
}

#[test]
fn the_output_tool_gives_the_answer_after_the_other_tools() {
    let schema = json!({"type": "object", "properties": {
        "severity": {"enum": ["low", "high"]},
        "summary": {"type": "string", "minLength": 3}
    }, "required": ["severity", "summary"]});
    let tools = [output_tool(schema.clone()), read_tool(), grep_tool()];
    let mut messages = vec![ModelMessage::Request(ModelRequest::user(
        "Where is the manifest loader?",
    ))];
    let mut answered = None;
    for _ in 0..5 {
        let response = respond(&messages, &tools);
        let made = calls(&response);
        if let Some((_, arguments)) = made.iter().find(|(name, _)| name == "final_answer") {
            // Alone, with the summary as its text.
            assert_eq!(made.len(), 1, "{made:?}");
            assert!(response.text_content().starts_with("Called 2 tool(s)"));
            answered = Some(arguments.clone());
            break;
        }
        assert!(!made.is_empty(), "a text answer: {response:?}");
        let parts = response
            .calls()
            .map(|call| match call.name.as_str() {
                "grep" => returned(
                    call,
                    ToolReturnKind::Success,
                    json!({"matches": [{"path": "src/a.rs", "line_number": 1, "line": "x"}]}),
                ),
                _ => returned(call, ToolReturnKind::Success, json!({"content": "x"})),
            })
            .collect();
        messages.push(ModelMessage::Response(response));
        messages.push(ModelMessage::Request(ModelRequest { parts }));
    }
    let answer = answered.expect("an answer through the output tool");
    assert_valid(&schema, &answer);
    // Offered alone, the output tool is called at once.
    let first = respond(
        &[ModelMessage::Request(ModelRequest::user("hi"))],
        &[output_tool(schema.clone())],
    );
    assert_eq!(calls(&first).len(), 1);
    assert_valid(&schema, &calls(&first)[0].1);
}
