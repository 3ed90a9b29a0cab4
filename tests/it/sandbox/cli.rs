//! Through `starweaver run`, on a manifest naming an `openai:` model at a
//! loopback server: the model's own HTTP client keeps working under
//! `network: false` while the commands it asks for are confined, and no
//! process a command started outlives the run.

use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::loopback::{LoopbackServer, Reply};
use crate::common::starweaver_binary;

use super::{enforced, pid_in, running};

const KEY_VARIABLE: &str = "STARWEAVER_TEST_PROVIDER_KEY";

/// An OpenAI answer calling `shell_exec` with `arguments`.
pub fn shell_call(arguments: Value) -> Reply {
    shell_calls(&[arguments])
}

/// A loopback server that answers with one `shell_exec` call of
/// `arguments`, then "Done.".
pub fn serve(arguments: Value) -> LoopbackServer {
    LoopbackServer::start(vec![shell_call(arguments), answer("Done.")])
}

/// An OpenAI final answer.
pub fn answer(text: &str) -> Reply {
    Reply::json(
        200,
        json!({
            "id": "chatcmpl-sandbox-2",
            "object": "chat.completion",
            "created": 1_764_547_201,
            "model": "gpt-4.1-mini",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }],
            "usage": {"prompt_tokens": 150, "completion_tokens": 5, "total_tokens": 155},
        }),
    )
}

/// A folder holding `agent.yaml` for `server`, with a local environment
/// on the folder, the shell tools, and `sandbox` (YAML lines under
/// `shell:`, or empty for the default).
pub fn project(server: &LoopbackServer, sandbox: &str) -> tempfile::TempDir {
    project_with(server, sandbox, "[shell_exec]")
}

/// [`project`] with the shell tools `tools`.
pub fn project_with(server: &LoopbackServer, sandbox: &str, tools: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let manifest = format!(
        "version: 1\nname: hostile\nmodel:\n  id: \"openai:gpt-4.1-mini\"\n  base_url: \"{}/v1\"\n  \
         api_key_env: {KEY_VARIABLE}\n  stream: false\ninstructions: Run what you are asked.\n\
         environment: {{type: local, root: .}}\nshell:\n  allow_execute: true\n{sandbox}\
         toolsets:\n  - type: shell\n    tools: {tools}\n",
        server.base_url()
    );
    std::fs::write(dir.path().join("agent.yaml"), manifest).unwrap();
    dir
}

/// Runs the agent in `dir` to its end.
pub fn run(dir: &Path) -> std::process::Output {
    let output = starweaver_binary()
        .current_dir(dir)
        .args(["run", "agent.yaml", "--prompt", "Go."])
        .env(KEY_VARIABLE, "sk-test-loopback-0123456789")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The tool return the model got back, as the second request carries it.
pub fn tool_result(server: &LoopbackServer) -> String {
    tool_results(server).into_iter().next().unwrap_or_default()
}

#[test]
fn a_run_confines_its_commands_while_the_model_client_connects() {
    if !enforced() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "echo inside > inside.txt; echo out > {}/escaped.txt; echo write=$?; \
         python3 -c 'import socket\ntry:\n    socket.create_connection((\"127.0.0.1\", {port}), timeout=5)\n    print(\"tcp connected\")\nexcept OSError as error:\n    print(\"tcp refused\", error.errno)'",
        outside.path().display()
    );
    let server = serve(json!({"command": script}));
    let dir = project(&server, "");
    let output = run(dir.path());
    assert!(String::from_utf8_lossy(&output.stdout).contains("Done."));
    let result = tool_result(&server);
    assert!(result.contains("write=2"), "{result}");
    assert!(result.contains("tcp refused 13"), "{result}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("inside.txt")).unwrap(),
        "inside\n"
    );
    assert!(!outside.path().join("escaped.txt").exists());
    assert!(
        listener.accept().is_err(),
        "the command's connection went through"
    );
}

#[test]
fn no_process_a_command_started_outlives_the_run() {
    if !enforced() {
        return;
    }
    let script = "setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' & \
                  (sh -c 'echo $$ > forked.pid; exec sleep 300' &); \
                  while [ ! -s escaped.pid ] || [ ! -s forked.pid ]; do sleep 0.01; done; echo started";
    let server = serve(json!({"command": script}));
    let dir = project(&server, "");
    run(dir.path());
    assert!(tool_result(&server).contains("started"));
    for name in ["escaped.pid", "forked.pid"] {
        let pid = pid_in(&dir.path().join(name));
        assert!(!running(pid), "{name}: {pid} outlived the run");
    }
}

