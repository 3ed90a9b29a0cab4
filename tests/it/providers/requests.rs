//! The exact requests each client sends over a two-step run: path,
//! headers, and the whole JSON body of both requests (instructions,
//! prompt, tools, settings, streaming; then the assistant's tool calls
//! and the tool results in order), checked against what the public
//! Chat Completions and Messages references accept.

use serde_json::{json, Map, Value};
use starweaver::model::{adapt_schema, ModelSettings, SchemaDialect, ToolDefinition};
use starweaver::{filesystem_tools, ToolRegistry};

use super::{patiently, project, Provider, Setup, INSTRUCTIONS, KEY, PROMPT};
use crate::common::loopback::{fixture_json, LoopbackServer, Recorded, Reply};

/// The instruction the filesystem bundle adds after the agent's own.
const BUNDLE_INSTRUCTION: &str = "Filesystem tools act on the attached environment; paths are relative to its root. Find files with glob and text with grep before reading; read a file before editing it, and prefer edit_file over rewriting whole files. Read a skill's whole SKILL.md before following it.";

/// What `ls {"path": "."}` returns in the test folder, as the text both
/// protocols carry.
const LS_RESULT: &str = r#"{"path":"","entries":[{"name":"notes.txt","path":"notes.txt","kind":"file","size":53}],"total":1,"truncated":false}"#;

/// What `read_file {"path": "notes.txt"}` returns, as text.
const READ_RESULT: &str = r#"{"path":"notes.txt","content":"Standup moved to 10:30.\nBring the release checklist.\n","start_line":1,"lines_returned":2,"total_lines":2,"truncated":false}"#;

/// The system text: the agent's instructions, then the bundle's.
fn system_text() -> String {
    format!("{INSTRUCTIONS}\n\n{BUNDLE_INSTRUCTION}")
}

/// The filesystem bundle's definitions, in the order the run sends them.
fn definitions() -> Vec<ToolDefinition> {
    ToolRegistry::new()
        .with_toolset(&filesystem_tools())
        .definitions()
}

/// The tools as Chat Completions takes them, each as its definition says:
/// name, description, the argument schema and `strict`. Which schema form
/// and whether it is strict follow the client's documented rule (the
/// tool's own preference; with none, strict when the strict form loses
/// nothing); how schemas are rewritten is tested with the rewriting.
fn openai_tools() -> Value {
    definitions()
        .iter()
        .map(|definition| {
            let strict_form = adapt_schema(&definition.parameters, SchemaDialect::OpenAiStrict);
            let loose = || {
                adapt_schema(&definition.parameters, SchemaDialect::OpenAi)
                    .unwrap()
                    .schema
            };
            let (schema, strict) = match (definition.strict, strict_form) {
                (Some(false), _) => (loose(), false),
                (Some(true), form) => (form.unwrap().schema, true),
                (None, Ok(form)) if form.is_lossless() => (form.schema, true),
                (None, _) => (loose(), false),
            };
            let mut function = Map::new();
            function.insert("name".into(), json!(definition.name));
            if let Some(description) = &definition.description {
                function.insert("description".into(), json!(description));
            }
            function.insert("parameters".into(), schema);
            if strict {
                function.insert("strict".into(), json!(true));
            }
            json!({"type": "function", "function": function})
        })
        .collect()
}

/// The tools as Messages takes them: name, description, `input_schema`.
fn anthropic_tools() -> Value {
    definitions()
        .iter()
        .map(|definition| {
            let mut tool = Map::new();
            tool.insert("name".into(), json!(definition.name));
            if let Some(description) = &definition.description {
                tool.insert("description".into(), json!(description));
            }
            let schema = adapt_schema(&definition.parameters, SchemaDialect::Anthropic).unwrap();
            tool.insert("input_schema".into(), schema.schema);
            Value::Object(tool)
        })
        .collect()
}

/// The two Chat Completions bodies of the scripted run.
fn openai_bodies(streamed: bool) -> [Value; 2] {
    let system = json!({"role": "system", "content": system_text()});
    let user = json!({"role": "user", "content": PROMPT});
    let assistant = json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [
            {"id": "call_ls_01", "type": "function",
             "function": {"name": "ls", "arguments": "{\"path\":\".\"}"}},
            {"id": "call_read_02", "type": "function",
             "function": {"name": "read_file", "arguments": "{\"path\":\"notes.txt\"}"}},
        ],
    });
    let results = [
        json!({"role": "tool", "tool_call_id": "call_ls_01", "content": LS_RESULT}),
        json!({"role": "tool", "tool_call_id": "call_read_02", "content": READ_RESULT}),
    ];
    let body = |messages: Vec<Value>| {
        let mut body = json!({
            "model": "gpt-4.1-mini",
            "messages": messages,
            "tools": openai_tools(),
            "temperature": 0.25,
            "max_tokens": 512,
            "stop": ["<END>"],
            "seed": 7,
        });
        if streamed {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        body
    };
    [
        body(vec![system.clone(), user.clone()]),
        body(vec![
            system,
            user,
            assistant,
            results[0].clone(),
            results[1].clone(),
        ]),
    ]
}

