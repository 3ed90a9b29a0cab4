//! Scanning: the five precedence levels, scopes, duplicates, missing
//! directories, stray files and summaries.

use std::sync::Arc;

use starweaver::environment::VirtualEnvironmentProvider;
use starweaver::skills::{SkillDiagnosticSeverity, SkillDirectoryKind, SkillSource};
use starweaver::{SkillError, SkillRegistry, SkillScanDiagnosticKind, SkillSourceScope};

use super::{env, root, scan_error, scan_ok, skill};

// ---------------------------------------------------------------------------
// Scanning and precedence
// ---------------------------------------------------------------------------

#[tokio::test]
async fn precedence_runs_through_all_five_levels() {
    // The same skill at every level; each level also has one skill of its
    // own so we can see all of them load.
    let files = [
        (
            "builtin/skills/shared-name/SKILL.md",
            skill("shared-name", "builtin", "b"),
        ),
        (
            "builtin/skills/only-builtin/SKILL.md",
            skill("only-builtin", "b", "b"),
        ),
        (
            "home/.agents/skills/shared-name/SKILL.md",
            skill("shared-name", "user shared", "us"),
        ),
        (
            "home/.agents/skills/only-user-shared/SKILL.md",
            skill("only-user-shared", "x", "x"),
        ),
        (
            "home/skills/shared-name/SKILL.md",
            skill("shared-name", "user tool", "ut"),
        ),
        (
            "home/skills/only-user-tool/SKILL.md",
            skill("only-user-tool", "x", "x"),
        ),
        (
            "ws/.agents/skills/shared-name/SKILL.md",
            skill("shared-name", "workspace shared", "ws"),
        ),
        (
            "ws/.agents/skills/only-ws-shared/SKILL.md",
            skill("only-ws-shared", "x", "x"),
        ),
        (
            "ws/skills/shared-name/SKILL.md",
            skill("shared-name", "workspace tool", "wt"),
        ),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
    let builtin = SkillSourceScope::builtin("builtin");
    let user = SkillSourceScope::user("home");
    let workspace = SkillSourceScope::new("ws");

    // The order scopes are given in does not matter across levels.
    for scopes in [
        vec![builtin.clone(), user.clone(), workspace.clone()],
        vec![workspace.clone(), user.clone(), builtin.clone()],
    ] {
        let report = SkillRegistry::scan_with_report(env(&files), &scopes)
            .await
            .unwrap();
        let registry = report.registry();
        let winner = registry.get("shared-name").unwrap();
        assert_eq!(winner.description, "workspace tool");
        assert_eq!(winner.path, "ws/skills/shared-name/SKILL.md");
        assert_eq!(winner.source, SkillSource::Workspace);
        assert_eq!(winner.directory_kind, SkillDirectoryKind::ToolSpecific);
        assert_eq!(winner.scope, "ws");
        assert_eq!(
            registry.names(),
            [
                "only-builtin",
                "only-user-shared",
                "only-user-tool",
                "only-ws-shared",
                "shared-name"
            ]
        );
        // Four overrides, each naming loser and winner, lowest first.
        let overrides: Vec<(&str, &str)> = report
            .diagnostics()
            .iter()
            .filter(|d| d.kind == SkillScanDiagnosticKind::DuplicateOverridden)
            .map(|d| (d.path.as_str(), d.related_path.as_deref().unwrap()))
            .collect();
        assert_eq!(
            overrides,
            [
                (
                    "builtin/skills/shared-name/SKILL.md",
                    "home/.agents/skills/shared-name/SKILL.md"
                ),
                (
                    "home/.agents/skills/shared-name/SKILL.md",
                    "home/skills/shared-name/SKILL.md"
                ),
                (
                    "home/skills/shared-name/SKILL.md",
                    "ws/.agents/skills/shared-name/SKILL.md"
                ),
                (
                    "ws/.agents/skills/shared-name/SKILL.md",
                    "ws/skills/shared-name/SKILL.md"
                ),
            ]
        );
        assert!(!report.has_errors());
    }

    // Drop the higher levels one at a time: the next one down wins.
    let expectations = [
        (vec![builtin.clone(), user.clone()], "user tool"),
        (vec![builtin.clone()], "builtin"),
    ];
    for (scopes, expected) in expectations {
        let registry = scan_ok(env(&files), &scopes).await;
        assert_eq!(registry.get("shared-name").unwrap().description, expected);
    }
    // Without the tool-specific user copy, user shared beats built-in.
    let mut trimmed = files.clone();
    trimmed.retain(|(path, _)| !path.starts_with("home/skills/shared-name"));
    let registry = scan_ok(env(&trimmed), &[builtin, user]).await;
    assert_eq!(
        registry.get("shared-name").unwrap().description,
        "user shared"
    );
}

#[tokio::test]
async fn tool_specific_skills_beat_shared_ones_in_a_scope() {
    let provider = env(&[
        (
            ".agents/skills/research/SKILL.md",
            &skill("research", "Shared", "shared"),
        ),
        (
            "skills/research/SKILL.md",
            &skill("research", "Tool", "tool"),
        ),
        (
            ".agents/skills/notes/SKILL.md",
            &skill("notes", "Notes", "n"),
        ),
    ]);
    let report = SkillRegistry::scan_with_report(provider.clone(), &root())
        .await
        .unwrap();
    assert_eq!(
        report.registry().get("research").unwrap().description,
        "Tool"
    );
    assert_eq!(
        report.registry().get("notes").unwrap().directory_kind,
        SkillDirectoryKind::Shared
    );
    let diagnostic = &report.diagnostics()[0];
    assert_eq!(
        diagnostic.kind,
        SkillScanDiagnosticKind::DuplicateOverridden
    );
    assert_eq!(diagnostic.severity, SkillDiagnosticSeverity::Info);
    assert_eq!(diagnostic.name.as_deref(), Some("research"));
    assert_eq!(diagnostic.path, ".agents/skills/research/SKILL.md");
    assert_eq!(
        diagnostic.related_path.as_deref(),
        Some("skills/research/SKILL.md")
    );
    assert!(
        diagnostic.message.contains("workspace shared"),
        "{}",
        diagnostic.message
    );
    assert!(
        diagnostic.message.contains("workspace tool-specific"),
        "{}",
        diagnostic.message
    );
    // Overrides by precedence are not errors for the strict scan either.
    let registry = scan_ok(provider, &root()).await;
    assert_eq!(registry.get("research").unwrap().description, "Tool");
}

#[tokio::test]
async fn later_scopes_of_one_level_win() {
    let provider = env(&[
        (
            "a/skills/research/SKILL.md",
            &skill("research", "from a", "a"),
        ),
        (
            "b/skills/research/SKILL.md",
            &skill("research", "from b", "b"),
        ),
    ]);
    let ab = [SkillSourceScope::new("a"), SkillSourceScope::new("b")];
    let ba = [SkillSourceScope::new("b"), SkillSourceScope::new("a")];
    assert_eq!(
        scan_ok(provider.clone(), &ab)
            .await
            .get("research")
            .unwrap()
            .description,
        "from b"
    );
    assert_eq!(
        scan_ok(provider, &ba)
            .await
            .get("research")
            .unwrap()
            .description,
        "from a"
    );
}

#[tokio::test]
async fn repeated_scopes_do_not_report_a_skill_overriding_itself() {
    let provider = env(&[("skills/research/SKILL.md", &skill("research", "R", "r"))]);
    let scopes = [
        SkillSourceScope::new(""),
        SkillSourceScope::new("."),
        SkillSourceScope::user("/"),
    ];
    let report = SkillRegistry::scan_with_report(provider, &scopes)
        .await
        .unwrap();
    assert!(
        report.diagnostics().is_empty(),
        "{:?}",
        report.diagnostics()
    );
    assert_eq!(
        report.registry().get("research").unwrap().source,
        SkillSource::Workspace
    );
}

#[tokio::test]
async fn duplicates_in_one_directory_keep_the_first_and_fail_the_strict_scan() {
    let provider = env(&[
        ("skills/alpha/SKILL.md", &skill("research", "first", "1")),
        ("skills/beta/SKILL.md", &skill("research", "second", "2")),
    ]);
    let report = SkillRegistry::scan_with_report(provider.clone(), &root())
        .await
        .unwrap();
    assert_eq!(
        report.registry().get("research").unwrap().description,
        "first"
    );
    let conflict = report
        .diagnostics()
        .iter()
        .find(|d| d.kind == SkillScanDiagnosticKind::DuplicateConflict)
        .unwrap();
    assert_eq!(conflict.severity, SkillDiagnosticSeverity::Error);
    assert_eq!(conflict.path, "skills/beta/SKILL.md");
    assert_eq!(
        conflict.related_path.as_deref(),
        Some("skills/alpha/SKILL.md")
    );
    assert!(report.has_errors());

    match scan_error(provider).await {
        SkillError::DuplicateSkill {
            name,
            kept,
            ignored,
        } => {
            assert_eq!(name, "research");
            assert_eq!(kept, "skills/alpha/SKILL.md");
            assert_eq!(ignored, "skills/beta/SKILL.md");
        }
        other => panic!("expected DuplicateSkill, got {other:?}"),
    }
}

#[tokio::test]
async fn missing_skill_directories_are_fine() {
    let empty = Arc::new(VirtualEnvironmentProvider::new("empty"));
    let registry = SkillRegistry::scan(empty.clone(), &root()).await.unwrap();
    assert!(registry.is_empty());
    assert_eq!(registry.len(), 0);
    let report = SkillRegistry::scan_with_report(
        empty,
        &[
            SkillSourceScope::new("nowhere"),
            SkillSourceScope::user("home/nobody"),
        ],
    )
    .await
    .unwrap();
    assert!(report.registry().is_empty());
    assert!(report.diagnostics().is_empty());

    // A file where a skills directory would be is not a skills directory.
    let file = env(&[("skills", "not a directory"), ("README.md", "# hi")]);
    assert!(SkillRegistry::scan(file, &root()).await.unwrap().is_empty());
}

#[tokio::test]
async fn stray_files_hidden_folders_and_folders_without_skill_md() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("skills")
            .with_file("skills/README.md", "# Skills in this repo")
            .with_file("skills/.draft/SKILL.md", "not even frontmatter")
            .with_file("skills/notes/notes.md", "just notes")
            .with_file(
                "skills/lower/skill.md",
                skill("lower", "Lowercase file", "x"),
            )
            .with_dir("skills/empty")
            .with_file("skills/research/SKILL.md", skill("research", "R", "r")),
    );
    let report = SkillRegistry::scan_with_report(provider.clone(), &root())
        .await
        .unwrap();
    assert_eq!(report.registry().names(), ["research"]);
    let missing: Vec<&str> = report
        .diagnostics()
        .iter()
        .filter(|d| d.kind == SkillScanDiagnosticKind::MissingEntrypoint)
        .map(|d| d.path.as_str())
        .collect();
    assert_eq!(missing, ["skills/empty", "skills/lower", "skills/notes"]);
    assert!(report
        .diagnostics()
        .iter()
        .all(|d| d.severity == SkillDiagnosticSeverity::Warning));
    assert!(report.diagnostics()[0]
        .message
        .contains("skills/empty/SKILL.md"));
    // Warnings do not fail the strict scan.
    assert_eq!(scan_ok(provider, &root()).await.names(), ["research"]);
}

