//! Which commands may run: the shell policy and its rules.

use serde::{Deserialize, Serialize};

use super::CommandRequest;
use crate::bounds::echo;
use crate::environment::EnvironmentError;

/// Which commands an environment runs.
///
/// | `allow_execute` | `allowed_programs` | shell scripts | programs | env overrides |
/// | --- | --- | --- | --- | --- |
/// | `false` | any | refused | refused | refused |
/// | `true` | empty | run | any program | allowed |
/// | `true` | names | refused | exact name matches only | refused |
///
/// An allowlist entry matches only the same executable string: `git`
/// does not admit `/usr/bin/git` or `./git`, which could name another
/// file. Allowing a program still allows what that program can do:
/// `git` runs hooks and aliases, `cargo` runs build scripts, so an
/// allowlist limits the entry points, not the code that runs.
///
/// ```
/// use starweaver_core::environment::{ProgramCommand, ShellCommand, ShellPolicy};
/// let policy = ShellPolicy {
///     allow_execute: true,
///     allowed_programs: vec!["git".to_string()],
/// };
/// assert!(policy.check(&ProgramCommand::new("git", ["status"]).into()).is_ok());
/// assert!(policy.check(&ProgramCommand::new("/usr/bin/git", ["status"]).into()).is_err());
/// assert!(policy.check(&ShellCommand::shell("git status").into()).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellPolicy {
    /// Whether anything may run at all.
    pub allow_execute: bool,
    /// When non-empty, the only programs that may run, by exact
    /// executable name, and only as [`super::ProgramCommand`]s without
    /// environment overrides.
    pub allowed_programs: Vec<String>,
}

/// Rule name: execution is switched off.
pub const RULE_EXECUTION_DISABLED: &str = "execution_disabled";
/// Rule name: a shell script under an allowlist.
pub const RULE_SHELL_UNDER_ALLOWLIST: &str = "shell_under_allowlist";
/// Rule name: a program the allowlist does not name.
pub const RULE_PROGRAM_NOT_ALLOWED: &str = "program_not_allowed";
/// Rule name: environment overrides under an allowlist.
pub const RULE_ENV_UNDER_ALLOWLIST: &str = "env_under_allowlist";

impl ShellPolicy {
    /// Runs anything: scripts, any program, overrides. What providers use
    /// unless given another policy; the shell toolset being installed is
    /// the grant.
    #[must_use]
    pub fn unrestricted() -> Self {
        Self {
            allow_execute: true,
            allowed_programs: Vec::new(),
        }
    }

    /// Runs nothing.
    #[must_use]
    pub fn disabled() -> Self {
        Self {
            allow_execute: false,
            allowed_programs: Vec::new(),
        }
    }

    /// Runs only these programs, directly, by exact name.
    #[must_use]
    pub fn allow_programs(programs: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            allow_execute: true,
            allowed_programs: programs.into_iter().map(Into::into).collect(),
        }
    }

    /// Whether `command` may run.
    ///
    /// # Errors
    /// [`EnvironmentError::PolicyDenied`] naming the rule that refused it.
    pub fn check(&self, command: &CommandRequest) -> Result<(), EnvironmentError> {
        if !self.allow_execute {
            return Err(denied(
                RULE_EXECUTION_DISABLED,
                Vec::new(),
                format!(
                    "running commands is switched off in this environment (`{}` was not run); \
                     the host must set `allow_execute: true` to allow it",
                    command.display()
                ),
            ));
        }
        if self.allowed_programs.is_empty() {
            return Ok(());
        }
        let allowed = self.allowed_list();
        match command {
            CommandRequest::Shell(_) => Err(denied(
                RULE_SHELL_UNDER_ALLOWLIST,
                self.allowed_programs.clone(),
                format!(
                    "shell scripts are refused because only these programs may run: {allowed}; \
                     run one of them directly with `program` and `args` instead of `command`"
                ),
            )),
            CommandRequest::Program(program) => {
                if !self.allowed_programs.contains(&program.form.executable) {
                    return Err(denied(
                        RULE_PROGRAM_NOT_ALLOWED,
                        self.allowed_programs.clone(),
                        format!(
                            "`{}` is not an allowed program; only these may run, named exactly \
                             (no path): {allowed}",
                            echo(&program.form.executable)
                        ),
                    ));
                }
                if !program.options.env.is_empty() {
                    return Err(denied(
                        RULE_ENV_UNDER_ALLOWLIST,
                        Vec::new(),
                        "environment variables cannot be set when only listed programs may run \
                         (they could change which program runs or what it loads); leave `env` \
                         out"
                        .to_string(),
                    ));
                }
                Ok(())
            }
        }
    }

    /// The policy allowing only what both allow: execution when both
    /// allow it; the allowlist of the one that has one, or the common
    /// names when both do (an empty intersection allows nothing).
    #[must_use]
    pub fn intersect(&self, other: &Self) -> Self {
        let allow_execute = self.allow_execute && other.allow_execute;
        let allowed_programs = match (
            self.allowed_programs.is_empty(),
            other.allowed_programs.is_empty(),
        ) {
            (true, _) => other.allowed_programs.clone(),
            (_, true) => self.allowed_programs.clone(),
            _ => self
                .allowed_programs
                .iter()
                .filter(|name| other.allowed_programs.contains(name))
                .cloned()
                .collect(),
        };
        let disjoint = allowed_programs.is_empty()
            && !(self.allowed_programs.is_empty() && other.allowed_programs.is_empty());
        Self {
            allow_execute: allow_execute && !disjoint,
            allowed_programs,
        }
    }

    fn allowed_list(&self) -> String {
        let names: Vec<String> = self
            .allowed_programs
            .iter()
            .map(|name| format!("`{}`", echo(name)))
            .collect();
        names.join(", ")
    }
}

