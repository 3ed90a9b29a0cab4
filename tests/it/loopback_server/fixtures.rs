//! The provider response fixtures: every file parses as what it claims
//! to be, each stream tells the same conversation as its JSON twin, and
//! the server sends them byte for byte however they are cut.

use serde_json::{json, Map, Value};

use super::client::Client;
use crate::common::loopback::{
    awkward_cuts, fixture, fixture_json, fixture_path, sse_data, sse_events, sse_names, utf8_cut,
    LoopbackServer, Reply, Split,
};

const PROVIDERS: [&str; 2] = ["openai", "anthropic"];

/// The text answer of both `final` fixtures; the dash is three bytes.
const FINAL_TEXT: &str = "The folder holds notes.txt \u{2014} nothing else.";

/// The fixture file names of `provider`, sorted.
fn names(provider: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixture_path(provider, ""))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn every_fixture_file_parses_as_what_it_claims_to_be() {
    for provider in PROVIDERS {
        let names = names(provider);
        for expected in [
            "bad_request.json",
            "error_event.sse",
            "final.json",
            "final.sse",
            "malformed.json",
            "overloaded.json",
            "rate_limited.json",
            "tool_round_1.json",
            "tool_round_1.sse",
            "truncated.sse",
        ] {
            assert!(
                names.iter().any(|name| name == expected),
                "{provider}/{expected} is missing"
            );
        }
        for name in &names {
            let text = fixture(provider, name);
            if name == "malformed.json" {
                assert!(serde_json::from_str::<Value>(&text).is_err());
            } else if name.ends_with(".json") {
                assert!(
                    fixture_json(provider, name).is_object(),
                    "{provider}/{name}"
                );
            } else if name.ends_with(".sse") {
                assert_eq!(
                    sse_events(&text).concat(),
                    text,
                    "{provider}/{name} round-trips"
                );
                for event in sse_events(&text) {
                    assert!(
                        event.ends_with("\n\n"),
                        "{provider}/{name}: {event:?} is unterminated"
                    );
                }
                let data = sse_data(&text);
                assert!(!data.is_empty(), "{provider}/{name} has data");
                for payload in data.iter().filter(|payload| *payload != "[DONE]") {
                    let parsed: Result<Value, _> = serde_json::from_str(payload);
                    assert!(parsed.is_ok(), "{provider}/{name}: {payload} is not JSON");
                }
            } else {
                panic!("{provider}/{name} is neither .json nor .sse");
            }
        }
    }
}

#[test]
fn sse_helpers_split_events_and_keep_a_cut_tail() {
    let text = "event: a\ndata: {\"x\":1}\n\ndata: one\ndata:two\n\n: comment\n\ndata: [DO";
    assert_eq!(
        sse_events(text),
        [
            "event: a\ndata: {\"x\":1}\n\n",
            "data: one\ndata:two\n\n",
            ": comment\n\n",
            "data: [DO"
        ]
    );
    assert_eq!(sse_data(text), ["{\"x\":1}", "one\ntwo", "[DO"]);
    assert_eq!(sse_names(text), ["a"]);
}

#[test]
fn error_bodies_have_each_providers_error_shape() {
    for name in ["rate_limited.json", "overloaded.json", "bad_request.json"] {
        let error = &fixture_json("openai", name)["error"];
        for field in ["message", "type", "param", "code"] {
            assert!(
                error.get(field).is_some(),
                "openai/{name} lacks error.{field}"
            );
        }
        let body = fixture_json("anthropic", name);
        assert_eq!(body["type"], "error", "anthropic/{name}");
        assert!(body["error"]["type"].is_string() && body["error"]["message"].is_string());
    }
    assert_eq!(
        fixture_json("openai", "rate_limited.json")["error"]["code"],
        "rate_limit_exceeded"
    );
    assert_eq!(
        fixture_json("anthropic", "rate_limited.json")["error"]["type"],
        "rate_limit_error"
    );
    assert_eq!(
        fixture_json("anthropic", "overloaded.json")["error"]["type"],
        "overloaded_error"
    );
    let last = sse_data(&fixture("openai", "error_event.sse"))
        .pop()
        .unwrap();
    assert!(serde_json::from_str::<Value>(&last).unwrap()["error"]["message"].is_string());
    assert_eq!(
        sse_names(&fixture("anthropic", "error_event.sse"))
            .last()
            .unwrap(),
        "error"
    );
}

