//! The `shell_sandbox` bench's sides interleaved: one call of each side
//! per round (each round starting one side later), so a load that comes
//! and goes on a shared machine reaches every side alike. Per side: the
//! median, p10 and p90 of single calls, and the median over rounds of
//! its time divided by the bare tokio spawn's time in the same round.
//!
//! Besides the sides of `shell_sandbox` (the provider sandboxed and not,
//! through `shell_exec` and `run_program`, and bare spawns), three sides
//! rebuild the provider's start from the outside, step by step, to show
//! what each step costs without the kernel sandbox:
//!
//! * `bare/tokio_output_as_provider`: `true` with the provider's
//!   `Command` settings (resolved path, cleared environment, its own
//!   group, the root as working directory, stdin from `/dev/null`, both
//!   streams piped and read to their end);
//! * `rebuilt/start_thread`: the same, spawned from a fresh 256 KiB
//!   thread joined by the calling worker, as `spawn.rs` starts commands;
//! * `rebuilt/start_thread_sweep`: and then one look at the host's
//!   children in `/proc` as the first version of the provider's sweep
//!   made it (every thread's `children`, then each child's
//!   `timerslack_ns`; the provider now reads the main thread's list and
//!   each child's `status`).
//!
//! Run with `cargo bench --bench shell_sandbox_paired [-- ROUNDS]`
//! (default 2,000 rounds, plus a tenth to warm up); `-- only=N` runs the
//! side numbered N (from 0, in the table's order) alone, for `perf stat`
//! or `perf record`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::local_tool_context;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use starweaver::environment::{
    EnvironmentProvider, LocalEnvironmentProvider, ProgramCommand, SandboxPolicy,
};
use starweaver::model::ToolCallPart;
use starweaver::{shell_tools, ToolRegistry};

fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-shell-sandbox");
    std::fs::create_dir_all(&root).unwrap();
    root
}

fn provider(policy: SandboxPolicy) -> Arc<LocalEnvironmentProvider> {
    Arc::new(
        LocalEnvironmentProvider::new(root())
            .unwrap()
            .with_sandbox(policy),
    )
}

const SIDES: [&str; 10] = [
    "shell_exec/program_true/sandboxed",
    "shell_exec/program_true/unsandboxed",
    "run_program/true/sandboxed",
    "run_program/true/unsandboxed",
    "bare/tokio_spawn_wait/true",
    "bare/std_status/true",
    "bare/tokio_output/true",
    "bare/tokio_output_as_provider/true",
    "rebuilt/start_thread/true",
    "rebuilt/start_thread_sweep/true",
];
const BARE: usize = 4;

/// `true` started as the provider starts it, without the start thread,
/// the sandbox or the sweep: resolved path, cleared environment, its own
/// group, the root as working directory, stdin from `/dev/null`, both
/// streams piped and read to their end.
fn as_provider(root: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new("/usr/bin/true");
    command
        .current_dir(root)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(std::process::Stdio::null())
        .process_group(0)
        .kill_on_drop(true);
    command
}

/// [`as_provider`] started as the provider starts a command: from a
/// fresh thread of 256 KiB (which enters the runtime, spawns and ends),
/// joined by the calling worker; no tag, no sandbox.
async fn from_start_thread(root: &Path) -> std::process::Output {
    let mut command = as_provider(root);
    command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let runtime = tokio::runtime::Handle::current();
    let child = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("starweaver-spawn".into())
            .stack_size(256 * 1024)
            .spawn_scoped(scope, || {
                let _entered = runtime.enter();
                command.spawn()
            })
            .unwrap()
            .join()
            .unwrap()
    })
    .unwrap();
    child.wait_with_output().await.unwrap()
}

