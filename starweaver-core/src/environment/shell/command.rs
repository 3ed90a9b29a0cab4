//! What to run: a shell script or a program with literal arguments, each
//! a [`Command`] of its form with the settings every command shares.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Settings every command shares: where it runs, what it sees, how long
/// it may take.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandOptions {
    /// Working directory, relative to the environment root (default: the
    /// root). It must be a directory inside the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_directory: Option<String>,
    /// Variables set for this command on top of the provider's scrubbed
    /// environment. Refused when the policy has an allowlist.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Bytes written to the command's standard input. A foreground
    /// command's input is then closed (`None` gives it an empty one); a
    /// background process's input stays open for `shell_input` either
    /// way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<Vec<u8>>,
    /// Time limit in milliseconds (default: the provider's). Past it the
    /// process group is terminated, then killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// A command: its form (a [`Shell`] script or a [`Program`] with
/// arguments) and the [`CommandOptions`] both forms share. One generic
/// type, so the shared `with_*` builders are written once and both
/// forms have them; users name the forms [`ShellCommand`] and
/// [`ProgramCommand`]. Serialized flat: the form's fields beside the
/// options.
///
/// ```
/// use starweaver_core::environment::{ProgramCommand, ShellCommand};
///
/// let script = ShellCommand::shell("ls | wc -l").with_timeout_ms(5_000);
/// let program = ProgramCommand::new("git", ["status"]).with_working_directory("repo");
/// assert_eq!(script.form.script, "ls | wc -l");
/// assert_eq!(script.options.timeout_ms, Some(5_000));
/// assert_eq!(program.options.working_directory.as_deref(), Some("repo"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Command<F> {
    /// What runs: the script or the program and its arguments.
    #[serde(flatten)]
    pub form: F,
    /// Working directory, environment, input and timeout.
    #[serde(flatten)]
    pub options: CommandOptions,
}

/// The shell form: a script run by `/bin/sh -c` on the local provider.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shell {
    /// The script.
    pub script: String,
}

/// The program form: a program run directly, without a shell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    /// The program: a bare name looked up on the scrubbed `PATH`, or a
    /// path.
    pub executable: String,
    /// Arguments, passed as given.
    #[serde(default)]
    pub args: Vec<String>,
}

/// A shell script, run by `/bin/sh -c` on the local provider: operators,
/// pipes and expansion keep their shell meaning. A policy with an
/// allowlist refuses every shell command (a script's programs cannot be
/// known without running it).
///
/// ```
/// use starweaver_core::environment::ShellCommand;
/// let command = ShellCommand::shell("ls | wc -l").with_timeout_ms(5_000);
/// assert_eq!(command.form.script, "ls | wc -l");
/// ```
pub type ShellCommand = Command<Shell>;

/// A program run directly, without a shell: every argument reaches it
/// literally, so `;`, `|` or `$(..)` in an argument are just characters.
/// This is the only form a policy's allowlist accepts, and it accepts it
/// only when the executable equals an allowed name exactly.
///
/// ```
/// use starweaver_core::environment::ProgramCommand;
/// let command = ProgramCommand::new("git", ["status", "--short"]);
/// assert_eq!(command.form.args, ["status", "--short"]);
/// ```
pub type ProgramCommand = Command<Program>;

impl Command<Shell> {
    /// A command running `script` through the shell.
    #[must_use]
    pub fn shell(script: impl Into<String>) -> Self {
        Self {
            form: Shell {
                script: script.into(),
            },
            options: CommandOptions::default(),
        }
    }
}

impl Command<Program> {
    /// A command running `executable` with `args`, no shell involved.
    #[must_use]
    pub fn new(
        executable: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            form: Program {
                executable: executable.into(),
                args: args.into_iter().map(Into::into).collect(),
            },
            options: CommandOptions::default(),
        }
    }
}

/// The builders both forms share, over [`Command::options`].
impl<F> Command<F> {
    /// Sets [`CommandOptions::working_directory`].
    #[must_use]
    pub fn with_working_directory(mut self, directory: impl Into<String>) -> Self {
        self.options.working_directory = Some(directory.into());
        self
    }

    /// Adds a variable to [`CommandOptions::env`].
    #[must_use]
    pub fn with_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.options.env.insert(name.into(), value.into());
        self
    }

    /// Sets [`CommandOptions::stdin`].
    #[must_use]
    pub fn with_stdin(mut self, input: impl Into<Vec<u8>>) -> Self {
        self.options.stdin = Some(input.into());
        self
    }

    /// Sets [`CommandOptions::timeout_ms`].
    #[must_use]
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> Self {
        self.options.timeout_ms = Some(timeout_ms);
        self
    }
}

/// A command of either form, as providers receive it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum CommandRequest {
    /// A shell script.
    Shell(ShellCommand),
    /// A program with literal arguments.
    Program(ProgramCommand),
}

impl CommandRequest {
    /// The shared settings.
    #[must_use]
    pub fn options(&self) -> &CommandOptions {
        match self {
            Self::Shell(command) => &command.options,
            Self::Program(command) => &command.options,
        }
    }

    /// The command as one line for messages and listings, shortened to
    /// [`crate::bounds::MAX_ECHO_BYTES`].
    #[must_use]
    pub fn display(&self) -> String {
        let line = match self {
            Self::Shell(command) => command.form.script.clone(),
            Self::Program(command) => std::iter::once(command.form.executable.as_str())
                .chain(command.form.args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
        };
        crate::bounds::echo(&line).into_owned()
    }
}

impl From<ShellCommand> for CommandRequest {
    fn from(command: ShellCommand) -> Self {
        Self::Shell(command)
    }
}

impl From<ProgramCommand> for CommandRequest {
    fn from(command: ProgramCommand) -> Self {
        Self::Program(command)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A request serializes flat, the form's fields beside the options,
    // as journals and process listings hold it.
    #[test]
    fn requests_serialize_flat_and_load_back() -> Result<(), serde_json::Error> {
        let program: CommandRequest = ProgramCommand::new("git", ["status"])
            .with_env("A", "1")
            .with_timeout_ms(5)
            .into();
        let json = serde_json::to_value(&program)?;
        assert_eq!(
            json,
            serde_json::json!({"form": "program", "executable": "git", "args": ["status"],
                "env": {"A": "1"}, "timeout_ms": 5})
        );
        assert_eq!(serde_json::from_value::<CommandRequest>(json)?, program);
        let shell: CommandRequest = ShellCommand::shell("ls")
            .with_working_directory("src")
            .with_stdin("x")
            .into();
        let json = serde_json::to_value(&shell)?;
        assert_eq!(
            json,
            serde_json::json!({"form": "shell", "script": "ls", "working_directory": "src",
                "stdin": [120]})
        );
        assert_eq!(serde_json::from_value::<CommandRequest>(json)?, shell);
        let bare: CommandRequest =
            serde_json::from_value(serde_json::json!({"form": "program", "executable": "ls"}))?;
        assert_eq!(bare, ProgramCommand::new("ls", Vec::<String>::new()).into());
        Ok(())
    }
}
