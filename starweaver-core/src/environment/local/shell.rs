//! The process half of [`super::LocalEnvironmentProvider`]: foreground
//! commands and background processes under the provider's policy and
//! limits.

use super::LocalEnvironmentProvider;
use crate::environment::{CommandRequest, EnvironmentError, ProcessOutput, ShellPolicy};

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

    /// Runs one foreground command to its end (or its time limit).
    pub(super) async fn run_command(
        &self,
        request: CommandRequest,
    ) -> Result<ProcessOutput, EnvironmentError> {
        self.policy.check(&request)?;
        let _ = &self.processes;
        Err(EnvironmentError::Unsupported {
            environment: self.name.clone(),
            operation: "running commands (not built yet)".to_string(),
        })
    }
}
