//! OpenAI-compatible servers that stream tool calls their own way: some
//! number every call of a turn `index: 0`, some leave the index out.
//! Each call comes whole in one chunk with its own id; the client must
//! keep them apart instead of gluing their arguments together.

use serde_json::{json, Value};
use starweaver::model::{ModelSettings, ToolReturnKind};

use super::{
    model_failure, patiently, project, returns, Provider, Setup, FINAL_TEXT, NOTES, PROMPT,
};
use crate::common::loopback::{LoopbackServer, Reply};

/// One `data:` event of a chunk whose delta is `delta`.
fn chunk(delta: Value, finish: Option<&str>) -> String {
    let body = json!({
        "id": "chatcmpl-compat",
        "object": "chat.completion.chunk",
        "created": 1764547200,
        "model": "qwen2.5-coder:7b",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    format!("data: {body}\n\n")
}

/// A tool call entry of a delta: whole, with `index` when given.
fn whole_call(index: Option<u32>, id: &str, name: &str, arguments: &str) -> Value {
    let mut call = json!({
        "id": id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    });
    if let Some(index) = index {
        call["index"] = json!(index);
    }
    call
}

/// Round 1 as such a server streams it: the two calls in two chunks,
/// numbered by `index` (the same for both, or none).
fn round(index: Option<u32>) -> Reply {
    Reply::sse(vec![
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(
            json!({"tool_calls": [whole_call(index, "call_a", "ls", "{\"path\":\".\"}")]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [whole_call(index, "call_b", "read_file", "{\"path\":\"notes.txt\"}")]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        "data: [DONE]\n\n".to_string(),
    ])
}

#[tokio::test]
async fn calls_numbered_alike_or_not_at_all_stay_apart() {
    // Regression: both calls were merged into one, its arguments
    // `{"path":"."}{"path":"notes.txt"}`.
    for index in [Some(0), None] {
        let server = LoopbackServer::start(vec![round(index), Provider::OpenAi.sse("final")]);
        let model = Setup::new(Provider::OpenAi, &server).build();
        let mut workspace = project(model, ModelSettings::default());
        let stream = patiently(workspace.session.run_stream(PROMPT))
            .await
            .unwrap();
        let result = stream.result();
        assert_eq!(result.output, FINAL_TEXT);
        let returns = returns(&result.messages);
        let seen: Vec<(&str, &str)> = returns
            .iter()
            .map(|part| (part.tool_call_id.as_str(), part.tool_name.as_str()))
            .collect();
        assert_eq!(
            seen,
            [("call_a", "ls"), ("call_b", "read_file")],
            "index {index:?}"
        );
        assert!(returns
            .iter()
            .all(|part| part.kind == ToolReturnKind::Success));
        assert_eq!(returns[1].content["content"], NOTES);
        // The next request gives both calls back, apart.
        let body = server.requests()[1].json_body().clone();
        let calls = &body["messages"][2]["tool_calls"];
        assert_eq!(calls[0]["function"]["arguments"], "{\"path\":\".\"}");
        assert_eq!(
            calls[1]["function"]["arguments"],
            "{\"path\":\"notes.txt\"}"
        );
    }
}

#[tokio::test]
async fn a_whole_answer_to_a_streamed_request_is_taken_whole() {
    // A server that ignores the request for a stream answers with one
    // JSON body; so does a gateway reporting an error with status 200.
    for provider in Provider::ALL {
        let server = LoopbackServer::start(provider.conversation(false));
        let model = Setup::new(provider, &server).streaming(true).build();
        let mut workspace = project(model, ModelSettings::default());
        let stream = patiently(workspace.session.run_stream(PROMPT))
            .await
            .unwrap_or_else(|error| panic!("{provider:?}: {error}"));
        assert_eq!(stream.result().output, FINAL_TEXT, "{provider:?}");
        assert_eq!(returns(&stream.result().messages).len(), 2);
        assert!(server
            .requests()
            .iter()
            .all(|request| request.json_body()["stream"] == true));

        let error = json!({"type": "error", "error": {"message": "upstream model unavailable"}});
        let server = LoopbackServer::start(vec![Reply::json(200, error)]);
        let model = Setup::new(provider, &server).streaming(true).build();
        let mut workspace = project(model, ModelSettings::default());
        let message = model_failure(patiently(workspace.session.run_stream(PROMPT)).await);
        assert!(
            message.contains("upstream model unavailable"),
            "{provider:?}: {message}"
        );
    }
}
