//! Traces through `starweaver run --trace`: the span tree as JSON lines, secrets masked with
//! content capture on and off, and OTLP/HTTP delivered to a receiver built on the official
//! protobuf definitions.

mod jsonl;
mod mcp;
mod otlp;

use std::path::Path;

use serde_json::{json, Value};

use crate::common::loopback::{LoopbackServer, Reply};

/// The variable holding the model's key in these tests, and its value.
pub const KEY_VARIABLE: &str = "STARWEAVER_TEST_TRACE_KEY";
pub const KEY: &str = "sk-trace-test-0123456789abcdef";
/// The secret variable's value.
pub const TOKEN: &str = "tok-s3cr3t-9f8e7d";

/// A loopback OpenAI server: one `shell_exec` of `echo traced`, then an answer.
pub fn serve() -> LoopbackServer {
    serve_after(Vec::new())
}

/// [`serve`], answering `first` before.
pub fn serve_after(first: Vec<Reply>) -> LoopbackServer {
    let call = Reply::json(
        200,
        json!({
            "id": "chatcmpl-trace-1",
            "object": "chat.completion",
            "created": 1_764_547_200,
            "model": "gpt-4.1-mini",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": null, "tool_calls": [{
                    "id": "call_shell_01",
                    "type": "function",
                    "function": {"name": "shell_exec", "arguments": "{\"command\":\"echo traced\"}"},
                }]},
                "finish_reason": "tool_calls",
            }],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        }),
    );
    let answer = Reply::json(
        200,
        json!({
            "id": "chatcmpl-trace-2",
            "object": "chat.completion",
            "created": 1_764_547_201,
            "model": "gpt-4.1-mini",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": "It printed traced."},
                "finish_reason": "stop",
            }],
            "usage": {"prompt_tokens": 150, "completion_tokens": 5, "total_tokens": 155},
        }),
    );
    let mut script = first;
    script.extend([call, answer]);
    LoopbackServer::start(script)
}

/// A folder with `agent.yaml`: the `courier` agent on `server`, a secret variable `token`,
/// and the shell tool (sandbox off: these tests are about the spans, not the kernel).
pub fn project(server: &LoopbackServer) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let manifest = format!(
        "version: 1\nname: courier\nmodel:\n  id: \"openai:gpt-4.1-mini\"\n  base_url: \"{}/v1\"\n  \
         api_key_env: {KEY_VARIABLE}\n  stream: false\nvars:\n  token: unset\nsecret_vars: [token]\n\
         instructions: \"Use the token {{{{ vars.token }}}} when asked.\"\n\
         environment: {{type: local, root: .}}\nshell:\n  allow_execute: true\n  sandbox: {{mode: off}}\n\
         toolsets:\n  - type: shell\n    tools: [shell_exec]\n",
        server.base_url()
    );
    std::fs::write(dir.path().join("agent.yaml"), manifest).unwrap();
    dir
}

/// The prompt: it carries both secrets, so content capture would record them unmasked.
pub fn prompt() -> String {
    format!("Run echo traced; the key is {KEY} and the token is {TOKEN}.")
}

/// Spans of a JSON lines file.
pub fn read_spans(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The one span called `name`.
pub fn span<'a>(spans: &'a [Value], name: &str) -> &'a Value {
    let found: Vec<&Value> = spans.iter().filter(|span| span["name"] == name).collect();
    assert_eq!(found.len(), 1, "{name} in {spans:#?}");
    found[0]
}
