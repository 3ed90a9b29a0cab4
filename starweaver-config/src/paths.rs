//! Where a manifest's folders and files are, worked out once for the checker and the loader:
//! every path a manifest writes is relative to the manifest's folder ([`manifest_relative`]);
//! the local environment's root; a skill scope as a path inside that root (the agent reads
//! skills through its environment, so a scope outside the root could never be read); and the
//! `script` model's file, which stays inside the manifest's folder.

use std::path::{Component, Path, PathBuf};

/// A path a manifest writes, resolved the one way every such path is: relative to the
/// manifest's folder `base_dir`.
#[must_use]
pub fn manifest_relative(base_dir: &Path, path: &str) -> PathBuf {
    base_dir.join(path)
}

/// The folder a local environment opens: `root` (default `.`) relative to the manifest's folder.
#[must_use]
pub fn environment_root(base_dir: &Path, root: Option<&str>) -> PathBuf {
    manifest_relative(base_dir, root.unwrap_or("."))
}

/// Why a file a manifest names cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileProblem {
    /// The path is absolute, climbs out with `..`, or (through a link) ends outside the
    /// manifest's folder.
    OutsideFolder,
}

/// The `script` model's file `file`, relative to the manifest's folder `base_dir` and inside
/// it: a manifest and its script travel together, and a checker pointed at one folder reads
/// nothing beyond it. A file that does not exist yet is left for the reader to report.
///
/// # Errors
/// [`FileProblem::OutsideFolder`] for an absolute path, a `..` that leaves the folder, or a
/// link that resolves outside it.
pub fn script_file(base_dir: &Path, file: &str) -> Result<PathBuf, FileProblem> {
    inside(base_dir, file)?;
    Ok(manifest_relative(base_dir, file))
}

/// A file a manifest names (such as `output.schema_file`), relative to the manifest's folder
/// `base_dir` and inside it, under the same rule as the `script` model's file.
///
/// # Errors
/// [`FileProblem::OutsideFolder`] for an absolute path, a `..` that leaves the folder, or a
/// link that resolves outside it.
pub fn manifest_file(base_dir: &Path, file: &str) -> Result<PathBuf, FileProblem> {
    script_file(base_dir, file)
}

/// A folder `shell.sandbox.writable` names, relative to the environment root `root` and inside
/// it, as a path under `root` with its `.` and `..` parts worked out (`root/target`). The
/// sandbox opens it through the root, so one that leads out of it would refuse every command.
///
/// # Errors
/// [`FileProblem::OutsideFolder`] for an absolute path, a `..` that leaves the root, or a link
/// that resolves outside it.
pub fn writable_folder(root: &Path, folder: &str) -> Result<PathBuf, FileProblem> {
    inside(root, folder)
}

/// `relative` joined to `base`, its `.` and `..` parts resolved, when it stays inside `base`:
/// as written, and through links when both exist (checked on the path as written, the way the
/// system would follow it).
fn inside(base: &Path, relative: &str) -> Result<PathBuf, FileProblem> {
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for part in Path::new(relative).components() {
        match part {
            Component::Normal(name) => parts.push(name),
            Component::CurDir => {}
            Component::ParentDir if !parts.is_empty() => {
                parts.pop();
            }
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(FileProblem::OutsideFolder)
            }
        }
    }
    let written = base.join(relative);
    if let (Ok(folder), Ok(resolved)) = (base.canonicalize(), written.canonicalize()) {
        if !resolved.starts_with(&folder) {
            return Err(FileProblem::OutsideFolder);
        }
    }
    Ok(parts
        .iter()
        .fold(base.to_path_buf(), |path, part| path.join(part)))
}

/// Why a skill scope cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScopeProblem {
    /// The scope names no folder.
    NotAFolder,
    /// The scope is a folder outside the environment root.
    OutsideEnvironment {
        /// The environment's resolved root.
        root: PathBuf,
    },
    /// The environment root itself cannot be resolved (reported on `environment.root`).
    NoRoot,
}

