//! Which files a check reads: files named on the command line as given, folders searched for
//! `*.yaml` and `*.yml` files (leaving out `script` model turns, `*.script.yaml`).

use std::path::{Path, PathBuf};

/// The path checked when none is given: the conventional manifest folder.
pub const DEFAULT_PATH: &str = "agents";

/// Folders nested deeper than this under a given folder are not searched, so a pathological
/// tree cannot make the walk run away.
const MAX_DEPTH: usize = 32;

/// At most this many files are checked in one run; the report keeps every file's text for
/// quoting, so the count bounds the memory a check can take.
pub const MAX_FILES: usize = 10_000;

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
    /// A folder holds no `*.yaml`/`*.yml` file: a check pointed at the wrong folder must not
    /// pass as if it had found nothing wrong.
    #[error(
        "no manifests found in `{path}`: it holds no `*.yaml` or `*.yml` file (hidden entries \
         are skipped); name the folder or file that holds the manifests"
    )]
    NoManifests {
        /// The folder as given.
        path: String,
    },
    /// More than [`MAX_FILES`] files were found; the rest are not checked.
    #[error("more than {MAX_FILES} manifest files under `{path}`: check a narrower folder")]
    TooMany {
        /// The folder whose walk went over the limit.
        path: String,
    },
}

/// The files to check under `paths`, in order: each file path as given, and for each folder
/// its `*.yaml`/`*.yml` files found recursively, sorted by path.
///
/// Hidden entries (names starting with `.`) and symbolic links to folders are skipped while
/// searching, so `.git` and link loops are never walked. Paths that cannot be read are
/// returned beside the files found, so one bad path does not hide the others' problems; so is
/// a folder with no manifest file in it.
#[must_use]
pub fn collect_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<CollectError>) {
    collect_limited(paths, MAX_FILES)
}

fn collect_limited(paths: &[PathBuf], limit: usize) -> (Vec<PathBuf>, Vec<CollectError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let mut found = Vec::new();
                let room = limit.saturating_sub(files.len());
                walk(path, 0, limit, &mut found, &mut errors);
                if found.is_empty() {
                    errors.push(CollectError::NoManifests {
                        path: path.display().to_string(),
                    });
                }
                found.sort();
                if found.len() > room {
                    found.truncate(room);
                    errors.push(CollectError::TooMany {
                        path: path.display().to_string(),
                    });
                }
                files.extend(found);
            }
            Ok(_) if files.len() >= limit => errors.push(CollectError::TooMany {
                path: path.display().to_string(),
            }),
            Ok(_) => files.push(path.clone()),
            Err(source) => errors.push(CollectError::Unreadable {
                path: path.display().to_string(),
                source,
            }),
        }
    }
    (files, errors)
}

fn walk(
    dir: &Path,
    depth: usize,
    limit: usize,
    found: &mut Vec<PathBuf>,
    errors: &mut Vec<CollectError>,
) {
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
        if found.len() > limit {
            return;
        }
        if kind.is_dir() {
            if depth < MAX_DEPTH {
                walk(&path, depth + 1, limit, found, errors);
            }
        } else if is_manifest_name(&path) && (kind.is_file() || path.is_file()) {
            found.push(path);
        }
    }
}

/// A `*.yaml`/`*.yml` file that is not a `script` model's turns (`*.script.yaml`), which sit
/// beside the manifests that play them.
fn is_manifest_name(path: &Path) -> bool {
    let yaml = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    );
    let script = path
        .file_stem()
        .and_then(|stem| stem.to_str())
        .is_some_and(|stem| stem.ends_with(".script"));
    yaml && !script
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
        // A model script beside its manifest is not a manifest.
        assert!(!is_manifest_name(Path::new(
            "agents/repo-helper.script.yaml"
        )));
        assert!(!is_manifest_name(Path::new("a.script.yml")));
        assert!(is_manifest_name(Path::new("script.yaml")));
    }

    #[test]
    fn walks_stop_at_the_file_limit_and_say_so() {
        let dir = std::env::temp_dir().join(format!("starweaver-collect-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join("sub"));
        for name in ["a.yaml", "b.yaml", "sub/c.yml"] {
            let _ = std::fs::write(dir.join(name), "x");
        }
        let (files, errors) = collect_limited(std::slice::from_ref(&dir), 2);
        assert_eq!(files, [dir.join("a.yaml"), dir.join("b.yaml")]);
        assert!(matches!(errors.as_slice(), [CollectError::TooMany { .. }]));
        let (files, errors) = collect_limited(std::slice::from_ref(&dir), 3);
        assert_eq!(files.len(), 3);
        assert!(errors.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Regression: a folder without manifests gave no files and no error, so `check emptydir`
    /// passed with "0 errors".
    #[test]
    fn a_folder_without_manifests_is_an_error() {
        let dir = std::env::temp_dir().join(format!("starweaver-empty-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join(".hidden"));
        let _ = std::fs::write(dir.join("notes.txt"), "x");
        let _ = std::fs::write(dir.join(".hidden/a.yaml"), "x");
        let (files, errors) = collect_files(std::slice::from_ref(&dir));
        assert!(files.is_empty());
        assert!(
            matches!(errors.as_slice(), [CollectError::NoManifests { path }] if path == &dir.display().to_string()),
            "{errors:?}"
        );
        assert!(errors[0].to_string().starts_with("no manifests found in `"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
