//! Malformed files: strict scan errors and lenient diagnostics, long
//! descriptions, unreadable directories.

use std::sync::Arc;

use starweaver::environment::{DynEnvironment, EnvironmentError, VirtualEnvironmentProvider};
use starweaver::{SkillError, SkillRegistry, SkillScanDiagnosticKind};

use crate::common::environment::TestEnvironment;

use super::{env, root, scan_error, scan_ok, skill};

fn kinds(report: &starweaver::skills::SkillScanReport) -> Vec<SkillScanDiagnosticKind> {
    report
        .diagnostics()
        .iter()
        .map(|diagnostic| diagnostic.kind)
        .collect()
}

// ---------------------------------------------------------------------------
// Malformed files: strict errors and lenient diagnostics
// ---------------------------------------------------------------------------

#[tokio::test]
async fn malformed_skill_files_fail_scan_with_a_useful_message() {
    let cases: [(&str, &str, &[&str]); 8] = [
        (
            "",
            "MissingFrontmatter",
            &["skills/bad/SKILL.md", "the file is empty", "`---`"],
        ),
        (
            "# Bad\nno frontmatter",
            "MissingFrontmatter",
            &["the first line is `# Bad`", "must start with a `---` line"],
        ),
        (
            "---\nname: bad\ndescription: b\n",
            "UnclosedFrontmatter",
            &["never closed", "add a `---` line"],
        ),
        (
            "---\nname: bad\ndescription: a: b\n---\n",
            "InvalidFrontmatter",
            &["line 3", "quote values"],
        ),
        (
            "---\ndescription: no name\n---\n",
            "MissingField",
            &["no `name`", "add `name: "],
        ),
        (
            "---\nname: bad\n---\n",
            "MissingField",
            &["no `description`", "add `description: <what the skill does"],
        ),
        (
            "---\nname: bad\ndescription: '   '\n---\n",
            "MissingField",
            &["no `description`"],
        ),
        (
            "---\nname: bad skill\ndescription: b\n---\n",
            "InvalidName",
            &["`bad skill`", "whitespace", "ASCII letters"],
        ),
    ];
    for (content, variant, needles) in cases {
        let provider = env(&[("skills/bad/SKILL.md", content)]);
        let error = scan_error(provider).await;
        let debug = format!("{error:?}");
        assert!(debug.starts_with(variant), "{content:?}: {debug}");
        let message = error.to_string();
        assert!(message.contains("skills/bad/SKILL.md"), "{message}");
        assert_eq!(error.path(), Some("skills/bad/SKILL.md"));
        for needle in needles {
            assert!(
                message.contains(needle),
                "{content:?}: {message} lacks {needle}"
            );
        }
    }
}

#[tokio::test]
async fn scan_with_report_continues_past_malformed_files() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("skills")
            .with_file("skills/a-no-frontmatter/SKILL.md", "# Just markdown")
            .with_file("skills/b-no-name/SKILL.md", "---\ndescription: d\n---\n")
            .with_file(
                "skills/c-no-description/SKILL.md",
                "---\nname: c-no-description\n---\n",
            )
            .with_file(
                "skills/d-bad-name/SKILL.md",
                "---\nname: d/bad\ndescription: d\n---\n",
            )
            .with_file("skills/e-bad-yaml/SKILL.md", "---\nname: [oops\n---\n")
            .with_bytes("skills/f-binary/SKILL.md", vec![0xff, 0xfe, 0x00, 0x2d])
            .with_dir("skills/g-dir-entry/SKILL.md")
            .with_file("skills/good/SKILL.md", skill("good", "Good", "ok")),
    );
    let report = SkillRegistry::scan_with_report(provider, &root())
        .await
        .unwrap();
    assert_eq!(report.registry().names(), ["good"]);
    assert_eq!(
        kinds(&report),
        [
            SkillScanDiagnosticKind::Malformed,
            SkillScanDiagnosticKind::MissingName,
            SkillScanDiagnosticKind::MissingDescription,
            SkillScanDiagnosticKind::InvalidName,
            SkillScanDiagnosticKind::Malformed,
            SkillScanDiagnosticKind::Unreadable,
            SkillScanDiagnosticKind::Unreadable,
        ]
    );
    assert!(report.diagnostics().iter().all(|d| d.is_error()));
    let by_kind = |kind| {
        report
            .diagnostics()
            .iter()
            .find(|d| d.kind == kind)
            .unwrap()
    };
    // The name is recorded where the frontmatter had one.
    assert_eq!(
        by_kind(SkillScanDiagnosticKind::MissingDescription)
            .name
            .as_deref(),
        Some("c-no-description")
    );
    assert_eq!(
        by_kind(SkillScanDiagnosticKind::InvalidName)
            .name
            .as_deref(),
        Some("d/bad")
    );
    let unreadable: Vec<&str> = report
        .diagnostics()
        .iter()
        .filter(|d| d.kind == SkillScanDiagnosticKind::Unreadable)
        .map(|d| d.message.as_str())
        .collect();
    assert!(unreadable[0].contains("not UTF-8"), "{}", unreadable[0]);
    assert!(
        unreadable[1].contains("is a directory"),
        "{}",
        unreadable[1]
    );
}

