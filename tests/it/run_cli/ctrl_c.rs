//! Ctrl-C during a long shell command, as the built binary gets it: the command's whole process
//! group is killed and the run ends cancelled.
//!
//! The `test` model never asks for `sleep`, but a saved run can hold that call: the waiting
//! session is built here with the library and a scripted model, written as a save file, and
//! the binary resumes it with `--yes`, which runs the approved call.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use starweaver::config::load::{load, LoadOptions};
use starweaver::config::validate::{check_manifest, CheckContext};
use starweaver::model::{ModelResponse, ToolCallPart};
use starweaver::TestModel;

use super::{folder, stderr, stdout};

/// A duration no other process on the machine uses, so its command line finds it.
const SECONDS: &str = "37.25";
/// The same, as a duration: a `sleep` started after the binary cannot end by itself sooner,
/// so one gone before then was killed. (Short, so a sleep a failed test leaks soon ends.)
const SLEEP: Duration = Duration::from_millis(37_250);

/// Generous, for a loaded machine: only a bound on how long a broken build may hang the test.
const DEADLINE: Duration = Duration::from_secs(120);

const MANIFEST: &str = "version: 1\nname: sleeper\nmodel: {id: test}\nenvironment: {type: local}\n\
shell: {allow_execute: true, allowed_programs: [sleep]}\n\
toolsets:\n  - type: shell\n    tools: [shell_exec]\n    approval_required: [shell_exec]\n";

/// Writes a save file in `dir` holding a run that waits to approve `sleep SECONDS`.
async fn save_a_waiting_sleep(dir: &Path) -> std::path::PathBuf {
    let manifest_path = dir.join("sleeper.yaml");
    let (_, checked) = check_manifest(MANIFEST.as_bytes(), &CheckContext::new().with_base_dir(dir));
    let checked = checked.unwrap();
    let model = TestModel::scripted([ModelResponse::tool_calls([ToolCallPart::new(
        "call-1",
        "shell_exec",
        json!({"program": "sleep", "args": [SECONDS]}),
    )])]);
    let options = LoadOptions::new().with_model(Arc::new(model));
    let mut session = load(&checked, &options).await.unwrap().session;
    let result = session.run("sleep a while").await.unwrap();
    assert!(result.is_waiting(), "{result:?}");
    assert_eq!(session.pending()[0].tool_name, "shell_exec");
    let state: serde_json::Value =
        serde_json::from_str(&session.export_state().to_json().unwrap()).unwrap();
    // The layout `--save` writes (docs/cli.md, "Save and resume").
    let file = json!({
        "format": "starweaver-run",
        "version": 1,
        "manifest": std::fs::canonicalize(&manifest_path).unwrap(),
        "vars": {},
        "session": state,
    });
    let path = dir.join("run.json");
    std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    path
}

/// Live processes (not zombies) whose command line is `sleep SECONDS` (the program by any path:
/// the shell toolset runs it by the absolute path it resolved).
fn sleepers() -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline);
        let argv: Vec<&str> = cmdline.split_terminator('\0').collect();
        let is_sleep = argv.first().is_some_and(|program| {
            Path::new(program).file_name() == Some(std::ffi::OsStr::new("sleep"))
        });
        if !is_sleep || argv[1..] != [SECONDS] {
            continue;
        }
        // The state follows the `(comm)` field; a zombie has ended, only its reaping is left.
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next());
        if state.is_some_and(|state| state != "Z" && state != "X") {
            found.push(pid);
        }
    }
    found
}

/// Waits (bounded) until `ready()` holds; false at the deadline or when `child` exits first.
fn wait_for(child: &mut Child, ready: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < DEADLINE {
        if ready() {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Kills the child if the test fails half-way, so no binary (or its sleep) outlives it.
struct Reaper(Option<Child>);

impl Drop for Reaper {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_a_long_shell_command_leaves_none_of_its_processes() {
    // One leaked by an earlier failed attempt ends by itself.
    let start = Instant::now();
    while !sleepers().is_empty() && start.elapsed() < SLEEP + SLEEP {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        sleepers().is_empty(),
        "a `sleep {SECONDS}` is already running"
    );
    let dir = folder(&[("sleeper.yaml", MANIFEST)]);
    let save = save_a_waiting_sleep(dir.path()).await;

    use std::os::unix::process::CommandExt as _;
    let spawned = Instant::now();
    let child = crate::common::starweaver_binary()
        .current_dir(dir.path())
        .args(["run", "--resume"])
        .arg(&save)
        .arg("--yes")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // A group of its own: the signal reaches the binary only, as a terminal's Ctrl-C
        // reaches its foreground job.
        .process_group(0)
        .spawn()
        .unwrap();
    let mut reaper = Reaper(Some(child));
    let child = reaper.0.as_mut().unwrap();
    let started = wait_for(child, || !sleepers().is_empty());
    if !started {
        let output = reaper.0.take().unwrap().wait_with_output().unwrap();
        panic!(
            "`sleep {SECONDS}` never ran\nstdout:\n{}\nstderr:\n{}",
            stdout(&output),
            stderr(&output)
        );
    }

    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let output = reaper.0.take().unwrap().wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&output),
        stderr(&output)
    );
    let said = format!("{}{}", stdout(&output), stderr(&output));
    assert!(said.contains("cancelled"), "{said}");

    // The binary has exited; its sleep must be gone too (the kill may still be landing). Wait
    // no longer than the sleep could have lasted by itself, or its end would prove nothing.
    let natural_end = spawned + SLEEP;
    while !sleepers().is_empty() && Instant::now() < natural_end {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        Instant::now() < natural_end,
        "inconclusive: the run took longer than `sleep {SECONDS}` lasts by itself; \
         the machine is too loaded for this test"
    );
    assert_eq!(
        sleepers(),
        Vec::<i32>::new(),
        "`sleep {SECONDS}` outlived the run"
    );
}
