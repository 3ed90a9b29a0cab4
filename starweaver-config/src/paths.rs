//! Where a manifest's folders are, worked out once for the checker and the loader: the local
//! environment's root, and a skill scope as a path inside that root (the agent reads skills
//! through its environment, so a scope outside the root could never be read).

use std::path::{Path, PathBuf};

/// The folder a local environment opens: `root` (default `.`) relative to the manifest's folder.
#[must_use]
pub fn environment_root(base_dir: &Path, root: Option<&str>) -> PathBuf {
    base_dir.join(root.unwrap_or("."))
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
}
