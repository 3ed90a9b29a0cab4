//! The process half of [`super::LocalEnvironmentProvider`]: the policy
//! and limits commands run under, and foreground commands.
//!
//! Configure these before sharing the provider: the concurrency
//! allowance is rebuilt when its size changes.

use std::collections::BTreeMap;
use tracing::Instrument;

use super::sandbox::{Sandbox, SandboxKernel, SandboxPolicy, SandboxReport};
use super::LocalEnvironmentProvider;
use crate::environment::{
    CommandRequest, EnvironmentError, ProcessLimits, ProcessOutput, ShellPolicy,
};

impl LocalEnvironmentProvider {
    /// Sets the policy deciding which commands run (default:
    /// [`ShellPolicy::unrestricted`]).
    #[must_use]
    pub fn with_shell_policy(mut self, policy: ShellPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The policy in force.
    #[must_use]
    pub fn shell_policy(&self) -> &ShellPolicy {
        &self.policy
    }

    /// Replaces every process limit at once (see [`ProcessLimits`]).
    #[must_use]
    pub fn with_process_limits(mut self, limits: ProcessLimits) -> Self {
        self.processes.set_limits(limits);
        self
    }

    /// The process limits in force.
    #[must_use]
    pub fn process_limits(&self) -> &ProcessLimits {
        self.processes.limits()
    }

    /// Sets the bytes kept per output stream (stdout and stderr each);
    /// the rest is drained and counted, never held in memory (default:
    /// [`crate::environment::DEFAULT_MAX_OUTPUT_BYTES`], 1 MiB).
    #[must_use]
    pub fn with_max_output_bytes(self, bytes: u64) -> Self {
        self.with_limit(|limits| limits.max_output_bytes = bytes)
    }

    /// Sets the time limit of foreground commands that name none.
    /// Background processes run until they end unless their command
    /// names a limit (default:
    /// [`crate::environment::DEFAULT_COMMAND_TIMEOUT_MS`], 2 minutes).
    #[must_use]
    pub fn with_default_timeout_ms(self, timeout_ms: u64) -> Self {
        self.with_limit(|limits| limits.default_timeout_ms = timeout_ms)
    }

    /// Sets how long a group has between `SIGTERM` and `SIGKILL` when it
    /// is stopped (default: [`crate::environment::DEFAULT_KILL_GRACE_MS`],
    /// 2 s).
    #[must_use]
    pub fn with_kill_grace_ms(self, grace_ms: u64) -> Self {
        self.with_limit(|limits| limits.kill_grace_ms = grace_ms)
    }

    /// Sets how long an output stream may stay open after its process
    /// ended (something that left the group still holds it) before the
    /// capture gives up on it and reports `<stream>_drain_timed_out`
    /// (default: [`crate::environment::DEFAULT_DRAIN_TIMEOUT_MS`], 1 s).
    #[must_use]
    pub fn with_drain_timeout_ms(self, drain_ms: u64) -> Self {
        self.with_limit(|limits| limits.drain_timeout_ms = drain_ms)
    }

    /// Sets how many processes run at once, foreground and background
    /// together. Foreground commands past it wait for a slot (up to their
    /// time limit); background starts past it are refused at once with
    /// [`EnvironmentError::ProcessLimit`]. 0 runs nothing (default:
    /// [`crate::environment::DEFAULT_MAX_CONCURRENT_PROCESSES`], 8).
    #[must_use]
    pub fn with_max_concurrent_processes(self, processes: usize) -> Self {
        self.with_limit(|limits| limits.max_concurrent_processes = processes)
    }

    /// Sets how many completed background processes stay queryable; past
    /// it the earliest completed are dropped and their handles become
    /// unknown (default:
    /// [`crate::environment::DEFAULT_COMPLETED_PROCESS_RETENTION`], 64).
    #[must_use]
    pub fn with_completed_process_retention(self, processes: usize) -> Self {
        self.with_limit(|limits| limits.completed_process_retention = processes)
    }

    /// Sets which host variables commands inherit (replacing
    /// [`crate::environment::DEFAULT_INHERITED_ENV`]); every other host
    /// variable is scrubbed. Pass an empty list to inherit none.
    #[must_use]
    pub fn with_inherited_env(self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let names: Vec<String> = names.into_iter().map(Into::into).collect();
        self.with_limit(|limits| limits.inherited_env = names)
    }

    /// Sets a variable for every command, over the inherited ones (a
    /// command's own `env` still comes last). Unlike a command's `env`,
    /// this is the host's choice, so it applies under an allowlist too.
    #[must_use]
    pub fn with_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.processes.set_env(name.into(), value.into());
        self
    }

