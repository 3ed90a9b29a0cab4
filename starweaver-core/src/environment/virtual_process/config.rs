//! The command settings of the in-memory provider: its shell policy and
//! process limits, as real providers take them.

use crate::environment::{ProcessLimits, ShellPolicy, VirtualEnvironmentProvider};

impl VirtualEnvironmentProvider {
    /// Sets the policy deciding which commands run (default:
    /// [`ShellPolicy::unrestricted`]); it applies to foreground and
    /// background commands alike, exactly as on real providers.
    ///
    /// ```
    /// use starweaver_core::environment::{
    ///     EnvironmentError, EnvironmentProvider, ProgramCommand, ShellCommand, ShellPolicy,
    ///     VirtualEnvironmentProvider,
    /// };
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let env = VirtualEnvironmentProvider::new("t")
    ///     .with_shell_policy(ShellPolicy::allow_programs(["echo"]));
    /// let output = env.run_program(&ProgramCommand::new("echo", ["hi"])).await.unwrap();
    /// assert_eq!(output.stdout.text, "hi\n");
    /// assert!(matches!(
    ///     env.run_shell(&ShellCommand::shell("echo hi")).await,
    ///     Err(EnvironmentError::PolicyDenied { .. })
    /// ));
    /// # });
    /// ```
    #[must_use]
    pub fn with_shell_policy(mut self, policy: ShellPolicy) -> Self {
        self.processes.policy = policy;
        self
    }

    /// The policy in force.
    #[must_use]
    pub fn shell_policy(&self) -> &ShellPolicy {
        &self.processes.policy
    }

    /// Sets every process limit at once (see [`ProcessLimits`]; the
    /// simulation uses the output bound, the default timeout, the
    /// concurrency allowance and the retention; it has no host variables
    /// and nothing to drain or grace).
    #[must_use]
    pub fn with_process_limits(mut self, limits: ProcessLimits) -> Self {
        self.processes.limits = limits;
        self
    }

    /// The process limits in force.
    #[must_use]
    pub fn process_limits(&self) -> &ProcessLimits {
        &self.processes.limits
    }

    /// Sets [`ProcessLimits::max_output_bytes`]: bytes kept per stream.
    #[must_use]
    pub fn with_max_output_bytes(mut self, bytes: u64) -> Self {
        self.processes.limits.max_output_bytes = bytes;
        self
    }

    /// Sets [`ProcessLimits::max_concurrent_processes`]: processes
    /// running at once, a foreground command counting as one.
    #[must_use]
    pub fn with_max_concurrent_processes(mut self, processes: usize) -> Self {
        self.processes.limits.max_concurrent_processes = processes;
        self
    }

    /// Sets [`ProcessLimits::completed_process_retention`]: completed
    /// background processes kept for `status` and `list`.
    #[must_use]
    pub fn with_completed_process_retention(mut self, processes: usize) -> Self {
        self.processes.limits.completed_process_retention = processes;
        self
    }
}
