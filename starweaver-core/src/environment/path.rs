//! Root-relative paths: the one path space every provider shares.

use super::EnvironmentError;
use crate::bounds::echo;

/// Default for [`PathLimits::max_bytes`]: 4,096 bytes, `PATH_MAX` on
/// Linux.
pub const DEFAULT_MAX_PATH_BYTES: usize = 4_096;

/// Default for [`PathLimits::max_segments`]: 256 segments, deeper than
/// real project trees nest.
pub const DEFAULT_MAX_PATH_SEGMENTS: usize = 256;

/// How long and how deep a path given to an environment may be, so a
/// hostile path cannot make a provider build a tree of any depth. The
/// default allows 4,096 bytes ([`DEFAULT_MAX_PATH_BYTES`]) and 256
/// segments ([`DEFAULT_MAX_PATH_SEGMENTS`]).
///
/// ```
/// use starweaver_core::environment::{normalize_path_with, PathLimits};
/// let limits = PathLimits::default().with_max_segments(2);
/// assert_eq!(normalize_path_with("a/b", &limits).unwrap(), "a/b");
/// assert!(normalize_path_with("a/b/c", &limits).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathLimits {
    /// Longest path accepted, in bytes, as given (before `.`, `..` and
    /// repeated slashes are resolved).
    pub max_bytes: usize,
    /// Most segments of the normalized path (`a/b/c` has 3).
    pub max_segments: usize,
}

impl Default for PathLimits {
    fn default() -> Self {
        Self {
            max_bytes: DEFAULT_MAX_PATH_BYTES,
            max_segments: DEFAULT_MAX_PATH_SEGMENTS,
        }
    }
}

impl PathLimits {
    /// Sets [`Self::max_bytes`].
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// Sets [`Self::max_segments`].
    #[must_use]
    pub fn with_max_segments(mut self, max_segments: usize) -> Self {
        self.max_segments = max_segments;
        self
    }
}

/// Normalizes a path given to an environment into its root-relative form:
/// `/`-separated, no `.` segments, no trailing slash, `""` for the root.
/// A leading `/` means the environment root. `..` is resolved lexically
/// and may not climb above the root. The default [`PathLimits`] apply
/// (see [`normalize_path_with`]).
///
/// ```
/// use starweaver_core::environment::normalize_path;
/// assert_eq!(normalize_path("./src/../README.md").unwrap(), "README.md");
/// assert_eq!(normalize_path("/docs/").unwrap(), "docs");
/// assert!(normalize_path("../etc/passwd").is_err());
/// ```
///
/// # Errors
/// [`EnvironmentError::PathEscape`] when `..` climbs above the root,
/// [`EnvironmentError::InvalidPath`] for NUL bytes or a path over the
/// default limits.
pub fn normalize_path(path: &str) -> Result<String, EnvironmentError> {
    normalize_path_with(path, &PathLimits::default())
}

/// [`normalize_path`] under `limits`. The length is checked first, so a
/// huge path is refused before it is split. Errors store and show at
/// most [`crate::bounds::MAX_ECHO_BYTES`] of the path.
///
/// # Errors
/// [`EnvironmentError::PathEscape`] when `..` climbs above the root;
/// [`EnvironmentError::InvalidPath`] for NUL bytes, or a path longer or
/// deeper than `limits` allow (the reason names the limit).
pub fn normalize_path_with(path: &str, limits: &PathLimits) -> Result<String, EnvironmentError> {
    let invalid = |path: String, reason: String| EnvironmentError::InvalidPath { path, reason };
    if path.len() > limits.max_bytes {
        return Err(invalid(
            echo(path).into_owned(),
            format!(
                "the path is {} bytes long, more than the {} allowed; use a shorter path",
                path.len(),
                limits.max_bytes
            ),
        ));
    }
    if path.contains('\0') {
        return Err(invalid(
            echo(&path.replace('\0', "\\0")).into_owned(),
            "paths may not contain NUL bytes; remove them".to_string(),
        ));
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return Err(EnvironmentError::PathEscape {
                        path: echo(path).into_owned(),
                    });
                }
            }
            other => segments.push(other),
        }
    }
    if segments.len() > limits.max_segments {
        return Err(invalid(
            echo(path).into_owned(),
            format!(
                "the path has {} segments, more than the {} allowed; use a shorter path with \
                 fewer nested directories",
                segments.len(),
                limits.max_segments
            ),
        ));
    }
    Ok(segments.join("/"))
}

/// Like [`normalize_path`], but `..` at the root stays at the root, as
/// `/..` does on POSIX systems. Used where host code seeds an environment
/// and there is nobody to report an error to.
#[must_use]
pub(crate) fn clamp_path(path: &str) -> String {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    segments.join("/")
}

/// Joins a root-relative directory and a child name.
#[must_use]
pub fn join_path(directory: &str, name: &str) -> String {
    if directory.is_empty() {
        name.to_string()
    } else {
        format!("{directory}/{name}")
    }
}

