//! The local provider over real folders: the same contract as the
//! in-memory provider, confinement against hostile trees (links leading
//! out, parents that are links), ignore rules in walks and searches, the
//! environment file tree, and the filesystem bundle on disk.

mod bundle;
mod confinement;
mod contract;
mod file_tree;
mod ignores;

use std::fs;
use std::path::Path;

use starweaver::environment::LocalEnvironmentProvider;
use tempfile::TempDir;

/// A folder holding `files` (path, content), parents created.
pub fn folder(files: &[(&str, &str)]) -> TempDir {
    let root = tempfile::tempdir().unwrap();
    for (path, content) in files {
        write(root.path(), path, content);
    }
    root
}

/// Writes `content` at `path` below `root`, creating parents.
pub fn write(root: &Path, path: &str, content: &str) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

/// A link at `path` below `root` pointing to `target` (taken as is).
pub fn link(root: &Path, path: &str, target: impl AsRef<Path>) {
    std::os::unix::fs::symlink(target, root.join(path)).unwrap();
}

/// A provider over `root` whose results do not depend on the host user's
/// global git excludes.
pub fn local(root: &TempDir) -> LocalEnvironmentProvider {
    LocalEnvironmentProvider::new(root.path())
        .unwrap()
        .with_global_git_excludes(false)
}

/// Every name in `folder` (hidden ones too), sorted.
pub fn names(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
