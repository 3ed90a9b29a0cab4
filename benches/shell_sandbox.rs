//! What the kernel sandbox costs a command, side by side in one run:
//! running `true` to its end through the local provider with the sandbox
//! on (`SandboxPolicy::default()`: writes in the root and a private
//! temporary folder, network off, Landlock and seccomp), with it off
//! (`SandboxPolicy::off()`: no Landlock, no seccomp; the start thread,
//! its tag and the sweep for escapees still run), and as a user would
//! otherwise start it.
//!
//! Measured (group `shell_sandbox`), all on one multi-thread Tokio
//! runtime of 2 workers:
//!
//! * `shell_exec/program_true/{sandboxed,unsandboxed}`: the `shell_exec`
//!   tool with `{"program": "true"}` through `ToolRegistry::execute_call`,
//!   as in the `local_environment` bench (no `/bin/sh`: the spawn itself).
//! * `run_program/true/{sandboxed,unsandboxed}`: the provider's own
//!   `run_program(&ProgramCommand::new("true", []))`, without the tool
//!   layer.
//! * `bare/tokio_spawn_wait/true`:
//!   `tokio::process::Command::new("true").spawn()?.wait().await`;
//!   `bare/tokio_output/true`: the same with both streams piped and read
//!   (`.output().await`), as the provider captures them;
//!   `bare/std_status/true`: `std::process::Command::new("true").status()`.
//! * The shell form: `shell_exec/command_true/{sandboxed,unsandboxed}`
//!   (`{"command": "true"}`, `/bin/sh -c true`) against
//!   `bare/tokio_sh_c_true` and `bare/std_sh_c_true`.
//!
//! Before timing, each provider runs `true` once and its result is
//! checked: exit code 0, and the sandbox it reports (fully enforced for
//! the sandboxed one, off for the other), so the sandboxed numbers are
//! not those of a kernel that enforced nothing.
//!
//! The root is `target/bench-shell-sandbox` (empty). Run with
//! `cargo bench --bench shell_sandbox`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::local_tool_context;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_main, Criterion};
use serde_json::{json, Value};
use starweaver::environment::{
    EnvironmentProvider, LocalEnvironmentProvider, ProcessStatus, ProgramCommand, SandboxMode,
    SandboxPolicy,
};
use starweaver::model::ToolCallPart;
use starweaver::{shell_tools, ToolContext, ToolRegistry};

fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-shell-sandbox");
    std::fs::create_dir_all(&root).unwrap();
    root
}

fn call(arguments: Value) -> ToolCallPart {
    ToolCallPart {
        id: "bench".to_string(),
        name: "shell_exec".to_string(),
        arguments: arguments.into(),
    }
}

/// One provider of each kind, with its tool context.
struct Side {
    name: &'static str,
    provider: Arc<LocalEnvironmentProvider>,
    ctx: ToolContext,
}

fn side(name: &'static str, policy: SandboxPolicy) -> Side {
    let provider = Arc::new(
        LocalEnvironmentProvider::new(root())
            .unwrap()
            .with_sandbox(policy),
    );
    Side {
        name,
        ctx: local_tool_context(provider.clone()),
        provider,
    }
}

fn bench_shell_sandbox(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let sides = [
        side("sandboxed", SandboxPolicy::default()),
        side("unsandboxed", SandboxPolicy::off()),
    ];
    let registry = ToolRegistry::new().with_toolset(&shell_tools());
    let true_program = call(json!({"program": "true"}));
    let true_command = call(json!({"command": "true"}));
    let program = ProgramCommand::new("true", [""; 0]);

    // Every side does the work, under the sandbox it claims, before timing.
    rt.block_on(async {
        for side in &sides {
            let output = side.provider.run_program(&program).await.unwrap();
            assert_eq!(output.status, ProcessStatus::Exited, "{output:?}");
            assert_eq!(output.exit_code, Some(0), "{output:?}");
            let report = output.sandbox.as_ref().expect("a sandbox report");
            if side.name == "sandboxed" {
                assert_eq!(report.mode, SandboxMode::WorkspaceWrite, "{report:?}");
                assert!(report.landlock_abi.is_some(), "{report:?}");
                assert!(report.fully_enforced(), "{report:?}");
            } else {
                assert_eq!(report.mode, SandboxMode::Off, "{report:?}");
            }
            for part in [&true_program, &true_command] {
                let shell = registry.execute_call(side.ctx.clone(), part).await;
                assert!(!shell.is_error(), "{}", shell.content);
                assert_eq!(shell.content["exit_code"], 0, "{}", shell.content);
            }
        }
        let status = tokio::process::Command::new("true")
            .spawn()
            .unwrap()
            .wait()
            .await
            .unwrap();
        assert!(status.success());
    });
    assert!(Command::new("true").status().unwrap().success());

    let mut group = c.benchmark_group("shell_sandbox");
    group
        .sample_size(50)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for side in &sides {
        let name = side.name;
        group.bench_function(format!("shell_exec/program_true/{name}"), |b| {
            b.to_async(&rt)
                .iter(|| async { registry.execute_call(side.ctx.clone(), &true_program).await });
        });
        group.bench_function(format!("run_program/true/{name}"), |b| {
            b.to_async(&rt)
                .iter(|| async { side.provider.run_program(&program).await.unwrap() });
        });
    }
    group.bench_function("bare/tokio_spawn_wait/true", |b| {
        b.to_async(&rt).iter(|| async {
            tokio::process::Command::new("true")
                .spawn()
                .unwrap()
                .wait()
                .await
                .unwrap()
        });
    });
    group.bench_function("bare/tokio_output/true", |b| {
        b.to_async(&rt)
            .iter(|| async { tokio::process::Command::new("true").output().await.unwrap() });
    });
    group.bench_function("bare/std_status/true", |b| {
        b.iter(|| Command::new("true").status().unwrap());
    });
    for side in &sides {
        let name = side.name;
        group.bench_function(format!("shell_exec/command_true/{name}"), |b| {
            b.to_async(&rt)
                .iter(|| async { registry.execute_call(side.ctx.clone(), &true_command).await });
        });
    }
    group.bench_function("bare/tokio_sh_c_true", |b| {
        b.to_async(&rt).iter(|| async {
            tokio::process::Command::new("sh")
                .args(["-c", "true"])
                .spawn()
                .unwrap()
                .wait()
                .await
                .unwrap()
        });
    });
    group.bench_function("bare/std_sh_c_true", |b| {
        b.iter(|| Command::new("sh").args(["-c", "true"]).status().unwrap());
    });
    group.finish();
}

fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_shell_sandbox(&mut criterion);
}

criterion_main!(benches);
