//! What docs/manifest.md says a path is relative to agrees with itself and with the loader.

use std::path::Path;

/// The lines of docs/manifest.md that say what a skill scope's path is relative to.
fn scope_statements(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| line.contains("scope") && line.contains("relative to"))
        .collect()
}

/// Regression: docs/manifest.md said `skills.scopes` are relative to the environment's root in
/// one place and to the manifest's folder in another; the loader (`paths::scope_in_environment`)
/// joins a scope to the manifest's folder and only requires it to lie inside the root.
#[test]
fn skill_scopes_are_relative_to_the_manifests_folder_everywhere() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/manifest.md");
    let text = std::fs::read_to_string(path).unwrap();
    let statements = scope_statements(&text);
    assert!(statements.len() >= 2, "{statements:#?}");
    for line in statements {
        assert!(
            line.contains("relative to the manifest's folder"),
            "docs/manifest.md: {line}"
        );
        assert!(
            !line.contains("relative to the environment's root"),
            "docs/manifest.md: {line}"
        );
    }
}

/// The loader's rule the docs state: a scope is the manifest's folder joined with its path, even
/// when `environment.root` moves the environment elsewhere.
#[test]
fn the_loader_joins_a_scope_to_the_manifests_folder() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    std::fs::create_dir_all(repo.join("agents/skills")).unwrap();
    let manifest_folder = repo.join("agents");
    let root = starweaver::config::paths::environment_root(&manifest_folder, Some(".."));
    let inside =
        starweaver::config::paths::scope_in_environment(&manifest_folder, &root, ".").unwrap();
    // `.` is the manifest's folder (`agents`), not the environment's root (the repository).
    assert_eq!(inside, "agents");
}
