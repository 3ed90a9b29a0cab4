//! The shell bundle (`shell_exec`, `shell_wait`, `shell_status`,
//! `shell_input`, `shell_signal`, `shell_kill`) over the in-memory
//! provider's deterministic process simulation: foreground commands,
//! the policy and the host's shell settings, background processes, and
//! the bundle in agent runs.

mod agent;
mod background;
mod foreground;
mod policy;

use std::sync::Arc;

use serde_json::Value;
use starweaver::context::ShellEnvironmentSnapshot;
use starweaver::environment::{attach_process_shell, VirtualEnvironmentProvider};
use starweaver::model::{ToolCallPart, ToolReturnKind, ToolReturnPart};
use starweaver::{attach_environment, shell_tools, AgentContext, ToolRegistry};

use crate::common::ambient;

/// A provider with a couple of files, for `cat`.
pub fn workspace() -> VirtualEnvironmentProvider {
    VirtualEnvironmentProvider::new("workspace")
        .with_file("notes.txt", "one\ntwo\n")
        .with_file("src/lib.rs", "pub fn f() {}\n")
}

/// The shell bundle in a registry, with `provider` attached as the
/// environment and the process shell of an ambient agent context.
pub struct Shell {
    context: AgentContext,
    registry: ToolRegistry,
}

impl Shell {
    /// `provider` attached as both capabilities.
    pub fn on(provider: VirtualEnvironmentProvider) -> Self {
        let provider = Arc::new(provider);
        let mut context = AgentContext::default();
        attach_environment(&mut context, provider.clone());
        attach_process_shell(&mut context, provider);
        Self {
            context,
            registry: ToolRegistry::new().with_toolset(&shell_tools()),
        }
    }

    /// Only the environment attached (no process shell).
    pub fn without_process_shell(provider: VirtualEnvironmentProvider) -> Self {
        let mut context = AgentContext::default();
        attach_environment(&mut context, Arc::new(provider));
        Self {
            context,
            registry: ToolRegistry::new().with_toolset(&shell_tools()),
        }
    }

    /// The host's shell settings for every call.
    pub fn with_settings(mut self, snapshot: ShellEnvironmentSnapshot) -> Self {
        self.context.shell_environment = Some(snapshot);
        self
    }

    /// One call.
    pub async fn call(&self, name: &str, arguments: Value) -> ToolReturnPart {
        self.registry
            .execute_call(
                ambient(self.context.clone()),
                &ToolCallPart::new("call", name, arguments),
            )
            .await
    }

    /// One call that must succeed; its return.
    pub async fn ok(&self, name: &str, arguments: Value) -> ToolReturnPart {
        let part = self.call(name, arguments.clone()).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::Success,
            "{name}({arguments}): {}",
            part.content
        );
        part
    }
}

/// Settings that allow everything (as when the host sets none), to
/// change one field at a time.
pub fn permissive() -> ShellEnvironmentSnapshot {
    ShellEnvironmentSnapshot {
        allow_execute: true,
        ..ShellEnvironmentSnapshot::default()
    }
}

/// The model-visible message of an error return.
pub fn message(part: &ToolReturnPart) -> &str {
    part.content["message"].as_str().unwrap_or_default()
}
