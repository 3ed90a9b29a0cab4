//! `starweaver completions SHELL`: a completion script for bash, zsh or fish, generated from
//! the same command definition that parses the arguments, so it never lists a stale flag.

use std::io::Write;

use clap_complete::Shell;

/// The arguments of `starweaver completions`.
#[derive(Clone, Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver completions bash > ~/.local/share/bash-completion/completions/starweaver\n  starweaver completions zsh > ~/.zfunc/_starweaver      # with fpath+=~/.zfunc before compinit\n  starweaver completions fish > ~/.config/fish/completions/starweaver.fish"
)]
pub struct CompletionsArgs {
    /// The shell to write the script for.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

/// The shells a script can be written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CompletionShell {
    /// Bash (with the bash-completion package).
    Bash,
    /// Zsh (a `_starweaver` file on `fpath`).
    Zsh,
    /// Fish.
    Fish,
}

impl From<CompletionShell> for Shell {
    fn from(shell: CompletionShell) -> Self {
        match shell {
            CompletionShell::Bash => Self::Bash,
            CompletionShell::Zsh => Self::Zsh,
            CompletionShell::Fish => Self::Fish,
        }
    }
}

/// The script for `shell` completing `command` (the whole CLI).
#[must_use]
pub fn script(shell: CompletionShell, command: &mut clap::Command) -> Vec<u8> {
    let name = command.get_name().to_string();
    let mut buffer = Vec::new();
    clap_complete::generate(Shell::from(shell), command, name, &mut buffer);
    buffer
}

/// Writes the script to `out`. Built in memory first: the generator panics on a write error,
/// and a reader that stops early (`| head`) is not an error worth a panic.
pub fn write(shell: CompletionShell, command: &mut clap::Command, out: &mut dyn Write) {
    let _ = out.write_all(&script(shell, command));
}
