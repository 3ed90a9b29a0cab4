//! `starweaver run` on manifests naming `openai:` and `anthropic:` models, against a loopback
//! server that speaks each protocol: a multi-step run with filesystem tools on a local
//! environment, streamed and whole, to its answer.

use std::path::Path;

use super::{assert_status, stderr, stdout};
use crate::common::loopback::{LoopbackServer, Reply};
use crate::common::starweaver_binary;

/// The variable the manifests read their key from, and the key the tests put in it.
const KEY_VARIABLE: &str = "STARWEAVER_TEST_PROVIDER_KEY";
const KEY: &str = "sk-test-loopback-0123456789";

/// A folder with `notes.txt` and a manifest for `id` at `server`.
fn project(id: &str, server: &LoopbackServer, stream: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "Remember the milk.\n").unwrap();
    let manifest = format!(
        "version: 1\nname: reader\nmodel:\n  id: \"{id}\"\n  base_url: \"{}/v1\"\n  api_key_env: {KEY_VARIABLE}\n  stream: {stream}\n  settings: {{temperature: 0.2, max_tokens: 256}}\ninstructions: Answer from the files.\nenvironment: {{type: local, root: .}}\ntoolsets:\n  - type: filesystem\n    tools: [ls, read_file]\n",
        server.base_url()
    );
    std::fs::write(dir.path().join("reader.yaml"), manifest).unwrap();
    dir
}

/// `starweaver run reader.yaml` in `dir` with a question about the folder, no standard input.
fn reader(dir: &Path) -> std::process::Command {
    let mut command = starweaver_binary();
    command
        .current_dir(dir)
        .args(["run", "reader.yaml", "--prompt", "What is in the folder?"])
        .stdin(std::process::Stdio::null());
    command
}

/// Runs the reader with its key set.
fn run_reader(dir: &Path) -> std::process::Output {
    reader(dir).env(KEY_VARIABLE, KEY).output().unwrap()
}

/// Runs the scripted two-round conversation and checks the answer, the tool results that
/// went back to the model, and that the key went only where it belongs.
fn completes(provider: &str, id: &str, stream: bool) {
    let (round, last) = if stream {
        (
            Reply::sse_file(provider, "tool_round_1.sse"),
            Reply::sse_file(provider, "final.sse"),
        )
    } else {
        (
            Reply::json_file(200, provider, "tool_round_1.json"),
            Reply::json_file(200, provider, "final.json"),
        )
    };
    let server = LoopbackServer::start(vec![round, last]);
    let dir = project(id, &server, stream);
    let output = run_reader(dir.path());
    assert_status(&output, 0);
    let out = stdout(&output);
    assert!(out.contains("The folder holds notes.txt"), "{out}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let path = if provider == "openai" {
        "/v1/chat/completions"
    } else {
        "/v1/messages"
    };
    for request in &requests {
        assert_eq!(request.path, path);
        assert_eq!(
            request.json_body()["stream"].as_bool().unwrap_or(false),
            stream
        );
    }
    // The second request carries both tool results, the file's content among them.
    let second = requests[1].json_body().to_string();
    assert!(second.contains("Remember the milk."), "{second}");
    assert!(second.contains("notes.txt"), "{second}");
    let key_header = if provider == "openai" {
        requests[0].header("authorization").map(str::to_string)
    } else {
        requests[0].header("x-api-key").map(str::to_string)
    };
    assert!(key_header.unwrap_or_default().ends_with(KEY));
    assert!(!out.contains(KEY) && !stderr(&output).contains(KEY));
}

#[test]
fn an_openai_model_completes_a_streamed_tool_run() {
    completes("openai", "openai:gpt-4o-mini", true);
}

#[test]
fn an_openai_model_completes_a_whole_answer_tool_run() {
    completes("openai", "openai:gpt-4o-mini", false);
}

#[test]
fn an_anthropic_model_completes_a_streamed_tool_run() {
    completes("anthropic", "anthropic:claude-sonnet-4-5", true);
}

#[test]
fn an_anthropic_model_completes_a_whole_answer_tool_run() {
    completes("anthropic", "anthropic:claude-sonnet-4-5", false);
}

#[test]
fn a_missing_key_variable_fails_before_any_request_and_names_it() {
    let server = LoopbackServer::start(Vec::new());
    let dir = project("openai:gpt-4o-mini", &server, true);
    let output = reader(dir.path())
        .env_remove(KEY_VARIABLE)
        .output()
        .unwrap();
    assert_status(&output, 1);
    let err = stderr(&output);
    assert!(
        err.contains(KEY_VARIABLE) && err.contains("not set"),
        "{err}"
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_provider_error_shows_the_providers_own_message() {
    let server = LoopbackServer::start(vec![Reply::json_file(400, "openai", "bad_request.json")]);
    let dir = project("openai:gpt-4o-mini", &server, false);
    let output = run_reader(dir.path());
    assert_status(&output, 1);
    let err = stderr(&output);
    let expected = crate::common::loopback::fixture_json("openai", "bad_request.json");
    let message = expected["error"]["message"].as_str().unwrap_or_default();
    assert!(err.contains("HTTP 400") && err.contains(message), "{err}");
    assert_eq!(server.requests().len(), 1, "a 400 is not retried");
}

#[test]
fn a_manifest_without_a_base_url_cannot_leave_loopback_in_tests() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("reader.yaml"),
        "version: 1\nname: reader\nmodel: {id: 'openai:gpt-4o-mini'}\n",
    )
    .unwrap();
    let output = reader(dir.path())
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    assert_status(&output, 1);
    let err = stderr(&output);
    assert!(
        err.contains("api.openai.com") && err.contains("STARWEAVER_MODEL_HOSTS"),
        "{err}"
    );
}
