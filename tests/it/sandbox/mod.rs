//! The kernel sandbox of local commands, tried as a hostile model would:
//! through `shell_exec` on the local provider and through `starweaver run`
//! on a manifest. Every test shows that its command ran (its output or a
//! write inside the root) before it checks what the command could not do:
//! a refused start is never a pass, but where refusing is the point.
//!
//! Where this kernel cannot enforce the default policy (no Landlock, or an
//! ABI before 4), the tests skip with a one-line notice; CI runs on a
//! kernel that enforces it.

mod cli;
mod escapees;
mod host;
mod kernel;
mod network;
mod reads;
mod signals;
mod writes;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::environment::{
    attach_process_shell, LocalEnvironmentProvider, SandboxKernel, SandboxPolicy,
};
use starweaver::model::{ToolCallPart, ToolReturnKind, ToolReturnPart};
use starweaver::{attach_environment, shell_tools, AgentContext, ToolRegistry};
use tempfile::TempDir;

use crate::common::ambient;

/// Whether this kernel enforces the default policy; prints why not.
pub fn enforced() -> bool {
    let kernel = SandboxKernel::detect();
    kernel.enforces(&SandboxPolicy::default())
        || skipped(&format!(
            "this kernel cannot enforce the shell sandbox ({})",
            kernel.missing(&SandboxPolicy::default()).join("; ")
        ))
}

/// Whether this kernel has Landlock ABI `abi`; prints why not.
pub fn has_abi(abi: u8) -> bool {
    let has = SandboxKernel::detect().landlock_abi();
    has >= abi || skipped(&format!("this kernel has Landlock ABI {has}, not {abi}"))
}

/// Prints a one-line notice and returns false, the test being skipped.
/// With `STARWEAVER_SANDBOX_TESTS=required` (CI) a skip is a failure, so
/// a kernel or image change cannot pass quietly.
fn skipped(reason: &str) -> bool {
    let required = std::env::var("STARWEAVER_SANDBOX_TESTS").is_ok_and(|value| value == "required");
    assert!(
        !required,
        "the shell sandbox's tests are required here, but {reason}"
    );
    eprintln!("skipped: {reason}");
    false
}

/// A root folder, a folder outside it, and the shell tools on a local
/// provider over the root.
pub struct Sandboxed {
    /// The environment root.
    pub root: TempDir,
    /// A folder outside the root the host can write.
    pub outside: TempDir,
    provider: Arc<LocalEnvironmentProvider>,
    registry: ToolRegistry,
}

impl Sandboxed {
    /// A provider under `policy`.
    pub fn new(policy: SandboxPolicy) -> Self {
        Self::with(|provider| provider.with_sandbox(policy))
    }

    /// A provider under the default policy.
    pub fn default_policy() -> Self {
        Self::with(|provider| provider)
    }

    /// A provider configured by `configure`.
    pub fn with(
        configure: impl FnOnce(LocalEnvironmentProvider) -> LocalEnvironmentProvider,
    ) -> Self {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let provider = Arc::new(configure(
            LocalEnvironmentProvider::new(root.path()).unwrap(),
        ));
        Self {
            root,
            outside,
            provider,
            registry: ToolRegistry::new().with_toolset(&shell_tools()),
        }
    }

    /// A path inside the root.
    pub fn inside(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    /// A path outside the root.
    pub fn out(&self, name: &str) -> PathBuf {
        self.outside.path().join(name)
    }

    /// One `shell_exec` call with `arguments`.
    pub async fn exec(&self, arguments: Value) -> ToolReturnPart {
        self.exec_tool("shell_exec", arguments).await
    }

    /// One call of the shell tool `name`.
    pub async fn exec_tool(&self, name: &str, arguments: Value) -> ToolReturnPart {
        let mut context = AgentContext::default();
        attach_environment(&mut context, self.provider.clone());
        attach_process_shell(&mut context, self.provider.clone());
        self.registry
            .execute_call(
                ambient(context),
                &ToolCallPart::new("call", name, arguments),
            )
            .await
    }

    /// `shell_exec` of a shell script that must return (its exit code
    /// may be anything); the return.
    pub async fn script(&self, script: &str) -> ToolReturnPart {
        let part = self.exec(json!({"command": script})).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::Success,
            "{script}: {}",
            part.content
        );
        part
    }
}

/// A return's standard output.
pub fn stdout(part: &ToolReturnPart) -> &str {
    part.content["stdout"].as_str().unwrap_or_default()
}

/// Whether the process `pid` exists and is not a zombie.
pub fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

/// The pids of live processes whose command line holds `needle`.
pub fn processes_with(needle: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|line| String::from_utf8_lossy(&line).contains(needle))
                && running(*pid)
        })
        .collect()
}

/// A pid a command wrote to `path`.
pub fn pid_in(path: &Path) -> i32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}
