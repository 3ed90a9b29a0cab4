//! Over stdio, standard output carries the protocol and nothing else, hostile messages do
//! not end the session, and the server exits when its standard input closes.

use std::process::Stdio;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

use super::{project, serve_command, within};

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

/// Writes each message as one line; after a request whose id is in `answered`, reads
/// standard output until its answer; then closes standard input. Returns every line of
/// standard output, the exit status and standard error.
async fn exchange(
    messages: &[String],
    answered: &[u64],
) -> (Vec<String>, std::process::ExitStatus, String) {
    let dir = project();
    let mut child = serve_command(dir.path(), "served.yaml", &[])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let mut seen = Vec::new();
    for message in messages {
        stdin.write_all(message.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
        let id = serde_json::from_str::<Value>(message)
            .ok()
            .and_then(|message| message.get("id").and_then(Value::as_u64));
        let Some(id) = id.filter(|id| answered.contains(id)) else {
            continue;
        };
        loop {
            let line = lines.next_line().await.unwrap().expect("an answer");
            let done = serde_json::from_str::<Value>(&line)
                .is_ok_and(|answer| answer.get("id").and_then(Value::as_u64) == Some(id));
            seen.push(line);
            if done {
                break;
            }
        }
    }
    drop(stdin);
    while let Some(line) = lines.next_line().await.unwrap() {
        seen.push(line);
    }
    let status = child.wait().await.unwrap();
    let mut log = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut log)
        .await
        .unwrap();
    (seen, status, log)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdout_carries_only_protocol_and_the_server_exits_when_stdin_closes() {
    within(async {
        let messages = [
            initialize().to_string(),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string(),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "read_file", "arguments": {"path": "notes.txt"}}})
            .to_string(),
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                   "params": {"name": "read_file", "arguments": {"path": "absent.txt"}}})
            .to_string(),
        ];
        let (lines, status, log) = exchange(&messages, &[1, 2, 3, 4]).await;
        assert!(status.success(), "{status:?}\n{log}");
        assert_eq!(lines.len(), 4, "{lines:?}");
        for line in &lines {
            let message: Value = serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("not protocol on stdout ({error}): {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
        }
        // What the server has to say went to standard error.
        assert!(log.contains("serving"), "{log}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_lines_do_not_end_the_session() {
    within(async {
        let mut deep = String::new();
        for _ in 0..10_000 {
            deep.push('[');
        }
        for _ in 0..10_000 {
            deep.push(']');
        }
        let messages = [
            initialize().to_string(),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
            "not json at all".to_string(),
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"read_file","arguments":{{"path":"notes.txt","x":{deep}}}}}}}"#
            ),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                   "params": {"name": "read_file", "arguments": ["notes.txt"]}})
            .to_string(),
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                   "params": {"name": "read_file", "arguments": {"path": "notes.txt"}}})
            .to_string(),
        ];
        let (lines, status, log) = exchange(&messages, &[1, 4]).await;
        assert!(status.success(), "{status:?}\n{log}");
        let last: Value = lines
            .iter()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .find(|answer| answer["id"] == 4)
            .expect("an answer to the last call");
        assert_eq!(last["result"]["isError"], false, "{lines:?}");
    })
    .await;
}
