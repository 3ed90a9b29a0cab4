//! What to run: a shell script or a program with literal arguments.

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

/// A shell script, run by `/bin/sh -c` on the local provider: operators,
/// pipes and expansion keep their shell meaning. A policy with an
/// allowlist refuses every shell command (a script's programs cannot be
/// known without running it).
///
/// ```
/// use starweaver_core::environment::ShellCommand;
/// let command = ShellCommand::shell("ls | wc -l").with_timeout_ms(5_000);
/// assert_eq!(command.script, "ls | wc -l");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellCommand {
    /// The script.
    pub script: String,
    /// Working directory, environment, input and timeout.
    #[serde(flatten)]
    pub options: CommandOptions,
}

/// A program run directly, without a shell: every argument reaches it
/// literally, so `;`, `|` or `$(..)` in an argument are just characters.
/// This is the only form a policy's allowlist accepts, and it accepts it
/// only when `executable` equals an allowed name exactly.
///
/// ```
/// use starweaver_core::environment::ProgramCommand;
/// let command = ProgramCommand::new("git", ["status", "--short"]);
/// assert_eq!(command.args, ["status", "--short"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramCommand {
    /// The program: a bare name looked up on the scrubbed `PATH`, or a
    /// path.
    pub executable: String,
    /// Arguments, passed as given.
    #[serde(default)]
    pub args: Vec<String>,
    /// Working directory, environment, input and timeout.
    #[serde(flatten)]
    pub options: CommandOptions,
}

impl ShellCommand {
    /// A command running `script` through the shell.
    #[must_use]
    pub fn shell(script: impl Into<String>) -> Self {
        Self {
            script: script.into(),
            options: CommandOptions::default(),
        }
    }
}

impl ProgramCommand {
    /// A command running `executable` with `args`, no shell involved.
    #[must_use]
    pub fn new(
        executable: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            executable: executable.into(),
            args: args.into_iter().map(Into::into).collect(),
            options: CommandOptions::default(),
        }
    }
}

/// The builders both command forms share, over their `options` field.
macro_rules! command_options_builders {
    ($command:ty) => {
        impl $command {
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
    };
}

command_options_builders!(ShellCommand);
command_options_builders!(ProgramCommand);

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
            Self::Shell(command) => command.script.clone(),
            Self::Program(command) => std::iter::once(command.executable.as_str())
                .chain(command.args.iter().map(String::as_str))
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