// ---------------------------------------------------------------------------
// OpenAI Chat Completions
// ---------------------------------------------------------------------------

/// The chunks of an OpenAI stream, `[DONE]` left out.
fn openai_chunks(name: &str) -> Vec<Value> {
    let text = fixture("openai", name);
    sse_data(&text)
        .iter()
        .filter(|payload| *payload != "[DONE]")
        .map(|payload| serde_json::from_str(payload).unwrap())
        .collect()
}

/// What an OpenAI stream adds up to: content, tool calls (by index, with
/// their arguments parsed), the finish reason and the final usage.
fn openai_reassembled(name: &str) -> Value {
    let mut content = String::new();
    let mut calls: Vec<Value> = Vec::new();
    let mut finish = Value::Null;
    let mut usage = Value::Null;
    for chunk in openai_chunks(name) {
        assert_eq!(chunk["object"], "chat.completion.chunk");
        if !chunk["usage"].is_null() {
            assert_eq!(
                chunk["choices"],
                json!([]),
                "usage comes in its own last chunk"
            );
            usage = chunk["usage"].clone();
        }
        for choice in chunk["choices"].as_array().unwrap() {
            let delta = &choice["delta"];
            content.push_str(delta["content"].as_str().unwrap_or_default());
            for call in delta["tool_calls"].as_array().into_iter().flatten() {
                let index = usize::try_from(call["index"].as_u64().unwrap()).unwrap();
                if calls.len() <= index {
                    calls.resize(index + 1, json!({"id": "", "name": "", "arguments": ""}));
                }
                let slot = &mut calls[index];
                if let Some(id) = call["id"].as_str() {
                    slot["id"] = json!(id);
                }
                let function = &call["function"];
                for field in ["name", "arguments"] {
                    if let Some(piece) = function[field].as_str() {
                        let joined = format!("{}{piece}", slot[field].as_str().unwrap());
                        slot[field] = json!(joined);
                    }
                }
            }
            if !choice["finish_reason"].is_null() {
                finish = choice["finish_reason"].clone();
            }
        }
    }
    for call in &mut calls {
        let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
        call["arguments"] = arguments;
    }
    json!({"content": content, "calls": calls, "finish": finish, "usage": usage})
}

/// The same summary of an OpenAI JSON response.
fn openai_summary(name: &str) -> Value {
    let response = fixture_json("openai", name);
    assert_eq!(response["object"], "chat.completion");
    let choice = &response["choices"][0];
    let message = &choice["message"];
    let calls: Vec<Value> = message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|call| {
            let arguments: Value =
                serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
            json!({"id": call["id"], "name": call["function"]["name"], "arguments": arguments})
        })
        .collect();
    json!({
        "content": message["content"].as_str().unwrap_or_default(),
        "calls": calls,
        "finish": choice["finish_reason"],
        "usage": response["usage"],
    })
}

#[test]
fn openai_streams_add_up_to_their_json_twins() {
    let round = openai_summary("tool_round_1.json");
    assert_eq!(round["finish"], "tool_calls");
    assert_eq!(
        round["calls"],
        json!([
            {"id": "call_ls_01", "name": "ls", "arguments": {"path": "."}},
            {"id": "call_read_02", "name": "read_file", "arguments": {"path": "notes.txt"}},
        ])
    );
    assert_eq!(openai_reassembled("tool_round_1.sse"), round);

    let last = openai_summary("final.json");
    assert_eq!(last["content"], FINAL_TEXT);
    assert_eq!(last["finish"], "stop");
    assert_eq!(openai_reassembled("final.sse"), last);
}