/// The look for escapees after a command (as the provider's sweep reads
/// `/proc`): the host's children from `/proc/self/task/*/children`, and
/// the timer slack of each. Returns how many carry a tag of ours.
fn sweep() -> usize {
    let mut found = 0;
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for pid in children.split_whitespace() {
            let slack =
                std::fs::read_to_string(format!("/proc/{pid}/timerslack_ns")).unwrap_or_default();
            if slack
                .trim()
                .parse::<u64>()
                .is_ok_and(|slack| slack > 50_000)
            {
                found += 1;
            }
        }
    }
    found
}

fn percentile(sorted: &[f64], at: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() - 1) as f64 * at).round() as usize;
    sorted[index]
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(2_000);
    // `only=N` runs side N alone (for `perf stat` / `perf record`).
    let only: Option<usize> = std::env::args()
        .skip(1)
        .find_map(|arg| arg.strip_prefix("only=")?.parse().ok());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let sandboxed = provider(SandboxPolicy::default());
    let unsandboxed = provider(SandboxPolicy::off());
    let contexts = [
        local_tool_context(sandboxed.clone()),
        local_tool_context(unsandboxed.clone()),
    ];
    let registry = ToolRegistry::new().with_toolset(&shell_tools());
    let part = ToolCallPart {
        id: "bench".to_string(),
        name: "shell_exec".to_string(),
        arguments: json!({"program": "true"}).into(),
    };
    let program = ProgramCommand::new("true", [""; 0]);
    let root = root();
    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); SIDES.len()];
    rt.block_on(async {
        for round in 0..rounds + rounds / 10 {
            let mut taken = [Duration::ZERO; SIDES.len()];
            // Each round starts one side later, so no side always follows
            // the same one.
            for step in 0..SIDES.len() {
                let side = (round + step) % SIDES.len();
                if only.is_some_and(|only| only != side) {
                    continue;
                }
                let started = Instant::now();
                match side {
                    0 | 1 => {
                        let result = registry.execute_call(contexts[side].clone(), &part).await;
                        assert_eq!(result.content["exit_code"], 0, "{}", result.content);
                    }
                    2 => assert_eq!(
                        sandboxed.run_program(&program).await.unwrap().exit_code,
                        Some(0)
                    ),
                    3 => assert_eq!(
                        unsandboxed.run_program(&program).await.unwrap().exit_code,
                        Some(0)
                    ),
                    4 => assert!(tokio::process::Command::new("true")
                        .spawn()
                        .unwrap()
                        .wait()
                        .await
                        .unwrap()
                        .success()),
                    5 => assert!(Command::new("true").status().unwrap().success()),
                    6 => assert!(tokio::process::Command::new("true")
                        .output()
                        .await
                        .unwrap()
                        .status
                        .success()),
                    7 => assert!(as_provider(&root).output().await.unwrap().status.success()),
                    8 => assert!(from_start_thread(&root).await.status.success()),
                    _ => {
                        assert!(from_start_thread(&root).await.status.success());
                        assert_eq!(sweep(), 0);
                    }
                }
                taken[side] = started.elapsed();
            }
            // The first tenth warms up.
            if round >= rounds / 10 {
                for (side, took) in taken.iter().enumerate() {
                    times[side].push(took.as_secs_f64() * 1e6);
                }
            }
        }
    });
    println!("{rounds} rounds, one call of each side per round (us)");
    println!("| side | median | p10 | p90 | per-round ratio to bare tokio (median) |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (side, name) in SIDES.iter().enumerate() {
        if only.is_some_and(|only| only != side) {
            continue;
        }
        let mut ratios: Vec<f64> = times[side]
            .iter()
            .zip(&times[BARE])
            .map(|(a, b)| a / b)
            .collect();
        ratios.sort_by(f64::total_cmp);
        let mut sorted = times[side].clone();
        sorted.sort_by(f64::total_cmp);
        println!(
            "| {name} | {:.0} | {:.0} | {:.0} | {} |",
            percentile(&sorted, 0.5),
            percentile(&sorted, 0.1),
            percentile(&sorted, 0.9),
            if only.is_some() {
                "-".to_string()
            } else {
                format!("{:.2}x", percentile(&ratios, 0.5))
            }
        );
    }
}