#[tokio::test]
async fn summaries_carry_optional_fields_and_location() {
    let provider = env(&[(
        "home/.agents/skills/pdf-tools/SKILL.md",
        "---\nname: pdf-tools\ndescription: >\n  Fill and merge PDF files.\n  Use for forms.\n\
         license: Apache-2.0\ncompatibility: needs poppler\nallowed-tools: Read Bash\n\
         metadata:\n  author: ada\n  version: '1.2'\nx-unknown-key: [1, 2]\n---\nBody\n",
    )]);
    let registry = scan_ok(provider, &[SkillSourceScope::user("home")]).await;
    let summary = registry.get("pdf-tools").unwrap();
    assert_eq!(
        summary.description,
        "Fill and merge PDF files. Use for forms."
    );
    assert_eq!(summary.path, "home/.agents/skills/pdf-tools/SKILL.md");
    assert_eq!(summary.directory, "home/.agents/skills/pdf-tools");
    assert_eq!(summary.folder_name(), "pdf-tools");
    assert_eq!(summary.source, SkillSource::User);
    assert_eq!(summary.directory_kind, SkillDirectoryKind::Shared);
    assert_eq!(summary.scope, "home");
    assert_eq!(summary.license.as_deref(), Some("Apache-2.0"));
    assert_eq!(summary.compatibility.as_deref(), Some("needs poppler"));
    assert_eq!(summary.allowed_tools, ["Read", "Bash"]);
    assert_eq!(summary.metadata["author"], "ada");
    assert_eq!(summary.metadata["version"], "1.2");
    assert_eq!(summary.fingerprint.len(), 16);
    assert!(summary.size > 0);
    assert!(registry.contains("pdf-tools"));
    assert!(registry.get("pdf").is_none());
    assert_eq!(registry.packages().len(), 1);
}

#[tokio::test]
async fn invalid_scope_paths_are_errors() {
    let provider = env(&[]);
    for result in [
        SkillRegistry::scan(provider.clone(), &[SkillSourceScope::new("../up")])
            .await
            .err(),
        SkillRegistry::scan_with_report(provider.clone(), &[SkillSourceScope::new("a/../../b")])
            .await
            .err(),
    ] {
        match result {
            Some(SkillError::InvalidScope { path, reason }) => {
                assert!(path.contains(".."));
                assert!(reason.contains("outside the environment root"), "{reason}");
            }
            other => panic!("expected InvalidScope, got {other:?}"),
        }
    }
}
