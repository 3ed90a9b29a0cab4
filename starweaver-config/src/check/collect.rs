//! Which files a check reads: files named on the command line as given, folders searched for
//! `*.yaml` and `*.yml` files.

use std::path::{Path, PathBuf};

/// The path checked when none is given: the conventional manifest folder.
pub const DEFAULT_PATH: &str = "agents";

/// Folders nested deeper than this under a given folder are not searched, so a pathological
/// tree cannot make the walk run away.
const MAX_DEPTH: usize = 32;

/// A path that could not be searched; each names the path.
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    /// The path does not exist (or cannot be seen).
    #[error("cannot read `{path}`: {source}")]
    Unreadable {
        /// The path as given or found.
        path: String,
        /// The I/O failure.
        source: std::io::Error,
    },
}

/// The files to check under `paths`, in order: each file path as given, and for each folder
/// its `*.yaml`/`*.yml` files found recursively, sorted by path.
///
/// Hidden entries (names starting with `.`) and symbolic links to folders are skipped while
/// searching, so `.git` and link loops are never walked. Paths that cannot be read are
/// returned beside the files found, so one bad path does not hide the others' problems.
#[must_use]
pub fn collect_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<CollectError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let mut found = Vec::new();
                walk(path, 0, &mut found, &mut errors);
                found.sort();
                files.extend(found);
            }
            Ok(_) => files.push(path.clone()),
            Err(source) => errors.push(CollectError::Unreadable {
                path: path.display().to_string(),
                source,
            }),
        }
    }
    (files, errors)
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>, errors: &mut Vec<CollectError>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(source) => {
            errors.push(CollectError::Unreadable {
                path: dir.display().to_string(),
                source,
            });
            return;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(source) => {
                errors.push(CollectError::Unreadable {
                    path: dir.display().to_string(),
                    source,
                });
                continue;
            }
        };
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if depth < MAX_DEPTH {
                walk(&path, depth + 1, found, errors);
            }
        } else if is_manifest_name(&path) && (kind.is_file() || path.is_file()) {
            found.push(path);
        }
    }
}

fn is_manifest_name(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_yaml_extensions_count() {
        assert!(is_manifest_name(Path::new("a/b.yaml")));
        assert!(is_manifest_name(Path::new("b.yml")));
        assert!(!is_manifest_name(Path::new("b.json")));
        assert!(!is_manifest_name(Path::new("yaml")));
    }
}