/// The parent of a root-relative path (`None` for the root).
#[must_use]
pub fn parent_path(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    Some(path.rsplit_once('/').map_or("", |(parent, _)| parent))
}

/// The last segment of a root-relative path.
#[must_use]
pub fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::MAX_ECHO_BYTES;

    #[test]
    fn normalizes_and_rejects_escapes() {
        assert_eq!(normalize_path("").unwrap_or_default(), "");
        assert_eq!(normalize_path(".").unwrap_or_default(), "");
        assert_eq!(normalize_path("a//b/./c/").unwrap_or_default(), "a/b/c");
        assert_eq!(normalize_path("a/b/../../c").unwrap_or_default(), "c");
        assert!(matches!(
            normalize_path("a/../.."),
            Err(EnvironmentError::PathEscape { .. })
        ));
        assert!(matches!(
            normalize_path("a\0b"),
            Err(EnvironmentError::InvalidPath { .. })
        ));
        assert_eq!(clamp_path("/../../x/./y"), "x/y");
    }

    fn reason(result: Result<String, EnvironmentError>) -> (String, String) {
        match result {
            Err(EnvironmentError::InvalidPath { path, reason }) => (path, reason),
            other => panic!("expected InvalidPath, got {other:?}"),
        }
    }

    #[test]
    fn limits_default_to_4096_bytes_and_256_segments() {
        let limits = PathLimits::default();
        assert_eq!(limits.max_bytes, DEFAULT_MAX_PATH_BYTES);
        assert_eq!(limits.max_segments, DEFAULT_MAX_PATH_SEGMENTS);
        assert_eq!(
            (DEFAULT_MAX_PATH_BYTES, DEFAULT_MAX_PATH_SEGMENTS),
            (4_096, 256)
        );
        // At the limits is fine, one past is not.
        let deepest = vec!["d"; 256].join("/");
        assert!(normalize_path(&deepest).is_ok());
        let (_, why) = reason(normalize_path(&format!("{deepest}/d")));
        assert_eq!(
            why,
            "the path has 257 segments, more than the 256 allowed; use a shorter path with \
             fewer nested directories"
        );
        let longest = "x".repeat(4_096);
        assert!(normalize_path(&longest).is_ok());
        let (_, why) = reason(normalize_path(&format!("{longest}y")));
        assert!(why.starts_with("the path is 4097 bytes long, more than the 4096 allowed"));
    }

    #[test]
    fn segments_are_counted_after_normalizing() {
        // `..` and `.` do not count; only the depth reached does.
        let limits = PathLimits::default().with_max_segments(2);
        assert_eq!(
            normalize_path_with("a/./b/../c//", &limits).unwrap_or_default(),
            "a/c"
        );
        assert!(normalize_path_with("a/b/c", &limits).is_err());
        let limits = PathLimits::default().with_max_bytes(3);
        assert!(normalize_path_with("a/b", &limits).is_ok());
        assert!(normalize_path_with("a/bc", &limits).is_err());
    }

    #[test]
    fn refused_paths_are_stored_and_shown_shortened() {
        // A 300 KB path was stored and repeated in full in the message.
        let hostile = "d/".repeat(150_000) + "f";
        let raised = PathLimits::default().with_max_bytes(usize::MAX);
        for (result, limit) in [
            (normalize_path(&hostile), "4096"),
            (normalize_path_with(&hostile, &raised), "256"),
        ] {
            let error = result.err();
            let message = error.as_ref().map(ToString::to_string).unwrap_or_default();
            assert!(message.contains(limit), "{message}");
            assert!(message.len() < 2 * MAX_ECHO_BYTES, "{}", message.len());
            let stored = error.as_ref().and_then(EnvironmentError::path);
            assert!(stored.is_some_and(|path| path.len() <= MAX_ECHO_BYTES));
        }
        let (path, _) = reason(normalize_path_with(&hostile, &raised));
        assert!(path.ends_with("[300001 bytes, shortened]"), "{path}");
        let escape = "a/".repeat(2_000) + &"../".repeat(2_001);
        let error = normalize_path_with(&escape, &raised).err();
        assert!(
            matches!(&error, Some(EnvironmentError::PathEscape { path }) if path.len() <= MAX_ECHO_BYTES)
        );
        let nul = "\0".repeat(4_000);
        let (path, why) = reason(normalize_path(&nul));
        assert!(path.len() <= MAX_ECHO_BYTES && path.starts_with("\\0\\0"));
        assert!(why.contains("NUL"));
    }

    #[test]
    fn parents_and_names() {
        assert_eq!(parent_path("a/b/c"), Some("a/b"));
        assert_eq!(parent_path("a"), Some(""));
        assert_eq!(parent_path(""), None);
        assert_eq!(file_name("a/b/c.rs"), "c.rs");
        assert_eq!(join_path("", "a"), "a");
        assert_eq!(join_path("a", "b"), "a/b");
    }
}