#[test]
fn a_gib_of_output_keeps_the_whole_process_small() {
    if !enforced() {
        return;
    }
    let server =
        serve(json!({"command": "head -c 1073741824 /dev/zero | tr '\\0' x; echo finished >&2"}));
    let dir = project(&server, "");
    let mut child = starweaver_binary()
        .current_dir(dir.path())
        .args(["run", "agent.yaml", "--prompt", "Go."])
        .env(KEY_VARIABLE, "sk-test-loopback-0123456789")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let status = loop {
        if let Ok(status) = std::fs::read_to_string(&status_file) {
            if let Some(kib) = status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            {
                peak_kib = peak_kib.max(kib);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let result = tool_result(&server);
    assert!(result.contains("finished"), "{result}");
    assert!(
        result.contains("1073741824"),
        "{}",
        &result[result.len().saturating_sub(600)..]
    );
    assert!(peak_kib > 0, "the peak was never read");
    assert!(peak_kib < 128 * 1024, "peak resident memory {peak_kib} KiB");
}

#[test]
fn a_read_only_manifest_leaves_its_checkout_unchanged() {
    if !enforced() {
        return;
    }
    let server =
        serve(json!({"command": "git branch x; touch f; echo ran; git branch --list | wc -l"}));
    let dir = project(&server, "  sandbox: {mode: read-only}\n");
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    git(&["init", "-q"]);
    git(&["add", "agent.yaml"]);
    git(&["commit", "-qm", "first"]);
    run(dir.path());
    let result = tool_result(&server);
    assert!(result.contains("ran\\n1\\n"), "{result}");
    assert_eq!(git(&["branch", "--list", "x"]), "", "a branch was created");
    assert!(!dir.path().join("f").exists(), "touch created a file");
}

#[test]
fn network_true_in_a_manifest_lets_commands_connect() {
    if !enforced() {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "python3 -c 'import socket\nsocket.create_connection((\"127.0.0.1\", {port}), timeout=5).close()\nprint(\"tcp connected\")'"
    );
    let server = serve(json!({"command": script}));
    let dir = project(&server, "  sandbox: {network: true}\n");
    run(dir.path());
    assert!(tool_result(&server).contains("tcp connected"));
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_ok(), "no connection arrived");
}

/// Whether this process runs as root.
fn root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|line| line.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            == Some("0")
    })
}

// As root, the run drops to `nobody` (no capabilities): the Landlock probe
// needed no_new_privs there, and the escapees were found by a timer slack
// only root may read, so both failed for every user but root.
#[test]
fn an_unprivileged_run_is_confined_and_leaves_nothing_behind() {
    use std::os::unix::fs::PermissionsExt;
    if !enforced() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    std::fs::set_permissions(outside.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let script = format!(
        "echo inside > inside.txt; echo out > {}/escaped.txt; echo write=$?; \
         setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' & \
         while [ ! -s escaped.pid ]; do sleep 0.01; done; echo started",
        outside.path().display()
    );
    let server = serve(json!({"command": script}));
    let dir = project(&server, "");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut command = starweaver_binary();
    if root() {
        // The same binary and variables, started by `setpriv` as nobody.
        let mut dropped = std::process::Command::new("setpriv");
        dropped
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--inh-caps=-all",
            ])
            .arg("--")
            .arg(command.get_program());
        for (name, value) in command.get_envs() {
            if let Some(value) = value {
                dropped.env(name, value);
            }
        }
        command = dropped;
    }
    let output = command
        .current_dir(dir.path())
        .args(["run", "agent.yaml", "--prompt", "Go."])
        .env(KEY_VARIABLE, "sk-test-loopback-0123456789")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let result = tool_result(&server);
    assert!(result.contains("write=2"), "{result}");
    assert!(result.contains("started"), "{result}");
    assert!(dir.path().join("inside.txt").exists());
    assert!(!outside.path().join("escaped.txt").exists());
    let pid = pid_in(&dir.path().join("escaped.pid"));
    assert!(!running(pid), "{pid} outlived the unprivileged run");
}

