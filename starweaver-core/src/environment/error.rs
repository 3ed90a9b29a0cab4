//! Errors of environment operations.

/// What went wrong in an environment operation. Every variant names the
/// path it concerns, so a tool return or a host log says where to look.
#[derive(Debug, thiserror::Error)]
pub enum EnvironmentError {
    /// Nothing exists at the path.
    #[error("`{path}` does not exist; list the parent directory to see what is there")]
    NotFound {
        /// The root-relative path.
        path: String,
    },
    /// The path is a directory where a file was expected.
    #[error("`{path}` is a directory, not a file")]
    IsADirectory {
        /// The root-relative path.
        path: String,
    },
    /// The path (or one of its parents) is a file where a directory was
    /// expected.
    #[error("`{path}` is a file, not a directory")]
    NotADirectory {
        /// The root-relative path.
        path: String,
    },
    /// The path leaves the environment's root (through `..` or a
    /// symlink).
    #[error("`{path}` is outside the environment root; use a path relative to the root without `..` above it")]
    PathEscape {
        /// The path as given.
        path: String,
    },
    /// The path is not usable (empty segment rules, NUL bytes, ...).
    #[error("`{path}` is not a valid path: {reason}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The file is not UTF-8 text.
    #[error("`{path}` is not UTF-8 text (binary file?)")]
    NotText {
        /// The root-relative path.
        path: String,
    },
    /// The provider does not implement this operation.
    #[error("environment `{environment}` does not support {operation}")]
    Unsupported {
        /// The provider's name.
        environment: String,
        /// The operation, in words.
        operation: String,
    },
    /// An operating-system error.
    #[error("I/O error on `{path}`: {source}")]
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
            | Self::Io { path, .. } => Some(path),
            Self::Unsupported { .. } => None,
        }
    }
}