/// The two Messages bodies of the scripted run.
fn anthropic_bodies(streamed: bool) -> [Value; 2] {
    let user = json!({"role": "user", "content": [{"type": "text", "text": PROMPT}]});
    let assistant = json!({
        "role": "assistant",
        "content": [
            {"type": "text", "text": "I'll list the folder and read the notes."},
            {"type": "tool_use", "id": "toolu_ls_01", "name": "ls", "input": {"path": "."}},
            {"type": "tool_use", "id": "toolu_read_02", "name": "read_file",
             "input": {"path": "notes.txt"}},
        ],
    });
    let results = json!({
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_ls_01", "content": LS_RESULT},
            {"type": "tool_result", "tool_use_id": "toolu_read_02", "content": READ_RESULT},
        ],
    });
    let body = |messages: Vec<Value>| {
        let mut body = json!({
            "model": "claude-sonnet-4-5",
            "system": system_text(),
            "messages": messages,
            "tools": anthropic_tools(),
            "max_tokens": 512,
            "temperature": 0.25,
            "stop_sequences": ["<END>"],
        });
        if streamed {
            body["stream"] = json!(true);
        }
        body
    };
    [
        body(vec![user.clone()]),
        body(vec![user, assistant, results]),
    ]
}

/// Asserts `actual` equals `expected`, showing both in full when not.
fn assert_body(actual: &Value, expected: &Value, what: &str) {
    assert!(
        actual == expected,
        "{what}: the body differs\n--- sent\n{}\n--- expected\n{}",
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(expected).unwrap()
    );
}

/// Asserts the method, path and headers of a request.
fn assert_head(provider: Provider, request: &Recorded) {
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, provider.path());
    assert_eq!(request.header("content-type"), Some("application/json"));
    match provider {
        Provider::OpenAi => {
            assert_eq!(
                request.header("authorization"),
                Some(format!("Bearer {KEY}").as_str())
            );
            assert_eq!(request.header("x-api-key"), None);
        }
        Provider::Anthropic => {
            assert_eq!(request.header("x-api-key"), Some(KEY));
            assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
            assert_eq!(request.header("authorization"), None);
        }
    }
}

/// Runs the scripted conversation (streamed or whole) and checks both
/// requests.
async fn check_requests(provider: Provider, streamed: bool) {
    let server = LoopbackServer::start(provider.conversation(streamed));
    let model = Setup::new(provider, &server).streaming(streamed).build();
    let mut workspace = project(model, provider.settings());
    if streamed {
        patiently(workspace.session.run_stream(PROMPT))
            .await
            .unwrap();
    } else {
        patiently(workspace.session.run(PROMPT)).await.unwrap();
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{provider:?}");
    let expected = match provider {
        Provider::OpenAi => openai_bodies(streamed),
        Provider::Anthropic => anthropic_bodies(streamed),
    };
    for (step, (request, expected)) in requests.iter().zip(&expected).enumerate() {
        assert_head(provider, request);
        assert_body(
            request.json_body(),
            expected,
            &format!("{provider:?} request {} (streamed: {streamed})", step + 1),
        );
    }
    // A whole answer is read to its end, so one connection carries both
    // requests (a stream is let go at its end marker, and may not be).
    if !streamed {
        assert_eq!(server.connections(), 1, "{provider:?}");
    }
}

#[tokio::test]
async fn openai_sends_the_documented_chat_completions_bodies() {
    check_requests(Provider::OpenAi, false).await;
}

#[tokio::test]
async fn openai_streamed_bodies_ask_for_a_stream_with_usage() {
    check_requests(Provider::OpenAi, true).await;
}

#[tokio::test]
async fn anthropic_sends_the_documented_messages_bodies() {
    check_requests(Provider::Anthropic, false).await;
}

#[tokio::test]
async fn anthropic_streamed_bodies_ask_for_a_stream() {
    check_requests(Provider::Anthropic, true).await;
}

#[tokio::test]
async fn tools_keep_the_order_and_text_their_definitions_give() {
    // The body's tools follow the definitions one for one, in order.
    let names: Vec<String> = definitions().into_iter().map(|tool| tool.name).collect();
    assert_eq!(
        names,
        ["edit_file", "glob", "grep", "ls", "read_file", "write_file"]
    );
    for provider in Provider::ALL {
        let server = LoopbackServer::start(vec![provider.json("final")]);
        let mut workspace = project(
            Setup::new(provider, &server).build(),
            ModelSettings::default(),
        );
        patiently(workspace.session.run(PROMPT)).await.unwrap();
        let body = server.requests()[0].json_body().clone();
        let sent: Vec<&str> = body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| {
                tool.pointer("/function/name")
                    .or_else(|| tool.get("name"))
                    .and_then(Value::as_str)
                    .unwrap()
            })
            .collect();
        assert_eq!(sent, names, "{provider:?}");
        // Without settings only what the protocol requires is sent:
        // Messages needs `max_tokens`, Chat Completions nothing.
        let settings: Vec<&str> = ["temperature", "top_p", "max_tokens", "stop", "seed"]
            .into_iter()
            .filter(|key| body.get(*key).is_some())
            .collect();
        match provider {
            Provider::OpenAi => assert!(settings.is_empty(), "{settings:?}"),
            Provider::Anthropic => {
                assert_eq!(settings, ["max_tokens"]);
                assert_eq!(body["max_tokens"], 4096);
            }
        }
        assert!(body.get("stream").is_none(), "{provider:?}: {body}");
    }
}