    /// The variables set for every command by [`Self::with_env`].
    #[must_use]
    pub fn fixed_env(&self) -> &BTreeMap<String, String> {
        self.processes.fixed_env()
    }

    fn with_limit(mut self, change: impl FnOnce(&mut ProcessLimits)) -> Self {
        let mut limits = self.processes.limits().clone();
        change(&mut limits);
        self.processes.set_limits(limits);
        self
    }

    /// Runs one foreground command to its end (or its time limit): the
    /// policy first, then the sandbox, then the working directory, then a
    /// permit.
    pub(super) async fn run_command(
        &self,
        request: CommandRequest,
    ) -> Result<ProcessOutput, EnvironmentError> {
        self.policy.check(&request)?;
        let sandbox = self.sandbox.prepare(&self.dir)?;
        let directory = self.command_directory(request.options())?;
        let span = command_span(&request);
        let output = self
            .processes
            .run(&request, &directory, &sandbox)
            .instrument(span.clone())
            .await;
        command_ended(&span, &output);
        output
    }

    /// Sets the kernel sandbox every command runs under (default:
    /// [`SandboxPolicy::default`]: writes only inside the root and a
    /// private temporary folder, network off, refused where the kernel
    /// cannot enforce it). The in-memory provider has no such setting:
    /// its builtins touch nothing outside it.
    #[must_use]
    pub fn with_sandbox(mut self, policy: SandboxPolicy) -> Self {
        self.sandbox = Sandbox::new(policy, *self.sandbox.kernel());
        self
    }

    /// Declares the kernel weaker than detected (see
    /// [`SandboxKernel::with_landlock_abi`]): to see how a policy fares
    /// on an older kernel, or to test the refusals. It can only take
    /// rights away from the sandbox's enforcement, never add them.
    #[must_use]
    pub fn with_sandbox_kernel(mut self, kernel: SandboxKernel) -> Self {
        let detected = SandboxKernel::detect();
        let kernel = if detected.seccomp() && kernel.seccomp() {
            detected
        } else {
            detected.without_seccomp()
        }
        .with_landlock_abi(kernel.landlock_abi());
        self.sandbox = Sandbox::new(self.sandbox.policy().clone(), kernel);
        self
    }

    /// The sandbox policy in force.
    #[must_use]
    pub fn sandbox_policy(&self) -> &SandboxPolicy {
        self.sandbox.policy()
    }

    /// What commands run under: the policy and what this kernel enforces
    /// of it.
    #[must_use]
    pub fn sandbox_report(&self) -> SandboxReport {
        SandboxReport::new(self.sandbox.policy(), self.sandbox.kernel())
    }
}

/// The span of one command: `shell`, a child of the tool call that ran it, with its exit code,
/// status and duration. The program is content (it may name what the command works on), so it
/// is recorded only with content capture on; the environment never is.
fn command_span(request: &CommandRequest) -> tracing::Span {
    if !crate::telemetry::traced() {
        return tracing::Span::none();
    }
    let span = tracing::info_span!(
        target: crate::telemetry::TRACE_TARGET,
        "shell",
        otel.name = "shell",
        otel.kind = "internal",
        otel.status_code = tracing::field::Empty,
        process.executable.name = tracing::field::Empty,
        process.exit.code = tracing::field::Empty,
        starweaver.shell.status = tracing::field::Empty,
        starweaver.shell.duration_ms = tracing::field::Empty,
    );
    if !span.is_disabled() && crate::telemetry::content_capture() {
        let program = match request {
            CommandRequest::Shell(_) => "sh".to_string(),
            CommandRequest::Program(command) => {
                crate::bounds::echo(&command.form.executable).into_owned()
            }
        };
        span.record("process.executable.name", program);
    }
    span
}

/// What a command ended with, on its span.
fn command_ended(span: &tracing::Span, output: &Result<ProcessOutput, EnvironmentError>) {
    if span.is_disabled() {
        return;
    }
    match output {
        Ok(output) => {
            if let Some(code) = output.exit_code {
                span.record("process.exit.code", i64::from(code));
            }
            span.record(
                "starweaver.shell.status",
                crate::telemetry::content(&output.status),
            );
            span.record(
                "starweaver.shell.duration_ms",
                i64::try_from(output.duration_ms).unwrap_or(i64::MAX),
            );
            if !output.success() {
                span.record("otel.status_code", "error");
            }
        }
        Err(_) => {
            span.record("otel.status_code", "error");
        }
    }
}
