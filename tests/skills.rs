//! Behaviour of the skills layer: scanning with precedence, diagnostics,
//! activation, reloads, reload scheduling, the model-facing instruction
//! block and the `skills_scanned` startup record.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::Value;
use starweaver::environment::{
    DynEnvironment, EnvironmentError, EnvironmentProvider, VirtualEnvironmentProvider,
};
use starweaver::{
    skill_instruction, skill_tools, AgentBuilder, AgentContext, AgentStreamEvent,
    SkillDiagnosticSeverity, SkillDirectoryKind, SkillError, SkillRegistry, SkillReloadBinding,
    SkillReloadChangeKind, SkillReloadReason, SkillScanDiagnosticKind, SkillSource,
    SkillSourceScope, SkillSummary, TestModel, SKILLS_INSTRUCTION_GROUP, SKILLS_TOOLSET_NAME,
    SKILL_ACTIVATED_EVENT_KIND, SKILL_RELOAD_EVENT_KIND, SKILL_SCAN_EVENT_KIND,
};

mod common;
use common::environment::TestEnvironment;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A SKILL.md with a name, a description and a body.
fn skill(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n")
}

fn env(files: &[(&str, &str)]) -> Arc<VirtualEnvironmentProvider> {
    let mut provider = VirtualEnvironmentProvider::new("skills");
    for (path, content) in files {
        provider = provider.with_file(path, *content);
    }
    Arc::new(provider)
}

fn root() -> Vec<SkillSourceScope> {
    vec![SkillSourceScope::new("")]
}

async fn scan_ok(
    provider: Arc<VirtualEnvironmentProvider>,
    scopes: &[SkillSourceScope],
) -> SkillRegistry {
    match SkillRegistry::scan(provider, scopes).await {
        Ok(registry) => registry,
        Err(error) => panic!("scan failed: {error}"),
    }
}

async fn scan_error(provider: Arc<VirtualEnvironmentProvider>) -> SkillError {
    match SkillRegistry::scan(provider, &root()).await {
        Ok(registry) => panic!("scan succeeded: {:?}", registry.names()),
        Err(error) => error,
    }
}

fn kinds(report: &starweaver::SkillScanReport) -> Vec<SkillScanDiagnosticKind> {
    report
        .diagnostics()
        .iter()
        .map(|diagnostic| diagnostic.kind)
        .collect()
}