fn denied(rule: &'static str, allowed: Vec<String>, message: String) -> EnvironmentError {
    EnvironmentError::PolicyDenied {
        rule,
        message,
        allowed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::environment::{ProgramCommand, ShellCommand};

    fn rule(policy: &ShellPolicy, command: impl Into<CommandRequest>) -> Option<&'static str> {
        match policy.check(&command.into()) {
            Ok(()) => None,
            Err(EnvironmentError::PolicyDenied { rule, .. }) => Some(rule),
            Err(other) => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn the_policy_table_holds() {
        let off = ShellPolicy::disabled();
        assert_eq!(
            rule(&off, ShellCommand::shell("ls")),
            Some(RULE_EXECUTION_DISABLED)
        );
        assert_eq!(
            rule(&off, ProgramCommand::new("ls", [""; 0])),
            Some(RULE_EXECUTION_DISABLED)
        );
        let any = ShellPolicy::unrestricted();
        assert_eq!(
            rule(&any, ShellCommand::shell("ls | wc").with_env("A", "b")),
            None
        );
        assert_eq!(rule(&any, ProgramCommand::new("/bin/ls", ["-l"])), None);
        let git = ShellPolicy::allow_programs(["git"]);
        assert_eq!(rule(&git, ProgramCommand::new("git", ["status"])), None);
        assert_eq!(
            rule(&git, ShellCommand::shell("git status")),
            Some(RULE_SHELL_UNDER_ALLOWLIST)
        );
        for bypass in ["/usr/bin/git", "./git", "git ", "GIT", "git;ls"] {
            assert_eq!(
                rule(&git, ProgramCommand::new(bypass, ["status"])),
                Some(RULE_PROGRAM_NOT_ALLOWED),
                "{bypass}"
            );
        }
        for variable in ["PATH", "LD_PRELOAD", "GIT_DIR"] {
            assert_eq!(
                rule(
                    &git,
                    ProgramCommand::new("git", ["status"]).with_env(variable, "/tmp")
                ),
                Some(RULE_ENV_UNDER_ALLOWLIST),
                "{variable}"
            );
        }
    }

    #[test]
    fn intersections_allow_only_what_both_allow() {
        let any = ShellPolicy::unrestricted();
        let git = ShellPolicy::allow_programs(["git", "cargo"]);
        assert_eq!(any.intersect(&git), git);
        assert_eq!(git.intersect(&any), git);
        assert!(!any.intersect(&ShellPolicy::disabled()).allow_execute);
        let ls = ShellPolicy::allow_programs(["ls"]);
        assert!(!git.intersect(&ls).allow_execute);
        let both = git.intersect(&ShellPolicy::allow_programs(["cargo", "rg"]));
        assert_eq!(both.allowed_programs, ["cargo"]);
    }
}
