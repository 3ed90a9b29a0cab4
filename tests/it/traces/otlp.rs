//! `--trace otlp`: spans reach a real OTLP/HTTP receiver, one built on the official protobuf
//! definitions (the `opentelemetry-proto` Python package, in the interop folder `.ci/run`
//! fills), at `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, with the headers of
//! `OTEL_EXPORTER_OTLP_HEADERS`, all flushed before the command exits.

use std::io::BufRead as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::{project, prompt, read_spans, serve, KEY, KEY_VARIABLE, TOKEN};
use crate::common::starweaver_binary;

/// The interop folder's Python, when it has the OTLP protobuf definitions; a one-line notice
/// (a failure where the interop tests are required) when it does not.
fn receiver_python() -> Option<PathBuf> {
    let dir = std::env::var_os("STARWEAVER_INTEROP_DIR").map_or_else(
        || std::env::temp_dir().join("starweaver-interop"),
        PathBuf::from,
    );
    let python = dir.join("venv/bin/python");
    let found = Command::new(&python)
        .args([
            "-c",
            "import opentelemetry.proto.collector.trace.v1.trace_service_pb2",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        let reason = format!(
            "{} cannot import opentelemetry-proto (`.ci/run` installs it)",
            python.display()
        );
        let required =
            std::env::var("STARWEAVER_INTEROP_TESTS").is_ok_and(|value| value == "required");
        assert!(
            !required,
            "the OTLP interop test is required here, but {reason}"
        );
        eprintln!("skipped the OTLP interop test: {reason}");
        return None;
    }
    Some(python)
}

/// The receiver, writing to `out`, and its port.
struct Receiver {
    child: Child,
    port: u16,
}

impl Receiver {
    fn start(python: &PathBuf, out: &std::path::Path) -> Self {
        let script =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/traces/otlp_receiver.py");
        let mut child = Command::new(python)
            .arg(script)
            .arg(out)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap();
        Self { child, port }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn an_otlp_receiver_gets_every_span_as_protobuf_at_v1_traces_before_the_command_exits() {
    let Some(python) = receiver_python() else {
        return;
    };
    let server = serve();
    let dir = project(&server);
    let received = dir.path().join("received.jsonl");
    let receiver = Receiver::start(&python, &received);
    let output = starweaver_binary()
        .current_dir(dir.path())
        .args(["run", "agent.yaml", "--prompt", &prompt(), "--var"])
        .arg(format!("token={TOKEN}"))
        .args(["--trace", "otlp", "--trace-content"])
        .env(KEY_VARIABLE, KEY)
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{}", receiver.port),
        )
        .env(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=Bearer collector-token",
        )
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // The command has exited: everything it traced is at the receiver already.
    let spans = read_spans(&received);
    let names: Vec<&str> = spans
        .iter()
        .filter_map(|span| span["name"].as_str())
        .collect();
    for expected in [
        "invoke_agent courier",
        "chat gpt-4.1-mini",
        "execute_tool shell_exec",
        "shell",
    ] {
        assert!(names.contains(&expected), "{expected} not in {names:?}");
    }
    for span in &spans {
        assert_eq!(span["path"], "/v1/traces");
        assert_eq!(span["content_type"], "application/x-protobuf");
        assert_eq!(span["authorization"], "Bearer collector-token");
        assert_eq!(span["scope"], "starweaver");
        assert_eq!(span["resource"]["service.name"], "starweaver");
        assert!(span["resource"].get("process.command_args").is_none());
    }
    let run = spans
        .iter()
        .find(|span| span["name"] == "invoke_agent courier")
        .unwrap();
    let call = spans
        .iter()
        .find(|span| span["name"] == "execute_tool shell_exec")
        .unwrap();
    assert_eq!(call["parent_span_id"], run["span_id"]);
    assert_eq!(call["trace_id"], run["trace_id"]);
    assert_eq!(call["attributes"]["gen_ai.tool.call.id"], "call_shell_01");
    // SPAN_KIND_CLIENT is 3 in the protobuf definitions.
    let chat = spans
        .iter()
        .find(|span| span["name"] == "chat gpt-4.1-mini")
        .unwrap();
    assert_eq!(chat["kind"], Value::from(3));
    let text = serde_json::to_string(&spans).unwrap();
    assert!(!text.contains(KEY), "the API key reached the collector");
    assert!(
        !text.contains(TOKEN),
        "the secret variable reached the collector"
    );
}
