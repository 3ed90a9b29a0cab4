//! The host's shell settings for one call: the narrowing policy, the
//! defaults for commands and the output bound of what tools return.

use crate::context::{ShellEnvironmentSnapshot, ToolRuntimeSnapshot};
use crate::environment::{
    CommandOptions, CommandRequest, EnvironmentError, ShellPolicy, RULE_EXECUTION_DISABLED,
};
use crate::tools::{ToolContext, ToolError};

use super::errors::shell_error;

/// The [`ShellEnvironmentSnapshot`] a call received, if the host set
/// one: the dedicated dependency of Filtered and Strict profiles, or
/// the runtime snapshot's copy for a Legacy caller.
#[derive(Clone, Debug, Default)]
pub(super) struct HostSettings {
    snapshot: Option<ShellEnvironmentSnapshot>,
}

impl HostSettings {
    /// The settings of this call.
    pub(super) fn of(ctx: &ToolContext) -> Self {
        let snapshot = ctx
            .dependency::<ShellEnvironmentSnapshot>()
            .map(|snapshot| (*snapshot).clone())
            .or_else(|| {
                ctx.dependency::<ToolRuntimeSnapshot>()
                    .and_then(|runtime| runtime.shell.clone())
            });
        Self { snapshot }
    }

    /// The host's policy, which narrows the provider's own (the provider
    /// checks that one itself).
    fn policy(&self) -> Option<ShellPolicy> {
        self.snapshot.as_ref().map(|snapshot| ShellPolicy {
            allow_execute: snapshot.allow_execute,
            allowed_programs: snapshot.allowed_programs.clone(),
        })
    }

    /// Checks the command as the model asked for it (before the host's
    /// defaults are added: the host's own variables are not a request
    /// override) against the host's policy.
    ///
    /// # Errors
    /// Feedback naming the rule that refused it.
    pub(super) fn check(&self, request: &CommandRequest) -> Result<(), ToolError> {
        match self.policy() {
            Some(policy) => policy.check(request).map_err(shell_error),
            None => Ok(()),
        }
    }

    /// Refuses acting on a running process (`action`, for the message)
    /// when the host switched execution off.
    ///
    /// # Errors
    /// Feedback naming [`RULE_EXECUTION_DISABLED`].
    pub(super) fn check_acting_on(&self, action: &str, id: &str) -> Result<(), ToolError> {
        if self.policy().is_none_or(|policy| policy.allow_execute) {
            return Ok(());
        }
        Err(shell_error(EnvironmentError::PolicyDenied {
            rule: RULE_EXECUTION_DISABLED,
            allowed: Vec::new(),
            message: format!(
                "running commands is switched off for this run, so {action} process `{}` is \
                 refused (shell_kill still stops it); the host must set `allow_execute: true` to \
                 allow it",
                crate::bounds::echo(id)
            ),
        }))
    }

    /// Adds the host's defaults to what the request left out: the
    /// working directory, the timeout (`foreground` only: a background
    /// process runs until it ends or is stopped unless the request gives
    /// it a limit), and variables under the request's own.
    pub(super) fn apply(&self, options: &mut CommandOptions, foreground: bool) {
        let Some(snapshot) = &self.snapshot else {
            return;
        };
        if options.working_directory.is_none() {
            options
                .working_directory
                .clone_from(&snapshot.working_directory);
        }
        if foreground && options.timeout_ms.is_none() {
            options.timeout_ms = snapshot.timeout_ms;
        }
        for (variable, value) in &snapshot.env {
            options
                .env
                .entry(variable.clone())
                .or_insert_with(|| value.clone());
        }
    }

    /// The names of the variables the host's settings add.
    pub(super) fn env_names(&self) -> Vec<&str> {
        self.snapshot
            .as_ref()
            .map(|snapshot| snapshot.env.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    /// The host's bound on each output stream returned to the model.
    pub(super) fn max_output_bytes(&self) -> Option<u64> {
        self.snapshot
            .as_ref()
            .and_then(|snapshot| snapshot.max_output_bytes)
    }
}