/// Every string anywhere in a JSON value.
fn all_strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items.iter().flat_map(all_strings).collect(),
        Value::Object(map) => map
            .iter()
            .flat_map(|(key, value)| std::iter::once(key.clone()).chain(all_strings(value)))
            .collect(),
        _ => Vec::new(),
    }
}

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
async fn crlf_and_bom_frontmatter_parse() {
    let provider = env(&[
        (
            "skills/crlf/SKILL.md",
            "---\r\nname: crlf\r\ndescription: Windows line endings\r\n---\r\nLine one.\r\nLine two.\r\n",
        ),
        (
            "skills/bom/SKILL.md",
            "\u{feff}---\nname: bom\ndescription: Starts with a BOM\n---\nBody.\n",
        ),
        (
            "skills/both/SKILL.md",
            "\u{feff}---\r\nname: both\r\ndescription: BOM and CRLF\r\n---\r\n",
        ),
    ]);
    let registry = scan_ok(provider.clone(), &root()).await;
    assert_eq!(
        registry.get("crlf").unwrap().description,
        "Windows line endings"
    );
    assert_eq!(
        registry.get("bom").unwrap().description,
        "Starts with a BOM"
    );
    assert_eq!(registry.get("both").unwrap().description, "BOM and CRLF");
    let active = SkillRegistry::activate(provider.clone(), "skills/crlf/SKILL.md")
        .await
        .unwrap();
    assert_eq!(active.body.as_deref(), Some("Line one.\nLine two."));
    let both = SkillRegistry::activate(provider, "skills/both/SKILL.md")
        .await
        .unwrap();
    assert_eq!(both.body, None);
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
        starweaver::MAX_SKILL_DESCRIPTION_CHARS
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
async fn odd_inputs_never_panic() {
    let huge = format!(
        "---\nname: huge\ndescription: {}\n---\n{}",
        "x".repeat(200_000),
        "y".repeat(100_000)
    );
    let inputs: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\xef\xbb\xbf".to_vec(),
        b"---".to_vec(),
        b"---\n---".to_vec(),
        b"---\r\n---\r\n".to_vec(),
        b"---\n\0\0\0\n---\n".to_vec(),
        b"---\nname: \"\\xZZ\"\n---\n".to_vec(),
        b"---\nname: &a [*a]\n---\n".to_vec(),
        b"---\n{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{\n---\n".to_vec(),
        b"\xc3\x28---\n".to_vec(),
        "---\nname: \u{202e}evil\ndescription: rtl\n---\n"
            .as_bytes()
            .to_vec(),
        huge.into_bytes(),
    ];
    let mut provider = VirtualEnvironmentProvider::new("odd");
    for (index, input) in inputs.iter().enumerate() {
        provider = provider.with_bytes(&format!("skills/s{index:02}/SKILL.md"), input.clone());
    }
    let provider = Arc::new(provider);
    let report = SkillRegistry::scan_with_report(provider.clone(), &root())
        .await
        .unwrap();
    // Only the huge (but valid) one loads.
    assert_eq!(report.registry().names(), ["huge"]);
    for index in 0..inputs.len() {
        let _ = SkillRegistry::activate(provider.clone(), &format!("skills/s{index:02}/SKILL.md"))
            .await;
    }
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

// ---------------------------------------------------------------------------
// Activation
// ---------------------------------------------------------------------------

#[tokio::test]
async fn activation_loads_the_body_or_none() {
    let provider = env(&[
        (
            "skills/research/SKILL.md",
            &skill("research", "R", "\n\n# Research\n\nCite sources.\n\n"),
        ),
        (
            "skills/empty/SKILL.md",
            "---\nname: empty\ndescription: No body\n---\n   \n",
        ),
        (
            ".agents/skills/shared/SKILL.md",
            &skill("shared", "S", "Shared body"),
        ),
    ]);
    let active = SkillRegistry::activate(provider.clone(), "skills/research/SKILL.md")
        .await
        .unwrap();
    assert_eq!(active.name(), "research");
    assert_eq!(active.body.as_deref(), Some("# Research\n\nCite sources."));
    assert_eq!(
        active.summary.directory_kind,
        SkillDirectoryKind::ToolSpecific
    );

    let empty = SkillRegistry::activate(provider.clone(), "skills/empty/SKILL.md")
        .await
        .unwrap();
    assert_eq!(empty.body, None);

    // A folder path reads the SKILL.md inside; `./` and `/` prefixes are
    // normalized.
    let folder = SkillRegistry::activate(provider.clone(), "./.agents/skills/shared")
        .await
        .unwrap();
    assert_eq!(folder.summary.path, ".agents/skills/shared/SKILL.md");
    assert_eq!(folder.summary.directory_kind, SkillDirectoryKind::Shared);
    assert_eq!(folder.body.as_deref(), Some("Shared body"));
    let slash = SkillRegistry::activate(provider, "/skills/research/SKILL.md")
        .await
        .unwrap();
    assert_eq!(slash.summary.path, "skills/research/SKILL.md");
}

#[tokio::test]
async fn activating_a_missing_file_says_what_to_do() {
    let provider = env(&[("skills/research/SKILL.md", &skill("research", "R", "r"))]);
    match SkillRegistry::activate(provider.clone(), "skills/reserch/SKILL.md").await {
        Err(error @ SkillError::NotFound { .. }) => {
            let message = error.to_string();
            assert!(
                message.contains("`skills/reserch/SKILL.md` does not exist"),
                "{message}"
            );
            assert!(message.contains("SKILL.md"), "{message}");
            assert_eq!(error.path(), Some("skills/reserch/SKILL.md"));
        }
        other => panic!("expected NotFound, got {other:?}"),
    }
    assert!(matches!(
        SkillRegistry::activate(provider.clone(), "skills/none").await,
        Err(SkillError::NotFound { .. })
    ));
    assert!(matches!(
        SkillRegistry::activate(provider, "../outside/SKILL.md").await,
        Err(SkillError::Unreadable { .. })
    ));
}

#[tokio::test]
async fn activation_validates_like_a_scan() {
    let provider = env(&[("skills/bad/SKILL.md", "---\nname: bad\n---\nBody")]);
    assert!(matches!(
        SkillRegistry::activate(provider, "skills/bad/SKILL.md").await,
        Err(SkillError::MissingField {
            field: "description",
            ..
        })
    ));
}

#[tokio::test]
async fn activation_event_carries_no_body() {
    let body = "SECRET-BODY-MARKER: step one, step two.";
    let provider = env(&[(
        "skills/research/SKILL.md",
        &skill("research", "Gather sources", body),
    )]);
    let mut context = AgentContext::default();
    let active = SkillRegistry::activate_with_context(
        provider.clone(),
        "skills/research/SKILL.md",
        &mut context,
    )
    .await
    .unwrap();
    assert_eq!(active.body.as_deref(), Some(body));
    let events: Vec<_> = context.events.of_kind(SKILL_ACTIVATED_EVENT_KIND).collect();
    assert_eq!(events.len(), 1);
    let payload = &events[0].payload;
    assert_eq!(payload["name"], "research");
    assert_eq!(payload["description"], "Gather sources");
    assert_eq!(payload["path"], "skills/research/SKILL.md");
    assert_eq!(payload["has_body"], true);
    assert_eq!(payload["body_chars"], body.chars().count());
    assert!(
        all_strings(payload)
            .iter()
            .all(|text| !text.contains("SECRET-BODY-MARKER")),
        "{payload}"
    );

    // A failed activation publishes nothing.
    let mut quiet = AgentContext::default();
    assert!(
        SkillRegistry::activate_with_context(provider, "skills/none/SKILL.md", &mut quiet)
            .await
            .is_err()
    );
    assert!(quiet.events.events().is_empty());
}

#[tokio::test]
async fn activate_skill_by_name_keeps_the_scanned_level() {
    let provider = env(&[
        (
            "home/skills/research/SKILL.md",
            &skill("research", "R", "user body"),
        ),
        (
            "home/skills/review/SKILL.md",
            &skill("review", "Rv", "review body"),
        ),
    ]);
    let registry = scan_ok(provider.clone(), &[SkillSourceScope::user("home")]).await;
    let active = registry
        .activate_skill(provider.clone(), "research")
        .await
        .unwrap();
    assert_eq!(active.summary.source, SkillSource::User);
    assert_eq!(active.summary.scope, "home");
    assert_eq!(active.body.as_deref(), Some("user body"));
    match registry.activate_skill(provider, "reserch").await {
        Err(error @ SkillError::UnknownSkill { .. }) => {
            let message = error.to_string();
            assert!(message.contains("no skill named `reserch`"), "{message}");
            assert!(message.contains("research, review"), "{message}");
        }
        other => panic!("expected UnknownSkill, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Reloads
// ---------------------------------------------------------------------------

#[tokio::test]
async fn reload_classifies_added_removed_and_modified_skills() {
    let provider = env(&[
        ("skills/keep/SKILL.md", &skill("keep", "Unchanged", "same")),
        ("skills/edit/SKILL.md", &skill("edit", "Before", "same")),
        (
            "skills/body/SKILL.md",
            &skill("body", "Body only", "old body"),
        ),
        (
            "skills/gone/SKILL.md",
            &skill("gone", "Removed soon", "bye"),
        ),
    ]);
    let registry = scan_ok(provider.clone(), &root()).await;

    provider
        .write_text("skills/edit/SKILL.md", &skill("edit", "After", "same"))
        .await
        .unwrap();
    provider
        .write_text(
            "skills/body/SKILL.md",
            &skill("body", "Body only", "NEW BODY"),
        )
        .await
        .unwrap();
    provider.remove("skills/gone/SKILL.md").await.unwrap();
    provider
        .write_text("skills/new/SKILL.md", &skill("new", "Fresh", "hi"))
        .await
        .unwrap();

    let report = registry
        .reload_with_report(provider.clone(), &root())
        .await
        .unwrap();
    let changes: Vec<(SkillReloadChangeKind, &str, Vec<String>)> = report
        .changes()
        .iter()
        .map(|change| (change.kind, change.name.as_str(), change.changed.clone()))
        .collect();
    assert_eq!(
        changes,
        [
            (
                SkillReloadChangeKind::Modified,
                "body",
                vec!["content".to_string()]
            ),
            (
                SkillReloadChangeKind::Modified,
                "edit",
                vec!["description".to_string(), "content".to_string()]
            ),
            (SkillReloadChangeKind::Removed, "gone", vec![]),
            (SkillReloadChangeKind::Added, "new", vec![]),
        ]
    );
    assert!(report.has_changes());
    assert_eq!(report.changes()[2].path, "skills/gone/SKILL.md");
    assert_eq!(report.registry().names(), ["body", "edit", "keep", "new"]);
    assert!(!report.reload_scheduled());
    assert_eq!(report.reload_reason(), None);
    // The old registry is untouched.
    assert!(registry.contains("gone"));

    // Reloading the fresh registry again finds nothing new.
    let fresh = report.into_registry();
    let again = fresh.reload_with_report(provider, &root()).await.unwrap();
    assert!(!again.has_changes());
}

#[tokio::test]
async fn reload_reports_moves_and_newly_malformed_files() {
    let provider = env(&[
        (
            ".agents/skills/research/SKILL.md",
            &skill("research", "R", "r"),
        ),
        ("skills/fragile/SKILL.md", &skill("fragile", "F", "f")),
    ]);
    let registry = scan_ok(provider.clone(), &root()).await;
    // Shadow the shared copy with a tool-specific one, break another.
    provider
        .write_text("skills/research/SKILL.md", &skill("research", "R", "r"))
        .await
        .unwrap();
    provider
        .write_text("skills/fragile/SKILL.md", "---\nname: fragile\n")
        .await
        .unwrap();
    let mut context = AgentContext::default();
    let report = registry
        .reload_with_context(provider, &root(), &mut context)
        .await
        .unwrap();
    let research = report
        .changes()
        .iter()
        .find(|c| c.name == "research")
        .unwrap();
    assert_eq!(research.kind, SkillReloadChangeKind::Modified);
    assert_eq!(research.changed, ["path", "directory_kind"]);
    let fragile = report
        .changes()
        .iter()
        .find(|c| c.name == "fragile")
        .unwrap();
    assert_eq!(fragile.kind, SkillReloadChangeKind::Removed);
    assert!(report.diagnostics().iter().any(
        |d| d.kind == SkillScanDiagnosticKind::Malformed && d.path == "skills/fragile/SKILL.md"
    ));
    let event = context
        .events
        .of_kind(SKILL_RELOAD_EVENT_KIND)
        .next()
        .unwrap();
    assert_eq!(event.payload["removed"], serde_json::json!(["fragile"]));
    assert_eq!(event.payload["modified"], serde_json::json!(["research"]));
    // Diagnostics keep scan order: `skills/fragile` is read before
    // `skills/research`.
    assert_eq!(event.payload["diagnostics"][0]["kind"], "malformed");
    assert_eq!(
        event.payload["diagnostics"][1]["kind"],
        "duplicate_overridden"
    );
}

#[tokio::test]
async fn reload_event_has_no_bodies_and_is_published_without_changes() {
    let provider = env(&[(
        "skills/research/SKILL.md",
        &skill("research", "R", "BODY-ONE"),
    )]);
    let registry = scan_ok(provider.clone(), &root()).await;
    provider
        .write_text(
            "skills/research/SKILL.md",
            &skill("research", "R", "BODY-TWO"),
        )
        .await
        .unwrap();
    let mut context = AgentContext::default();
    let report = registry
        .reload_with_context(provider.clone(), &root(), &mut context)
        .await
        .unwrap();
    assert_eq!(report.changes()[0].changed, ["content"]);
    let payload = &context
        .events
        .of_kind(SKILL_RELOAD_EVENT_KIND)
        .next()
        .unwrap()
        .payload;
    assert!(
        all_strings(payload)
            .iter()
            .all(|text| !text.contains("BODY-")),
        "{payload}"
    );
    assert_eq!(payload["modified"], serde_json::json!(["research"]));
    assert_eq!(payload["skills"], serde_json::json!(["research"]));
    for key in [
        "reload_scheduled",
        "reload_reason",
        "reload_ms",
        "inventory_version",
    ] {
        assert!(payload.get(key).is_some(), "{key} missing from {payload}");
    }

    let mut quiet = AgentContext::default();
    let unchanged = report
        .registry()
        .reload_with_context(provider, &root(), &mut quiet)
        .await
        .unwrap();
    assert!(!unchanged.has_changes());
    assert_eq!(quiet.events.of_kind(SKILL_RELOAD_EVENT_KIND).count(), 1);
}

// ---------------------------------------------------------------------------
// Reload scheduling
// ---------------------------------------------------------------------------

#[test]
fn binding_debounces_watch_bursts_with_explicit_clock_values() {
    let mut binding = SkillReloadBinding::new().with_debounce_ms(250);
    let idle = binding.decision(0);
    assert!(!idle.due);
    assert_eq!(idle.reason, None);
    binding.observe_watch_event(1_000);
    binding.observe_watch_event(1_100);
    binding.observe_watch_event(1_200);
    let waiting = binding.decision(1_300);
    assert!(!waiting.due);
    assert_eq!(waiting.reason, Some(SkillReloadReason::WatchEvent));
    assert_eq!(waiting.wait_ms, Some(150));
    let due = binding.decision(1_450);
    assert!(due.due);
    assert_eq!(due.wait_ms, None);
}

#[test]
fn binding_interval_and_versions() {
    let mut binding = SkillReloadBinding::new().with_interval_ms(60_000);
    binding.record_reload(0);
    assert_eq!(binding.last_reload_ms(), Some(0));
    assert!(binding.observe_inventory_version("v1", 10));
    assert!(
        !binding.decision(10).due,
        "the first version is the baseline"
    );
    assert_eq!(binding.decision(30_000).wait_ms, Some(30_000));
    let interval = binding.decision(60_000);
    assert!(interval.due);
    assert_eq!(interval.reason, Some(SkillReloadReason::Interval));
    assert!(!binding.observe_inventory_version("v1", 20_000));
    assert!(binding.observe_inventory_version("v2", 20_000));
    binding.observe_watch_event(20_001);
    let changed = binding.decision(20_001);
    assert!(changed.due);
    assert_eq!(changed.reason, Some(SkillReloadReason::InventoryChanged));
    assert_eq!(binding.inventory_version(), Some("v2"));
    binding.request_reload(25_000);
    assert_eq!(
        binding.decision(25_000).reason,
        Some(SkillReloadReason::InventoryChanged)
    );
    let mut requested = SkillReloadBinding::new();
    requested.request_reload(5);
    assert_eq!(
        requested.decision(5).reason,
        Some(SkillReloadReason::Requested)
    );
}

#[tokio::test]
async fn binding_reloads_only_when_due_and_reports_the_schedule() {
    let provider = env(&[("skills/research/SKILL.md", &skill("research", "R", "r"))]);
    let registry = scan_ok(provider.clone(), &root()).await;
    let mut binding = SkillReloadBinding::new().with_debounce_ms(100);
    binding.observe_inventory_version("rev-1", 0);
    binding.record_reload(0);
    let mut context = AgentContext::default();

    // Nothing pending: no reload, no event.
    let none = binding
        .reload_with_context_if_due(&registry, provider.clone(), &root(), &mut context, 50)
        .await
        .unwrap();
    assert!(none.is_none());
    assert!(context.events.events().is_empty());

    provider
        .write_text("skills/review/SKILL.md", &skill("review", "Rv", "rv"))
        .await
        .unwrap();
    assert!(binding.observe_inventory_version("rev-2", 1_000));
    // Still inside the debounce window.
    let early = binding
        .reload_with_context_if_due(&registry, provider.clone(), &root(), &mut context, 1_050)
        .await
        .unwrap();
    assert!(early.is_none());

    let report = binding
        .reload_with_context_if_due(&registry, provider.clone(), &root(), &mut context, 1_100)
        .await
        .unwrap()
        .expect("due after the debounce");
    assert!(report.reload_scheduled());
    assert_eq!(
        report.reload_reason(),
        Some(SkillReloadReason::InventoryChanged)
    );
    assert_eq!(report.inventory_version(), Some("rev-2"));
    assert_eq!(report.changes()[0].kind, SkillReloadChangeKind::Added);
    let payload = &context
        .events
        .of_kind(SKILL_RELOAD_EVENT_KIND)
        .next()
        .unwrap()
        .payload;
    assert_eq!(payload["reload_scheduled"], true);
    assert_eq!(payload["reload_reason"], "inventory_changed");
    assert_eq!(payload["inventory_version"], "rev-2");
    assert!(payload["reload_ms"].is_u64());
    assert_eq!(payload["added"], serde_json::json!(["review"]));

    // Settled: the next check is not due.
    assert_eq!(binding.last_reload_ms(), Some(1_100));
    assert!(!binding.decision(5_000).due);
}

#[tokio::test]
async fn a_failed_scheduled_reload_stays_pending() {
    let provider = env(&[]);
    let registry = SkillRegistry::new();
    let mut binding = SkillReloadBinding::new();
    binding.request_reload(0);
    let mut context = AgentContext::default();
    let bad_scopes = [SkillSourceScope::new("../x")];
    assert!(binding
        .reload_with_context_if_due(&registry, provider, &bad_scopes, &mut context, 10)
        .await
        .is_err());
    assert!(context.events.events().is_empty());
    assert!(binding.decision(20).due);
}

// ---------------------------------------------------------------------------
// Model-facing instruction block
// ---------------------------------------------------------------------------

#[tokio::test]
async fn skill_tools_lists_names_descriptions_and_paths() {
    let provider = env(&[
        (
            "skills/research/SKILL.md",
            &skill("research", "Gather and cite sources", "BODY-R"),
        ),
        (
            ".agents/skills/review/SKILL.md",
            &skill("review", "Review a change", "BODY-V"),
        ),
    ]);
    let registry = scan_ok(provider, &root()).await;
    let toolset = skill_tools(registry.packages());
    assert_eq!(toolset.name(), SKILLS_TOOLSET_NAME);
    assert!(toolset.get_tools().is_empty());
    let instructions = toolset.get_instructions();
    assert_eq!(instructions.len(), 1);
    assert_eq!(instructions[0].group, SKILLS_INSTRUCTION_GROUP);
    let text = &instructions[0].text;
    assert!(
        text.contains("- research: Gather and cite sources (read `skills/research/SKILL.md`)"),
        "{text}"
    );
    assert!(
        text.contains("- review: Review a change (read `.agents/skills/review/SKILL.md`)"),
        "{text}"
    );
    assert!(text.contains("read its SKILL.md in full"), "{text}");
    assert!(!text.contains("BODY-"), "{text}");
    // Sorted by name.
    assert!(text.find("- research").unwrap() < text.find("- review").unwrap());

    // Owned summaries and iterators work too; no skills, no instruction.
    let owned = skill_tools(registry.packages().to_vec());
    assert_eq!(owned.get_instructions(), instructions);
    assert!(skill_tools(Vec::<SkillSummary>::new())
        .get_instructions()
        .is_empty());
    assert!(skill_instruction(std::iter::empty::<SkillSummary>()).is_none());
    // Hand-built summaries with newlines still render on one line.
    let hand = SkillSummary::new("x", "line one\n  line two", "skills/x/SKILL.md");
    let text = skill_instruction([hand]).unwrap().text;
    assert!(
        text.contains("- x: line one line two (read `skills/x/SKILL.md`)"),
        "{text}"
    );
}

#[tokio::test]
async fn skill_instructions_reach_the_model() {
    let provider = env(&[(
        "skills/research/SKILL.md",
        &skill("research", "Gather sources", "b"),
    )]);
    let registry = scan_ok(provider, &root()).await;
    let model = Arc::new(TestModel::with_text("ok"));
    AgentBuilder::new(model.clone())
        .toolset(&skill_tools(registry.packages()))
        .build()
        .run("hello")
        .await
        .unwrap();
    let request = &model.requests()[0];
    assert!(request
        .parameters
        .instructions
        .iter()
        .any(|text| text.contains("- research: Gather sources")));
}

// ---------------------------------------------------------------------------
// The skills_scanned startup record
// ---------------------------------------------------------------------------

#[tokio::test]
async fn skills_report_becomes_a_custom_stream_record() {
    let provider = env(&[
        (
            ".agents/skills/research/SKILL.md",
            &skill("research", "Shared", "BODY-S"),
        ),
        (
            "skills/research/SKILL.md",
            &skill("research", "Tool", "BODY-T"),
        ),
        ("skills/broken/SKILL.md", "no frontmatter"),
    ]);
    let report = SkillRegistry::scan_with_report(provider, &root())
        .await
        .unwrap();
    let expected = report.to_event();
    assert_eq!(expected.kind, SKILL_SCAN_EVENT_KIND);

    let stream = AgentBuilder::new(Arc::new(TestModel::with_text("ok")))
        .skills_report(report)
        .build()
        .run_stream("hello")
        .await
        .unwrap();
    let events: Vec<_> = stream
        .events()
        .iter()
        .filter_map(|record| match &record.event {
            AgentStreamEvent::Custom { event } if event.kind == SKILL_SCAN_EVENT_KIND => {
                Some(event)
            }
            _ => None,
        })
        .collect();
    assert_eq!(events.len(), 1);
    let payload = &events[0].payload;
    assert_eq!(*events[0], expected);
    assert_eq!(payload["skills"], serde_json::json!(["research"]));
    assert_eq!(payload["skill_count"], 1);
    assert_eq!(payload["error_count"], 1);
    assert_eq!(payload["warning_count"], 0);
    let diagnostic_kinds: Vec<&str> = payload["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    // Scan order: `skills/broken` comes before `skills/research`.
    assert_eq!(diagnostic_kinds, ["malformed", "duplicate_overridden"]);
    assert!(
        all_strings(payload)
            .iter()
            .all(|text| !text.contains("BODY-")),
        "{payload}"
    );
}