/// The scope `scope` (relative to the manifest's folder `base_dir`) as a `/`-joined path relative
/// to the environment root `root` (`""` for the root itself).
///
/// # Errors
/// [`ScopeProblem`] when either folder is missing or the scope is not inside the root.
pub fn scope_in_environment(
    base_dir: &Path,
    root: &Path,
    scope: &str,
) -> Result<String, ScopeProblem> {
    let Ok(root) = root.canonicalize() else {
        return Err(ScopeProblem::NoRoot);
    };
    let folder = base_dir.join(scope);
    if !folder.is_dir() {
        return Err(ScopeProblem::NotAFolder);
    }
    let folder = folder
        .canonicalize()
        .map_err(|_| ScopeProblem::NotAFolder)?;
    let inside = folder
        .strip_prefix(&root)
        .map_err(|_| ScopeProblem::OutsideEnvironment { root: root.clone() })?;
    let parts: Vec<String> = inside
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn scopes_resolve_inside_the_root_or_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        std::fs::create_dir_all(repo.join("agents/skills")).unwrap();
        let agents = repo.join("agents");
        let whole = environment_root(&agents, Some(".."));
        assert_eq!(
            scope_in_environment(&agents, &whole, ".").unwrap(),
            "agents"
        );
        assert_eq!(
            scope_in_environment(&agents, &whole, "skills").unwrap(),
            "agents/skills"
        );
        let own = environment_root(&agents, None);
        assert_eq!(scope_in_environment(&agents, &own, ".").unwrap(), "");
        let narrow = environment_root(&agents, Some("skills"));
        assert!(matches!(
            scope_in_environment(&agents, &narrow, "."),
            Err(ScopeProblem::OutsideEnvironment { .. })
        ));
        assert_eq!(
            scope_in_environment(&agents, &own, "missing"),
            Err(ScopeProblem::NotAFolder)
        );
        assert_eq!(
            scope_in_environment(&agents, &environment_root(&agents, Some("gone")), "."),
            Err(ScopeProblem::NoRoot)
        );
    }

    #[test]
    fn a_writable_folder_resolves_under_the_root_or_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("target")).unwrap();
        assert_eq!(
            writable_folder(&root, "target").unwrap(),
            root.join("target")
        );
        assert_eq!(
            writable_folder(&root, "./build/../out/").unwrap(),
            root.join("out")
        );
        assert_eq!(writable_folder(&root, ".").unwrap(), root);
        for escaping in ["..", "../repo-other", "target/../../x", "/tmp"] {
            assert_eq!(
                writable_folder(&root, escaping),
                Err(FileProblem::OutsideFolder),
                "{escaping}"
            );
        }
        // A link inside the root that points out of it is outside too.
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        assert_eq!(
            writable_folder(&root, "up"),
            Err(FileProblem::OutsideFolder)
        );
    }

    #[test]
    fn a_script_file_stays_inside_the_manifest_folder() {
        let dir = tempfile::tempdir().unwrap();
        let agents = dir.path().join("agents");
        std::fs::create_dir_all(agents.join("scripts")).unwrap();
        std::fs::write(dir.path().join("outside.yaml"), "[]").unwrap();
        assert_eq!(
            script_file(&agents, "a.script.yaml").unwrap(),
            agents.join("a.script.yaml")
        );
        assert!(script_file(&agents, "scripts/../a.yaml").is_ok());
        for escaping in [
            "../outside.yaml",
            "scripts/../../outside.yaml",
            "/etc/hostname",
        ] {
            assert_eq!(
                script_file(&agents, escaping),
                Err(FileProblem::OutsideFolder),
                "{escaping}"
            );
        }
        // A link inside the folder that points out of it is outside too.
        std::os::unix::fs::symlink(dir.path().join("outside.yaml"), agents.join("link.yaml"))
            .unwrap();
        assert_eq!(
            script_file(&agents, "link.yaml"),
            Err(FileProblem::OutsideFolder)
        );
    }
}
