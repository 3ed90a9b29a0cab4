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
    let relative = Path::new(file);
    let mut depth = 0usize;
    for part in relative.components() {
        match part {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(FileProblem::OutsideFolder)
            }
        }
    }
    let path = manifest_relative(base_dir, file);
    if let (Ok(folder), Ok(resolved)) = (base_dir.canonicalize(), path.canonicalize()) {
        if !resolved.starts_with(&folder) {
            return Err(FileProblem::OutsideFolder);
        }
    }
    Ok(path)
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
