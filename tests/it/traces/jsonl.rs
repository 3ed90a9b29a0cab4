//! `--trace FILE`: the spans of a real run (a model at a loopback server, a shell command) as
//! JSON lines, parent to child, and no secret in any of them.

use serde_json::Value;

use super::{project, prompt, read_spans, serve, serve_after, span, KEY, KEY_VARIABLE, TOKEN};
use crate::common::loopback::Reply;
use crate::common::starweaver_binary;

/// Runs the project with `--trace FILE` (and `extra`), returns the spans.
fn traced(extra: &[&str]) -> Vec<Value> {
    traced_on(&serve(), extra)
}

/// [`traced`] against `server`.
fn traced_on(server: &crate::common::loopback::LoopbackServer, extra: &[&str]) -> Vec<Value> {
    let dir = project(server);
    let trace = dir.path().join("trace.jsonl");
    let output = starweaver_binary()
        .current_dir(dir.path())
        .args(["run", "agent.yaml", "--prompt", &prompt(), "--var"])
        .arg(format!("token={TOKEN}"))
        .arg("--trace")
        .arg(&trace)
        .args(extra)
        .env(KEY_VARIABLE, KEY)
        .env_remove(starweaver::telemetry::CONTENT_CAPTURE_VARIABLE)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    read_spans(&trace)
}

#[test]
fn a_traced_run_writes_its_span_tree_as_json_lines_without_content_or_secrets() {
    let spans = traced(&[]);
    let run = span(&spans, "invoke_agent courier");
    assert_eq!(run["parent_span_id"], Value::Null);
    assert_eq!(run["attributes"]["gen_ai.agent.name"], "courier");
    assert_eq!(run["attributes"]["gen_ai.provider.name"], "openai");
    assert_eq!(run["attributes"]["gen_ai.usage.input_tokens"], 250);
    let chats: Vec<&Value> = spans
        .iter()
        .filter(|span| span["name"] == "chat gpt-4.1-mini")
        .collect();
    assert_eq!(chats.len(), 2);
    for chat in &chats {
        assert_eq!(chat["parent_span_id"], run["span_id"]);
        assert_eq!(chat["trace_id"], run["trace_id"]);
        assert_eq!(chat["kind"], "client");
        assert_eq!(chat["attributes"]["server.address"], "127.0.0.1");
        assert_eq!(chat["attributes"]["gen_ai.request.model"], "gpt-4.1-mini");
    }
    assert_eq!(chats[0]["attributes"]["gen_ai.usage.input_tokens"], 100);
    assert_eq!(
        chats[0]["attributes"]["gen_ai.response.id"],
        "chatcmpl-trace-1"
    );
    assert_eq!(
        chats[1]["attributes"]["gen_ai.response.id"],
        "chatcmpl-trace-2"
    );
    assert_eq!(chats[0]["attributes"]["gen_ai.usage.output_tokens"], 20);
    let call = span(&spans, "execute_tool shell_exec");
    assert_eq!(call["parent_span_id"], run["span_id"]);
    assert_eq!(call["attributes"]["gen_ai.tool.call.id"], "call_shell_01");
    assert_eq!(call["attributes"]["starweaver.tool.return_kind"], "success");
    // The command under its call: exit code and duration, never the program or the env.
    let shell = span(&spans, "shell");
    assert_eq!(shell["parent_span_id"], call["span_id"]);
    assert_eq!(shell["attributes"]["process.exit.code"], 0);
    assert!(shell["attributes"]["starweaver.shell.duration_ms"].is_i64());
    assert!(shell["attributes"].get("process.executable.name").is_none());
    let text = serde_json::to_string(&spans).unwrap();
    for absent in [KEY, TOKEN, "echo traced", "Run echo", "It printed"] {
        assert!(!text.contains(absent), "{absent} in {text}");
    }
    for key in [
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
    ] {
        assert!(
            !text.contains(key),
            "{key} recorded without --trace-content"
        );
    }
}

#[test]
fn with_trace_content_the_spans_record_content_and_still_no_secret() {
    let spans = traced(&["--trace-content"]);
    let first = &spans
        .iter()
        .find(|span| span["name"] == "chat gpt-4.1-mini")
        .unwrap()["attributes"];
    let input = first["gen_ai.input.messages"].as_str().unwrap();
    assert!(input.contains("Run echo traced"), "{input}");
    let call = span(&spans, "execute_tool shell_exec");
    assert!(call["attributes"]["gen_ai.tool.call.arguments"]
        .as_str()
        .unwrap()
        .contains("echo traced"));
    assert!(call["attributes"]["gen_ai.tool.call.result"].is_string());
    assert_eq!(
        span(&spans, "shell")["attributes"]["process.executable.name"],
        "sh"
    );
    let text = serde_json::to_string(&spans).unwrap();
    assert!(!text.contains(KEY), "the API key in {text}");
    assert!(!text.contains(TOKEN), "the secret variable in {text}");
}

#[test]
fn a_rate_limited_request_retried_by_the_client_is_a_retry_event_of_its_chat_span() {
    let limited =
        Reply::json_file(429, "openai", "rate_limited.json").with_header("retry-after", "0");
    let server = serve_after(vec![limited]);
    let spans = traced_on(&server, &[]);
    let first = spans
        .iter()
        .find(|span| {
            span["name"] == "chat gpt-4.1-mini" && span["attributes"]["starweaver.step"] == 1
        })
        .unwrap();
    let events = first["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{first}");
    assert_eq!(events[0]["name"], "retry");
    assert_eq!(events[0]["attributes"]["starweaver.retry.attempt"], 1);
    assert_eq!(events[0]["attributes"]["http.response.status_code"], 429);
    assert_eq!(first["attributes"]["gen_ai.usage.input_tokens"], 100);
}