// What a background process started outside its group goes when the run
// ends, whether its supervisor or the provider's drop gets to it first.
#[test]
fn a_background_processs_escapees_do_not_outlive_the_run() {
    if !enforced() {
        return;
    }
    let script = "setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' & \
                  while [ ! -s escaped.pid ]; do sleep 0.01; done; echo started; sleep 300";
    let server = LoopbackServer::start(vec![
        shell_call(json!({"command": script, "background": true})),
        shell_call(
            json!({"command": "while [ ! -s escaped.pid ]; do sleep 0.01; done; echo seen"}),
        ),
        answer("Done."),
    ]);
    let dir = project_with(&server, "", "[shell_exec, shell_status]");
    run(dir.path());
    let path = dir.path().join("escaped.pid");
    assert!(
        path.exists(),
        "the background process did not start its escapee"
    );
    let pid = pid_in(&path);
    assert!(!running(pid), "{pid} outlived the run");
}

/// An OpenAI answer calling `shell_exec` once for each of `calls`.
pub fn shell_calls(calls: &[Value]) -> Reply {
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(index, arguments)| {
            json!({
                "id": format!("call_shell_{index:02}"),
                "type": "function",
                "function": {"name": "shell_exec", "arguments": arguments.to_string()},
            })
        })
        .collect();
    Reply::json(
        200,
        json!({
            "id": "chatcmpl-sandbox-many",
            "object": "chat.completion",
            "created": 1_764_547_200,
            "model": "gpt-4.1-mini",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": null, "tool_calls": calls},
                "finish_reason": "tool_calls",
            }],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        }),
    )
}

/// The tool returns the model got back, in call order (the second
/// request carries them).
pub fn tool_results(server: &LoopbackServer) -> Vec<String> {
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    requests[1].json_body()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| message["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn the_hostile_cases_through_a_manifest() {
    if !enforced() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let out = |name: &str| outside.path().join(name).display().to_string();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    let server = LoopbackServer::start(vec![
        shell_calls(&[
            json!({"program": "tee", "args": ["tee.txt", out("tee.txt")], "stdin": "data\n"}),
            json!({"program": "git", "args": ["-c", format!("alias.x=!echo alias > alias.txt; echo pwned > {}", out("alias.txt")), "x"]}),
            json!({"command": format!("ln -s {} link && echo x > link/through.txt; echo link=$?", outside.path().display())}),
            json!({"command": format!("python3 -c 'import socket\ntry:\n    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"hi\", (\"127.0.0.1\", {udp_port}))\n    print(\"udp sent\")\nexcept OSError as error:\n    print(\"udp refused\", error.errno)'")}),
            json!({"command": "kill -0 $PPID; echo host=$?; kill -s WINCH $PPID; echo winch=$?"}),
            json!({"command": "for i in $(seq 300); do setsid sleep 3021.5 & done; echo started; sleep 300", "timeout_ms": 8000}),
        ]),
        answer("Done."),
    ]);
    let dir = project(&server, "");
    run(dir.path());
    let results = tool_results(&server);
    assert_eq!(results.len(), 6, "{results:?}");
    assert!(results[0].contains("\"exit_code\":1"), "{}", results[0]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tee.txt")).unwrap(),
        "data\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("alias.txt")).unwrap(),
        "alias\n"
    );
    assert!(results[2].contains("link=2"), "{}", results[2]);
    assert!(results[3].contains("udp refused 13"), "{}", results[3]);
    assert!(
        results[4].contains("host=1") && results[4].contains("winch=1"),
        "{}",
        results[4]
    );
    assert!(
        results[5].contains("timed_out") && results[5].contains("started"),
        "{}",
        results[5]
    );
    for name in ["tee.txt", "alias.txt", "through.txt"] {
        assert!(
            !outside.path().join(name).exists(),
            "{name} was written outside the root"
        );
    }
    let mut buffer = [0u8; 4];
    assert!(udp.recv(&mut buffer).is_err(), "a datagram went through");
    let left = super::processes_with("sleep\u{0}3021.5");
    assert!(
        left.is_empty(),
        "{} detached sleeps outlived the run",
        left.len()
    );
}