#[test]
fn the_openai_tool_stream_interleaves_the_two_calls_in_small_pieces() {
    let order: Vec<u64> = openai_chunks("tool_round_1.sse")
        .iter()
        .flat_map(|chunk| chunk["choices"].as_array().unwrap().clone())
        .flat_map(|choice| {
            choice["delta"]["tool_calls"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|call| call["index"].as_u64().unwrap())
        .collect();
    assert!(order.len() >= 6, "{order:?}");
    assert!(
        order.windows(3).any(|w| w[0] != w[1] && w[1] != w[2]),
        "{order:?}"
    );
}

#[test]
fn openai_streams_end_with_done_and_the_truncated_one_does_not() {
    for name in ["tool_round_1.sse", "final.sse"] {
        assert_eq!(
            sse_data(&fixture("openai", name)).last().unwrap(),
            "[DONE]",
            "{name}"
        );
    }
    let cut = fixture("openai", "truncated.sse");
    assert!(!sse_data(&cut).iter().any(|payload| payload == "[DONE]"));
    let cut = openai_reassembled("truncated.sse");
    assert_eq!(
        (cut["finish"].clone(), cut["usage"].clone()),
        (Value::Null, Value::Null)
    );
}

// ---------------------------------------------------------------------------
// Anthropic Messages
// ---------------------------------------------------------------------------

/// The events of an Anthropic stream as (name, data).
fn anthropic_events(name: &str) -> Vec<(String, Value)> {
    let text = fixture("anthropic", name);
    let names = sse_names(&text);
    let data = sse_data(&text);
    assert_eq!(names.len(), data.len(), "every event of {name} is named");
    names
        .into_iter()
        .zip(
            data.iter()
                .map(|payload| serde_json::from_str::<Value>(payload).unwrap()),
        )
        .inspect(|(event, data)| assert_eq!(data["type"], json!(event), "{name}"))
        .collect()
}

/// What an Anthropic stream adds up to: the content blocks (tool inputs
/// parsed), the stop reason and the usage.
fn anthropic_reassembled(name: &str) -> Value {
    let mut blocks: Vec<Value> = Vec::new();
    let mut partial_inputs: Vec<String> = Vec::new();
    let mut open = Vec::new();
    let mut stop = Value::Null;
    let mut usage = Map::new();
    for (event, data) in anthropic_events(name) {
        let index = data["index"].as_u64().map(|i| usize::try_from(i).unwrap());
        match event.as_str() {
            "message_start" => usage = data["message"]["usage"].as_object().unwrap().clone(),
            "content_block_start" => {
                assert_eq!(index, Some(blocks.len()), "blocks start in order");
                blocks.push(data["content_block"].clone());
                partial_inputs.push(String::new());
                open.push(index.unwrap());
            }
            "content_block_delta" => {
                let index = index.unwrap();
                assert_eq!(open.last(), Some(&index), "deltas go to the open block");
                let delta = &data["delta"];
                match delta["type"].as_str().unwrap() {
                    "text_delta" => {
                        let text = format!(
                            "{}{}",
                            blocks[index]["text"].as_str().unwrap(),
                            delta["text"].as_str().unwrap()
                        );
                        blocks[index]["text"] = json!(text);
                    }
                    "input_json_delta" => {
                        partial_inputs[index].push_str(delta["partial_json"].as_str().unwrap());
                    }
                    other => panic!("unexpected delta {other}"),
                }
            }
            "content_block_stop" => {
                let index = index.unwrap();
                assert_eq!(open.pop(), Some(index));
                if blocks[index]["type"] == "tool_use" {
                    blocks[index]["input"] = serde_json::from_str(&partial_inputs[index]).unwrap();
                }
            }
            "message_delta" => {
                stop = data["delta"]["stop_reason"].clone();
                for (key, value) in data["usage"].as_object().unwrap() {
                    usage.insert(key.clone(), value.clone());
                }
            }
            "message_stop" | "ping" => {}
            other => panic!("unexpected event {other} in {name}"),
        }
    }
    json!({"content": blocks, "stop": stop, "usage": usage})
}

/// The same summary of an Anthropic JSON response.
fn anthropic_summary(name: &str) -> Value {
    let response = fixture_json("anthropic", name);
    assert_eq!(
        (response["type"].clone(), response["role"].clone()),
        (json!("message"), json!("assistant"))
    );
    json!({"content": response["content"], "stop": response["stop_reason"], "usage": response["usage"]})
}

#[test]
fn anthropic_streams_add_up_to_their_json_twins() {
    let round = anthropic_summary("tool_round_1.json");
    assert_eq!(round["stop"], "tool_use");
    let tools: Vec<Value> = round["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|block| block["type"] == "tool_use")
        .map(|block| json!([block["id"], block["name"], block["input"]]))
        .collect();
    assert_eq!(
        tools,
        [
            json!(["toolu_ls_01", "ls", {"path": "."}]),
            json!(["toolu_read_02", "read_file", {"path": "notes.txt"}])
        ]
    );
    assert_eq!(anthropic_reassembled("tool_round_1.sse"), round);

    let last = anthropic_summary("final.json");
    assert_eq!(
        last["content"],
        json!([{"type": "text", "text": FINAL_TEXT}])
    );
    assert_eq!(last["stop"], "end_turn");
    assert_eq!(anthropic_reassembled("final.sse"), last);
}

#[test]
fn anthropic_streams_run_start_to_stop_and_the_truncated_one_stops_early() {
    for name in ["tool_round_1.sse", "final.sse"] {
        let names = sse_names(&fixture("anthropic", name));
        assert_eq!(names.first().unwrap(), "message_start", "{name}");
        assert_eq!(names.last().unwrap(), "message_stop", "{name}");
        assert!(
            names.iter().any(|event| event == "ping"),
            "{name} has a ping"
        );
    }
    let names = sse_names(&fixture("anthropic", "truncated.sse"));
    assert!(!names
        .iter()
        .any(|n| n == "message_stop" || n == "message_delta" || n == "content_block_stop"));
    let cut = anthropic_reassembled("truncated.sse");
    assert_eq!(cut["stop"], Value::Null);
}

// ---------------------------------------------------------------------------
// Served through the loopback server
// ---------------------------------------------------------------------------

#[test]
fn the_final_streams_can_be_cut_inside_the_dash_of_a_text_delta() {
    for provider in PROVIDERS {
        let text = fixture(provider, "final.sse");
        let cut = utf8_cut(&text).unwrap();
        assert_eq!(
            &text.as_bytes()[cut - 1..cut + 2],
            "\u{2014}".as_bytes(),
            "{provider}"
        );
        let event = sse_events(&text)
            .into_iter()
            .find(|event| event.contains('\u{2014}'))
            .unwrap();
        assert!(
            event.contains("delta"),
            "{provider}: the dash is in a delta"
        );
    }
}

#[test]
fn fixtures_are_served_byte_for_byte_however_they_are_cut() {
    for provider in PROVIDERS {
        for name in ["tool_round_1.sse", "final.sse", "truncated.sse"] {
            let text = fixture(provider, name);
            let server = LoopbackServer::start(vec![
                Reply::sse_file(provider, name),
                Reply::sse_file(provider, name).with_split(Split::At(awkward_cuts(&text))),
                Reply::sse_file(provider, name).with_split(Split::Every(1)),
                Reply::json_file(429, provider, "rate_limited.json"),
            ]);
            let mut client = Client::connect(&server);
            let events = client.exchange("/", "{}");
            assert_eq!(events.chunks.len(), sse_events(&text).len());
            assert_eq!(events.text(), text);
            let cut = client.exchange("/", "{}");
            assert!(cut.chunks.len() > events.chunks.len());
            assert_eq!(cut.text(), text);
            let bytes = client.exchange("/", "{}");
            assert_eq!(bytes.chunks.len(), text.len());
            assert_eq!(bytes.text(), text);
            let limited = client.exchange("/", "{}");
            assert_eq!(limited.status, 429);
            assert_eq!(limited.json(), fixture_json(provider, "rate_limited.json"));
            assert_eq!(server.connections(), 1);
        }
    }
}
