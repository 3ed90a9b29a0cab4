//! Library-level tests of the run command, where the model or the tools must be chosen by the
//! test: Ctrl-C during a long shell command (the `test` model cannot be made to run one) and a
//! deferred call resumed with `--result` (the stock binary links no code tool to defer).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use starweaver_core::agent::{AgentHitlRequest, AgentStreamEvent, AgentStreamRecord};
use starweaver_core::model::ModelResponse;
use starweaver_core::model::{TestModel, ToolCallPart};
use starweaver_core::tools::{string_tool, ToolResult};
use tokio_util::sync::CancellationToken;

use super::{execute, plan, Hooks, Interrupt, RunArgs};
use crate::ui::{Answers, RunOutcome, RunUi};

/// What the watcher needs to cancel a run: the token, the command line to wait for, and where
/// to put the process group it found.
type CancelOnSleep = (CancellationToken, String, Arc<Mutex<Option<i32>>>);

/// Remembers what it saw; cancels `token` once a `sleep` with `marker` runs.
#[derive(Default)]
struct Watcher {
    outcomes: Arc<Mutex<Vec<RunOutcome>>>,
    calls: Vec<String>,
    cancel_on_sleep: Option<CancelOnSleep>,
}

impl RunUi for Watcher {
    fn record(&mut self, record: &AgentStreamRecord) {
        if let AgentStreamEvent::ToolCall { call } = &record.event {
            self.calls.push(call.name.clone());
            if let Some((token, marker, group)) = self.cancel_on_sleep.clone() {
                std::thread::spawn(move || {
                    // Generous: the process is spawned right after this record.
                    for _ in 0..3000 {
                        if let Some(pgid) = find_group(&marker) {
                            *group.lock().unwrap() = Some(pgid);
                            token.cancel();
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                });
            }
        }
    }

    fn answer(&mut self, pending: &[AgentHitlRequest]) -> Answers {
        Answers {
            interactions: Vec::new(),
            left_pending: pending
                .iter()
                .map(|r| (r.tool_call_id.clone(), "test".to_string()))
                .collect(),
        }
    }

    fn finished(&mut self, outcome: &RunOutcome) {
        self.outcomes.lock().unwrap().push(outcome.clone());
    }
}

/// The process group of a running process whose command line contains `marker`.
fn find_group(marker: &str) -> Option<i32> {
    group_members(|cmdline, _| cmdline.contains(marker))
        .first()
        .map(|(_, pgid)| *pgid)
}

/// `(pid, pgid)` of live processes (not zombies) for which `wanted(cmdline, pgid)` holds.
fn group_members(wanted: impl Fn(&str, i32) -> bool) -> Vec<(i32, i32)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // Fields after the `(comm)`: state, ppid, pgrp. A zombie has ended; only its parent's
        // reaping is left.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        let pgid = fields.get(2).and_then(|pgid| pgid.parse::<i32>().ok());
        if fields.first() == Some(&"Z") {
            continue;
        }
        if let Some(pgid) = pgid {
            if wanted(&cmdline, pgid) {
                found.push((pid, pgid));
            }
        }
    }
    found
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_a_long_shell_command_kills_its_group_and_saves() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "sleeper.yaml",
        "version: 1\nname: sleeper\nmodel: {id: test}\nenvironment: {type: local}\n\
         shell: {allow_execute: true, allowed_programs: [sleep]}\n\
         toolsets:\n  - type: shell\n    tools: [shell_exec]\n",
    );
    // A duration no other process uses, to find this one.
    let marker = "sleep 31.4159";
    let model = TestModel::scripted([
        ModelResponse::tool_calls([ToolCallPart::new(
            "call-1",
            "shell_exec",
            json!({"program": "sleep", "args": ["31.4159"]}),
        )]),
        ModelResponse::text("never reached"),
    ]);
    let interrupt = Interrupt::default();
    let token = interrupt.cancel.clone();
    let group = Arc::new(Mutex::new(None));
    let mut ui = Watcher {
        cancel_on_sleep: Some((token.clone(), marker.to_string(), group.clone())),
        ..Watcher::default()
    };
    let save = dir.path().join("run.json");
    let args = RunArgs {
        manifest: Some(manifest),
        prompt: Some("sleep".to_string()),
        save: Some(save.clone()),
        ..RunArgs::default()
    };
    let hooks = Hooks {
        model: Some(Arc::new(model)),
        tools: None,
    };
    let planned = plan(&args, || Err("no stdin".to_string())).unwrap();
    let status = tokio::time::timeout(
        Duration::from_secs(60),
        execute(planned, &args, &hooks, &mut ui, interrupt),
    )
    .await
    .expect("the cancelled run ends")
    .unwrap();
    assert_eq!(status, 1);
    let pgid = group.lock().unwrap().expect("the sleep process was seen");
    // The kill is sent as the call is dropped; give the signal a generous while to land.
    for _ in 0..1000 {
        if group_members(|_, member| member == pgid).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        group_members(|_, member| member == pgid).is_empty(),
        "processes of group {pgid} are still alive"
    );
    let outcomes = ui.outcomes.lock().unwrap();
    assert!(
        matches!(&outcomes[..], [RunOutcome::Cancelled { saved_to: Some(path) }] if *path == save),
        "{outcomes:?}"
    );
    let saved = std::fs::read_to_string(&save).unwrap();
    assert!(saved.contains("\"format\": \"starweaver-run\""), "{saved}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deferred_call_waits_saves_and_resumes_with_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "jobs.yaml",
        "version: 1\nname: jobs\nmodel: {id: test}\n\
         toolsets:\n  - type: deferred\n    name: jobs\n    tools: [render]\n",
    );
    let render = string_tool(
        "render",
        Some("Render a video".to_string()),
        json!({"type": "object", "properties": {}}),
        |_ctx, _args| async move { Ok(ToolResult::new(json!("rendered here"))) },
    );
    let render: starweaver_core::tools::DynTool = Arc::new(render);
    let hooks = Hooks {
        model: None,
        tools: Some(Arc::new(move |name: &str| {
            (name == "render").then(|| render.clone())
        })),
    };
    let save = dir.path().join("run.json");
    let first = RunArgs {
        manifest: Some(manifest),
        prompt: Some("render it".to_string()),
        save: Some(save.clone()),
        ..RunArgs::default()
    };
    let mut ui = Watcher::default();
    let planned = plan(&first, || Err("no stdin".to_string())).unwrap();
    let status = execute(planned, &first, &hooks, &mut ui, Interrupt::default())
        .await
        .unwrap();
    assert_eq!(status, 3);
    let call_id = match &ui.outcomes.lock().unwrap()[..] {
        [RunOutcome::Waiting {
            pending,
            saved_to: Some(_),
            ..
        }] => pending[0].tool_call_id.clone(),
        other => panic!("{other:?}"),
    };

    // A second session, from the file alone, with the worker's result.
    let wrong = RunArgs {
        resume: Some(save.clone()),
        results: vec![("nope".to_string(), "1".to_string())],
        ..RunArgs::default()
    };
    let error = plan(&wrong, || Err("no stdin".to_string())).unwrap_err();
    assert_eq!(error.status, 2);
    assert!(error.message.contains(&call_id), "{}", error.message);
    let resume = RunArgs {
        resume: Some(save),
        results: vec![(call_id, "{\"video\": \"out.mp4\"}".to_string())],
        ..RunArgs::default()
    };
    let mut ui = Watcher::default();
    let planned = plan(&resume, || Err("no stdin".to_string())).unwrap();
    let status = execute(planned, &resume, &hooks, &mut ui, Interrupt::default())
        .await
        .unwrap();
    assert_eq!(status, 0);
    match &ui.outcomes.lock().unwrap()[..] {
        [RunOutcome::Completed { output, .. }] => assert!(output.contains("out.mp4"), "{output}"),
        other => panic!("{other:?}"),
    };
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_a_resumed_call_cancels_it_kills_its_group_and_saves() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "careful.yaml",
        "version: 1\nname: careful\nmodel: {id: test}\nenvironment: {type: local}\n\
         shell: {allow_execute: true, allowed_programs: [sleep]}\n\
         toolsets:\n  - type: shell\n    tools: [shell_exec]\n    approval_required: true\n",
    );
    let call = ModelResponse::tool_calls([ToolCallPart::new(
        "call-1",
        "shell_exec",
        json!({"program": "sleep", "args": ["27.1828"]}),
    )]);
    let save = dir.path().join("run.json");
    let first = RunArgs {
        manifest: Some(manifest),
        prompt: Some("sleep".to_string()),
        save: Some(save.clone()),
        ..RunArgs::default()
    };
    let hooks = Hooks {
        model: Some(Arc::new(TestModel::scripted([call]))),
        tools: None,
    };
    let planned = plan(&first, || Err("no stdin".to_string())).unwrap();
    let mut ui = Watcher::default();
    let status = execute(planned, &first, &hooks, &mut ui, Interrupt::default())
        .await
        .unwrap();
    assert_eq!(status, 3);

    // The second process approves; the approved call runs; Ctrl-C comes while it does.
    let interrupt = Interrupt::default();
    let group = Arc::new(Mutex::new(None));
    let mut ui = Watcher {
        cancel_on_sleep: Some((
            interrupt.cancel.clone(),
            "sleep 27.1828".to_string(),
            group.clone(),
        )),
        ..Watcher::default()
    };
    let resume = RunArgs {
        resume: Some(save.clone()),
        yes: true,
        save: Some(save.clone()),
        ..RunArgs::default()
    };
    let hooks = Hooks {
        model: Some(Arc::new(TestModel::scripted([ModelResponse::text("done")]))),
        tools: None,
    };
    let planned = plan(&resume, || Err("no stdin".to_string())).unwrap();
    // The approved call runs before any new record: watch for the process from the start.
    ui.record(&AgentStreamRecord {
        sequence: 0,
        run_id: starweaver_core::context::RunId::default(),
        event: AgentStreamEvent::ToolCall {
            call: ToolCallPart::new("watch", "shell_exec", json!({})),
        },
    });
    let status = tokio::time::timeout(
        Duration::from_secs(60),
        execute(planned, &resume, &hooks, &mut ui, interrupt),
    )
    .await
    .expect("the cancelled resume ends")
    .unwrap();
    assert_eq!(status, 1);
    let pgid = group.lock().unwrap().expect("the sleep process was seen");
    for _ in 0..1000 {
        if group_members(|_, member| member == pgid).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(group_members(|_, member| member == pgid).is_empty());
    // The resume watched the token: the call was cancelled (not dropped), so the saved run is
    // a cancelled one, with the call's return, that a new prompt continues.
    assert!(
        matches!(
            &ui.outcomes.lock().unwrap()[..],
            [RunOutcome::Cancelled { saved_to: Some(_) }]
        ),
        "{:?}",
        ui.outcomes.lock().unwrap()
    );
    let saved = super::save::SaveFile::read(&save).unwrap().state().unwrap();
    assert!(saved.pending().is_empty());
    assert_eq!(saved.failed_run().unwrap().error, "the run was cancelled");
    let text = serde_json::to_string(&saved.messages).unwrap();
    assert!(text.contains("tool `shell_exec` was cancelled"), "{text}");
}