#[tokio::test]
async fn refused_calls_still_get_their_results_in_order_marked_as_errors() {
    // Both protocols want every call of a turn answered in the next
    // request: a call to an unknown tool and one with arguments the tool
    // refuses are answered with the problem, flagged as errors where the
    // protocol can say so.
    for provider in Provider::ALL {
        let mut round = fixture_json(provider.dir(), "tool_round_1.json");
        match provider {
            Provider::OpenAi => {
                let calls = &mut round["choices"][0]["message"]["tool_calls"];
                calls[0]["function"]["name"] = json!("nope");
                calls[1]["function"]["arguments"] = json!("{\"path\": 5}");
            }
            Provider::Anthropic => {
                round["content"][1]["name"] = json!("nope");
                round["content"][2]["input"] = json!({"path": 5});
            }
        }
        let server = LoopbackServer::start(vec![Reply::json(200, round), provider.json("final")]);
        let mut workspace = project(
            Setup::new(provider, &server).build(),
            ModelSettings::default(),
        );
        patiently(workspace.session.run(PROMPT)).await.unwrap();
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        let messages = requests[1].json_body()["messages"].clone();
        let answers: Vec<(String, String, bool)> = match provider {
            Provider::OpenAi => messages
                .as_array()
                .unwrap()
                .iter()
                .filter(|message| message["role"] == "tool")
                .map(|message| {
                    (
                        message["tool_call_id"].as_str().unwrap().to_string(),
                        message["content"].as_str().unwrap().to_string(),
                        // Chat Completions has no error flag.
                        true,
                    )
                })
                .collect(),
            Provider::Anthropic => messages[2]["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|block| {
                    assert_eq!(block["type"], "tool_result");
                    (
                        block["tool_use_id"].as_str().unwrap().to_string(),
                        block["content"].as_str().unwrap().to_string(),
                        block["is_error"] == true,
                    )
                })
                .collect(),
        };
        let ids: Vec<&str> = answers.iter().map(|(id, _, _)| id.as_str()).collect();
        match provider {
            Provider::OpenAi => assert_eq!(ids, ["call_ls_01", "call_read_02"]),
            Provider::Anthropic => assert_eq!(ids, ["toolu_ls_01", "toolu_read_02"]),
        }
        assert!(
            answers[0].1.starts_with("unknown tool `nope`"),
            "{answers:?}"
        );
        assert!(
            answers[1]
                .1
                .starts_with("invalid arguments for tool `read_file`"),
            "{answers:?}"
        );
        assert!(answers.iter().all(|(_, _, error)| *error), "{answers:?}");
    }
}

#[tokio::test]
async fn one_call_at_a_time_is_asked_for_in_each_protocols_words() {
    for provider in Provider::ALL {
        let server = LoopbackServer::start(vec![provider.json("final")]);
        let mut settings = ModelSettings::default();
        settings
            .extra
            .insert("parallel_tool_calls".into(), json!(false));
        let mut workspace = project(Setup::new(provider, &server).build(), settings);
        patiently(workspace.session.run(PROMPT)).await.unwrap();
        let body = server.requests()[0].json_body().clone();
        match provider {
            Provider::OpenAi => {
                assert_eq!(body["parallel_tool_calls"], false, "{body}");
                assert!(body.get("tool_choice").is_none());
            }
            Provider::Anthropic => {
                assert_eq!(
                    body["tool_choice"],
                    json!({"type": "auto", "disable_parallel_tool_use": true})
                );
                assert!(body.get("parallel_tool_calls").is_none(), "{body}");
            }
        }
    }
}