#[tokio::test]
async fn long_descriptions_are_shortened_and_names_checked_against_folders() {
    let long = "word ".repeat(400);
    let provider = env(&[
        ("skills/long/SKILL.md", &skill("long", &long, "b")),
        (
            "skills/folder/SKILL.md",
            &skill("other-name", "Mismatch", "b"),
        ),
    ]);
    let report = SkillRegistry::scan_with_report(provider.clone(), &root())
        .await
        .unwrap();
    let description = &report.registry().get("long").unwrap().description;
    assert_eq!(
        description.chars().count(),
        starweaver::skills::MAX_SKILL_DESCRIPTION_CHARS
    );
    assert!(description.ends_with('…'));
    assert_eq!(
        kinds(&report),
        [
            SkillScanDiagnosticKind::NameMismatch,
            SkillScanDiagnosticKind::DescriptionTruncated
        ]
    );
    let mismatch = &report.diagnostics()[0];
    assert_eq!(mismatch.name.as_deref(), Some("other-name"));
    assert!(
        mismatch.message.contains("folder is `folder`"),
        "{}",
        mismatch.message
    );
    // The skill loads under its frontmatter name; warnings are not errors.
    assert!(scan_ok(provider, &root()).await.contains("other-name"));
}

#[tokio::test]
async fn unreadable_skill_directories_are_reported() {
    let provider: DynEnvironment = Arc::new(
        TestEnvironment::new(
            VirtualEnvironmentProvider::new("x")
                .with_file(".agents/skills/hidden/SKILL.md", skill("hidden", "H", "h"))
                .with_file("skills/ok/SKILL.md", skill("ok", "Ok", "ok")),
        )
        .with_unlistable_dir(".agents/skills"),
    );
    let report = SkillRegistry::scan_with_report(provider.clone(), &root())
        .await
        .unwrap();
    assert_eq!(report.registry().names(), ["ok"]);
    assert_eq!(kinds(&report), [SkillScanDiagnosticKind::Unreadable]);
    assert_eq!(report.diagnostics()[0].path, ".agents/skills");
    assert!(report.diagnostics()[0].message.contains("denied"));
    match SkillRegistry::scan(provider, &root()).await {
        Err(error @ SkillError::Unreadable { .. }) => {
            assert_eq!(error.path(), Some(".agents/skills"));
            assert!(std::error::Error::source(&error).is_some());
        }
        other => panic!("expected Unreadable, got {other:?}"),
    }
}

#[test]
fn skill_errors_convert_from_environment_errors() {
    let error: SkillError = EnvironmentError::NotFound {
        path: "x".to_string(),
    }
    .into();
    assert!(matches!(error, SkillError::Environment(_)));
    assert_eq!(error.path(), Some("x"));
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(error);
    assert!(boxed.to_string().contains("`x` does not exist"));
}
