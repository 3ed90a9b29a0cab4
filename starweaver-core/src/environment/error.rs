//! Errors of environment operations.

use crate::bounds::echo;

/// What went wrong in an environment operation. Every variant names the
/// path it concerns, so a tool return or a host log says where to look.
/// Messages show at most [`crate::bounds::MAX_ECHO_BYTES`] of a path, and
/// variants built from a path as given ([`Self::PathEscape`],
/// [`Self::InvalidPath`]) store it shortened the same way, so a hostile
/// path is never repeated back in full.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EnvironmentError {
    /// Nothing exists at the path.
    #[error("{} does not exist; list the parent directory to see what is there", shown(.path))]
    NotFound {
        /// The root-relative path.
        path: String,
    },
    /// The path is a directory where a file was expected.
    #[error("{} is a directory, not a file; pass a file path (ls lists a directory's entries)", shown(.path))]
    IsADirectory {
        /// The root-relative path.
        path: String,
    },
    /// The path (or one of its parents) is a file where a directory was
    /// expected.
    #[error("{} is a file, not a directory", shown(.path))]
    NotADirectory {
        /// The root-relative path.
        path: String,
    },
    /// The path leaves the environment's root (through `..` or a
    /// symlink).
    #[error("{} is outside the environment root; use a path relative to the root without `..` above it", shown(.path))]
    PathEscape {
        /// The path as given, shortened to at most
        /// [`crate::bounds::MAX_ECHO_BYTES`].
        path: String,
    },
    /// The path is not usable (NUL bytes, longer or deeper than the
    /// provider's [`super::PathLimits`], ...).
    #[error("{} is not a valid path: {reason}", shown(.path))]
    InvalidPath {
        /// The path as given, shortened to at most
        /// [`crate::bounds::MAX_ECHO_BYTES`].
        path: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The file is not text: not UTF-8, or it holds NUL bytes.
    #[error("{} is not text (not UTF-8, or it holds NUL bytes): a binary file", shown(.path))]
    NotText {
        /// The root-relative path.
        path: String,
    },
    /// The path exists but may not be used: a symbolic link leading out
    /// of the root, or a file the host's permissions refuse.
    #[error("access to {} is denied: {reason}", shown(.path))]
    AccessDenied {
        /// The root-relative path.
        path: String,
        /// Why, in words.
        reason: String,
    },
    /// The shell policy refuses the command.
    #[error("{message} (shell policy rule `{rule}`)")]
    PolicyDenied {
        /// The rule that refused it (see
        /// [`crate::environment::ShellPolicy`]).
        rule: &'static str,
        /// What was refused and what is allowed instead.
        message: String,
        /// The programs the policy lets run, when the refusal is about which program may run
        /// (empty otherwise), so a caller can offer one without reading the message.
        allowed: Vec<String>,
    },
    /// The sandbox is required and this kernel cannot enforce it: every
    /// command is refused.
    #[error(
        "the shell sandbox is required but this kernel cannot enforce it: it lacks {}; \
         commands are refused. Run on Linux 6.7 or later with Landlock enabled, or set \
         `sandbox.required: false` (SandboxPolicy::with_required(false)) to run commands with \
         what the kernel enforces, or `sandbox.mode: off` to run them without a sandbox",
        .missing.join("; ")
    )]
    SandboxUnavailable {
        /// What the kernel lacks, one entry per missing feature.
        missing: Vec<String>,
    },
    /// No process has this id, or it finished and is no longer retained.
    #[error(
        "no process `{}` is known here (it never existed, or finished and was dropped from the \
         retained completed processes); `shell_status` without an id lists the known ones",
        echo(.id)
    )]
    UnknownProcess {
        /// The id as given, shortened.
        id: String,
    },
    /// As many processes as the provider allows are already running.
    #[error(
        "{limit} processes are already running, the most this environment allows at once; wait \
         for one to finish (`shell_wait`) or stop one (`shell_kill`), then start again"
    )]
    ProcessLimit {
        /// The provider's `max_concurrent_processes`.
        limit: usize,
    },
    /// A command could not be started (the program does not exist, is
    /// not executable, ...).
    #[error("could not start `{}`: {source}", echo(.command))]
    Spawn {
        /// The command, shortened.
        command: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The provider does not implement this operation.
    #[error("environment `{}` does not support {}", echo(.environment), echo(.operation))]
    Unsupported {
        /// The provider's name.
        environment: String,
        /// The operation, in words.
        operation: String,
    },
    /// An operating-system error.
    #[error("I/O error on {}: {source}", shown(.path))]
    Io {
        /// The root-relative path.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl EnvironmentError {
    /// The path the error concerns.
    #[must_use]
    pub fn path(&self) -> Option<&str> {
        match self {
            Self::NotFound { path }
            | Self::IsADirectory { path }
            | Self::NotADirectory { path }
            | Self::PathEscape { path }
            | Self::InvalidPath { path, .. }
            | Self::NotText { path }
            | Self::AccessDenied { path, .. }
            | Self::Io { path, .. } => Some(path),
            Self::Unsupported { .. }
            | Self::PolicyDenied { .. }
            | Self::UnknownProcess { .. }
            | Self::ProcessLimit { .. }
            | Self::Spawn { .. }
            | Self::SandboxUnavailable { .. } => None,
        }
    }
}

/// A path for a message: the root has no name, so it is spelled out; a
/// long path is shortened, so no message repeats a hostile path in full.
fn shown(path: &str) -> String {
    if path.is_empty() {
        "the environment root (`/`)".to_string()
    } else {
        format!("`{}`", echo(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::MAX_ECHO_BYTES;

    #[test]
    fn messages_shorten_long_paths() {
        let path = "p/".repeat(10_000);
        let errors = [
            EnvironmentError::NotFound { path: path.clone() },
            EnvironmentError::IsADirectory { path: path.clone() },
            EnvironmentError::NotADirectory { path: path.clone() },
            EnvironmentError::NotText { path: path.clone() },
            EnvironmentError::Io {
                path: path.clone(),
                source: std::io::Error::other("denied"),
            },
            EnvironmentError::Unsupported {
                environment: path.clone(),
                operation: path.clone(),
            },
        ];
        for error in errors {
            let message = error.to_string();
            assert!(message.len() < 3 * MAX_ECHO_BYTES, "{}", message.len());
        }
        assert_eq!(
            EnvironmentError::NotFound { path: "a/b".into() }.to_string(),
            "`a/b` does not exist; list the parent directory to see what is there"
        );
    }
}
