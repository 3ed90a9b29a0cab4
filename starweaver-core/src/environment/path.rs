//! Root-relative paths: the one path space every provider shares.

use super::EnvironmentError;

/// Normalizes a path given to an environment into its root-relative form:
/// `/`-separated, no `.` segments, no trailing slash, `""` for the root.
/// A leading `/` means the environment root. `..` is resolved lexically
/// and may not climb above the root.
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
/// [`EnvironmentError::InvalidPath`] for NUL bytes.
pub fn normalize_path(path: &str) -> Result<String, EnvironmentError> {
    if path.contains('\0') {
        return Err(EnvironmentError::InvalidPath {
            path: path.replace('\0', "\\0"),
            reason: "paths may not contain NUL bytes".to_string(),
        });
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() {
                    return Err(EnvironmentError::PathEscape {
                        path: path.to_string(),
                    });
                }
            }
            other => segments.push(other),
        }
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
