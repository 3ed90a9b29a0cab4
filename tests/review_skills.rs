//! Review of the skills layer (`starweaver-core/src/skills/`) and
//! `AgentBuilder::skills_report`. Tests marked `#[ignore = "defect: ..."]`
//! pin defects that are not fixed yet; each fails when run with
//! `cargo test --test review_skills -- --ignored`. The others lock in
//! behaviour the review checked and found sound.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::environment::VirtualEnvironmentProvider;
use starweaver::model::ModelResponse;
use starweaver::{
    string_tool, AgentBuilder, AgentHitlUserInteraction, SkillError, SkillRegistry,
    SkillReloadBinding, SkillReloadReason, SkillSourceScope, TestModel, ToolContext, ToolResult,
    SKILL_SCAN_EVENT_KIND,
};

mod common;
use common::call_response;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn env(files: &[(&str, &str)]) -> Arc<VirtualEnvironmentProvider> {
    let mut provider = VirtualEnvironmentProvider::new("review");
    for (path, content) in files {
        provider = provider.with_file(path, *content);
    }
    Arc::new(provider)
}

fn root() -> Vec<SkillSourceScope> {
    vec![SkillSourceScope::new("")]
}

/// Strict scan of one `skills/a/SKILL.md` with this content.
async fn scan_one(content: &str) -> Result<SkillRegistry, SkillError> {
    SkillRegistry::scan(env(&[("skills/a/SKILL.md", content)]), &root()).await
}

// ---------------------------------------------------------------------------
// Defects
// ---------------------------------------------------------------------------

/// The spec publishes `skills_scanned` "at run start". A run that waits
/// for an approval and is resumed is still one run, but the startup
/// event is published again for the resumed segment, so the session's
/// context holds the scan diagnostics twice (hosts counting errors or
/// surfacing them to users double-report).
#[tokio::test]
async fn skills_report_is_published_once_per_run_not_again_on_resume() {
    let provider = env(&[("skills/broken/SKILL.md", "no frontmatter")]);
    let report = SkillRegistry::scan_with_report(provider, &root())
        .await
        .unwrap();
    let deploy = string_tool(
        "deploy",
        Some("Deploys".to_string()),
        json!({"type": "object"}),
        |_ctx: ToolContext, args: Value| async move { Ok(ToolResult::new(args)) },
    )
    .with_approval_required(true);
    let model = Arc::new(TestModel::scripted(vec![
        call_response("d1", "deploy", json!({})),
        ModelResponse::text("done"),
    ]));
    let mut session = AgentBuilder::new(model)
        .tool(Arc::new(deploy))
        .skills_report(report)
        .build()
        .session();

    let waiting = session.run("deploy").await.unwrap();
    assert!(waiting.is_waiting());
    assert_eq!(
        session
            .context()
            .events
            .of_kind(SKILL_SCAN_EVENT_KIND)
            .count(),
        1
    );
    session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(
        session
            .context()
            .events
            .of_kind(SKILL_SCAN_EVENT_KIND)
            .count(),
        1,
        "one run, one skills_scanned event"
    );
}

/// docs/skills.md: "Unknown keys are ignored, so skills written for other
/// tools load." Keys this crate never reads may hold non-finite or
/// overflowing floats and custom tags.
#[tokio::test]
async fn unknown_frontmatter_keys_never_reject_a_skill() {
    let extras = [
        "timeout: .inf",
        "ratio: 1e999",
        "custom: !thing {x: [1, 2]}",
    ];
    let mut failures = Vec::new();
    for extra in extras {
        let content = format!("---\nname: a\ndescription: d\n{extra}\n---\nbody\n");
        if let Err(error) = scan_one(&content).await {
            failures.push(format!("{extra:?}: {error}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// docs/skills.md (Decisions): serde-saphyr reads every value, so a
/// `!!timestamp` value or a null key rejects the skill even under keys
/// this crate ignores. The error says where (file line and column) and
/// to quote it.
#[tokio::test]
async fn timestamps_and_null_keys_are_malformed_with_a_quoting_hint() {
    for (extra, column) in [("created: !!timestamp 2001-12-14", 22), ("~: nothing", 1)] {
        let content = format!("---\nname: a\ndescription: d\n{extra}\n---\nbody\n");
        match scan_one(&content).await {
            Err(SkillError::InvalidFrontmatter {
                line,
                column: found,
                message,
                ..
            }) => {
                assert_eq!((line, found), (Some(4), Some(column)), "{message}");
                assert!(
                    message.contains(&format!("at line 4, column {column}")),
                    "{message}"
                );
                assert!(message.contains("quote the"), "{message}");
            }
            other => panic!("{extra:?}: expected InvalidFrontmatter, got {other:?}"),
        }
    }
}

/// docs/skills.md: `allowed-tools` is "a space- or comma-separated
/// string, or a list", and a field of the wrong shape is `Malformed`.
/// List items that are not strings are instead rendered as JSON text and
/// split, giving tool names such as `["Bash"` and `null`.
#[tokio::test]
async fn allowed_tools_list_items_that_are_not_strings_are_not_turned_into_junk() {
    for (list, expected) in [
        ("[Read, [Bash, Grep]]", vec!["Read", "Bash", "Grep"]),
        ("[Read, ~]", vec!["Read"]),
        ("[Read, {Bash: git}]", vec!["Read"]),
    ] {
        let content = format!("---\nname: a\ndescription: d\nallowed-tools: {list}\n---\n");
        match scan_one(&content).await {
            // Rejecting the shape is fine.
            Err(SkillError::InvalidFrontmatter { .. }) => {}
            Err(other) => panic!("{list}: unexpected error {other}"),
            // So is reading the names properly.
            Ok(registry) => {
                let tools = &registry.get("a").unwrap().allowed_tools;
                assert_eq!(tools, &expected, "{list}");
            }
        }
    }
}

/// A fence with leading spaces is not a fence, but the message trims the
/// line and then claims the first line *is* `---` while telling the user
/// to start with a `---` line: the user cannot see what to fix.
#[tokio::test]
async fn missing_frontmatter_message_shows_why_an_indented_fence_is_not_one() {
    let error = scan_one("  ---\nname: a\ndescription: d\n---\nbody\n")
        .await
        .unwrap_err();
    assert!(matches!(error, SkillError::MissingFrontmatter { .. }));
    let message = error.to_string();
    assert!(
        !message.contains("(the first line is `---`)"),
        "self-contradictory message: {message}"
    );
}

/// Messages are for skill authors ("what, where and how to fix"). The
/// serde-saphyr text is passed through verbatim, so authors are told to
/// "set DuplicateKeyPolicy in Options" or read a Rust `Debug` dump of
/// the parser budget.
#[tokio::test]
async fn yaml_error_messages_speak_to_skill_authors() {
    let duplicate = scan_one("---\nname: a\nname: b\ndescription: d\n---\n")
        .await
        .unwrap_err()
        .to_string();
    assert!(duplicate.contains("line 3"), "{duplicate}");
    assert!(
        !duplicate.contains("DuplicateKeyPolicy") && !duplicate.contains("Options"),
        "{duplicate}"
    );

    let nested: String = (0..80)
        .map(|depth| format!("{}k{depth}:\n", " ".repeat(depth + 1)))
        .collect();
    let deep = scan_one(&format!(
        "---\nname: a\ndescription: d\nmetadata:\n{nested}---\n"
    ))
    .await
    .unwrap_err()
    .to_string();
    assert!(!deep.contains("Depth {"), "{deep}");
}

/// docs/skills.md (errors table): `Malformed` covers "bad YAML or wrong
/// field shape (with file line and column)". The shape checks for
/// `metadata` and `allowed-tools` report neither.
#[tokio::test]
async fn field_shape_errors_carry_the_file_line() {
    for (content, line) in [
        ("---\nname: a\ndescription: d\nmetadata: [1, 2]\n---\n", 4),
        ("---\nname: a\ndescription: d\n\nallowed-tools: 7\n---\n", 5),
    ] {
        match scan_one(content).await {
            Err(SkillError::InvalidFrontmatter {
                line: found,
                message,
                ..
            }) => {
                assert_eq!(found, Some(line), "{content:?}: {message}");
                assert!(message.contains(&format!("line {line}")), "{message}");
            }
            other => panic!("{content:?}: expected InvalidFrontmatter, got {other:?}"),
        }
    }
}

/// `SkillReloadBinding::with_interval_ms` is documented as "Reload at
/// least this often". While watcher events keep arriving faster than the
/// debounce, the pending change suppresses the interval forever: after
/// ten intervals without a reload, nothing is due.
#[test]
fn interval_bounds_reload_latency_under_continuous_changes() {
    let mut binding = SkillReloadBinding::new()
        .with_interval_ms(1_000)
        .with_debounce_ms(100);
    binding.record_reload(0);
    for now in (0..10_000).step_by(50) {
        binding.observe_watch_event(now);
    }
    let decision = binding.decision(10_000);
    assert!(
        decision.due,
        "no reload for 10 intervals while changes keep coming: {decision:?}"
    );
}

/// Invalid-name messages quote the offending character raw. Format
/// characters (zero-width space, right-to-left override, BOM) are neither
/// whitespace nor control characters, so the message reads "`` is not
/// allowed" (or is visually reversed) and the author cannot see what to
/// remove.
#[tokio::test]
async fn invalid_name_messages_spell_out_invisible_characters() {
    for (name, code) in [
        ("research\u{200b}", "U+200B"),
        ("\u{202e}evil", "U+202E"),
        ("a\u{feff}b", "U+FEFF"),
    ] {
        let content = format!("---\nname: \"{name}\"\ndescription: d\n---\n");
        let error = scan_one(&content).await.unwrap_err();
        assert!(matches!(error, SkillError::InvalidName { .. }), "{error:?}");
        let message = error.to_string();
        assert!(message.contains(code), "{code} not named in: {message:?}");
    }
}

// ---------------------------------------------------------------------------
// Sound behaviour worth locking in
// ---------------------------------------------------------------------------

/// Claude-style `allowed-tools` entries carry arguments in parentheses;
/// spaces and commas inside them do not split the entry, in the string
/// form and in list items alike. An unclosed `(` is a shape error at its
/// line instead of a silently merged tool name.
#[tokio::test]
async fn allowed_tools_keep_parenthesized_arguments_whole() {
    for (value, expected) in [
        (
            "Bash(git commit:*) Read, Grep",
            vec!["Bash(git commit:*)", "Read", "Grep"],
        ),
        (
            "[Bash(git add:*), \"Bash(npm run test:*)\", Read]",
            vec!["Bash(git add:*)", "Bash(npm run test:*)", "Read"],
        ),
        (
            "\n  - Bash(git diff, git log)\n  - Edit Write",
            vec!["Bash(git diff, git log)", "Edit", "Write"],
        ),
    ] {
        let content = format!("---\nname: a\ndescription: d\nallowed-tools: {value}\n---\n");
        let registry = scan_one(&content).await.unwrap();
        assert_eq!(
            registry.get("a").unwrap().allowed_tools,
            expected,
            "{value}"
        );
    }
    match scan_one("---\nname: a\ndescription: d\nallowed-tools: Bash(git status Read\n---\n").await
    {
        Err(SkillError::InvalidFrontmatter { line, message, .. }) => {
            assert_eq!(line, Some(4), "{message}");
            assert!(message.contains("unclosed `(`"), "{message}");
        }
        other => panic!("expected InvalidFrontmatter, got {other:?}"),
    }
}

/// Error messages are single lines: names, keys and first lines holding
/// line breaks or other control characters are quoted with `<U+XXXX>`.
#[tokio::test]
async fn error_messages_never_contain_raw_line_breaks() {
    for content in [
        "---\nname: \"two\\nlines\"\ndescription: d\n---\n",
        "---\nname: a\ndescription: d\nmetadata: {\"k\\nk\": 1, \"k\\nk\": 2}\n---\n",
        "---\nname: a\ndescription: d\nallowed-tools: \"Bash(\\n\"\n---\n",
        "# Title\u{2028}more\u{b}\n",
    ] {
        let message = scan_one(content).await.unwrap_err().to_string();
        assert!(
            !message.contains(['\n', '\r', '\u{b}', '\u{2028}']),
            "{content:?}: {message:?}"
        );
        assert!(message.contains("<U+"), "{content:?}: {message:?}");
    }
}

/// Frontmatter edge cases the review checked: a `---` rule in the body is
/// body, CRLF + BOM + trailing spaces on the fences, YAML 1.1 booleans
/// and octal-looking numbers keep their text, and a file that ends right
/// after the closing fence has no body.
#[tokio::test]
async fn frontmatter_edge_cases_keep_text_and_split_at_the_first_closing_fence() {
    let provider = env(&[
        (
            "skills/rule/SKILL.md",
            "---\nname: rule\ndescription: d\n---\nintro\n---\nafter the rule\n",
        ),
        (
            "skills/win/SKILL.md",
            "\u{feff}--- \r\nname: win\r\ndescription: No\r\n---\t\r\nbody\r\n",
        ),
        (
            "skills/007/SKILL.md",
            "---\nname: 007\ndescription: off\n---",
        ),
    ]);
    let registry = SkillRegistry::scan(provider.clone(), &root())
        .await
        .unwrap();
    assert_eq!(registry.names(), ["007", "rule", "win"]);
    assert_eq!(registry.get("win").unwrap().description, "No");
    assert_eq!(registry.get("007").unwrap().description, "off");
    let rule = SkillRegistry::activate(provider.clone(), "skills/rule")
        .await
        .unwrap();
    assert_eq!(rule.body.as_deref(), Some("intro\n---\nafter the rule"));
    let win = SkillRegistry::activate(provider.clone(), "skills/win")
        .await
        .unwrap();
    assert_eq!(win.body.as_deref(), Some("body"));
    let bare = SkillRegistry::activate(provider, "skills/007")
        .await
        .unwrap();
    assert_eq!(bare.body, None);
}

/// A small deterministic fuzz over YAML-ish tokens: scanning and
/// activating never panic.
#[tokio::test]
async fn random_yaml_frontmatter_never_panics() {
    const TOKENS: &[&str] = &[
        "name",
        "description",
        "metadata",
        "allowed-tools",
        ":",
        " ",
        "\n",
        "\r",
        "\t",
        "-",
        "---",
        "?",
        "&a",
        "*a",
        "!!str",
        "!x",
        "[",
        "]",
        "{",
        "}",
        ",",
        "'",
        "\"",
        "|",
        ">",
        "#",
        "...",
        "<<",
        "~",
        ".nan",
        "1e999",
        "\u{feff}",
        "é",
        "\\",
        "\0",
        "\n  ",
        "\n- ",
        "!!binary",
        "!!timestamp",
        "%TAG ! tag:x:",
        "!<tag:x>",
    ];
    let mut seed: u64 = 0x5eed;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(seed >> 33).unwrap()
    };
    let mut provider = VirtualEnvironmentProvider::new("fuzz");
    for index in 0..400 {
        let mut content = String::from("---\n");
        for _ in 0..next() % 40 {
            content.push_str(TOKENS[next() % TOKENS.len()]);
        }
        content.push_str("\n---\nbody");
        provider = provider.with_file(&format!("skills/s{index:03}/SKILL.md"), content);
    }
    let provider = Arc::new(provider);
    let report = SkillRegistry::scan_with_report(provider.clone(), &root())
        .await
        .unwrap();
    for index in 0..400 {
        let _ = SkillRegistry::activate(provider.clone(), &format!("skills/s{index:03}")).await;
    }
    // Every file either loaded or produced a diagnostic.
    assert!(report.registry().len() + report.diagnostics().len() >= 400);
}

/// Interval decisions follow the host clock exactly, including a clock
/// reading earlier than the last reload (no underflow, no reload).
#[test]
fn binding_decisions_are_pure_functions_of_host_clock_values() {
    let mut binding = SkillReloadBinding::new()
        .with_interval_ms(1_000)
        .with_debounce_ms(10);
    binding.record_reload(5_000);
    let earlier = binding.decision(4_000);
    assert!(!earlier.due);
    assert_eq!(earlier.wait_ms, Some(2_000));
    assert_eq!(
        binding.decision(6_000).reason,
        Some(SkillReloadReason::Interval)
    );
    let copy = binding.clone();
    // A change long after the interval elapsed is due at once: the
    // interval bounds the debounce.
    binding.observe_watch_event(u64::MAX - 1);
    assert!(binding.decision(u64::MAX - 2).due);
    // Without an interval, the debounce saturates instead of overflowing.
    let mut debounced = SkillReloadBinding::new().with_debounce_ms(10);
    debounced.observe_watch_event(u64::MAX - 1);
    assert!(!debounced.decision(u64::MAX - 2).due);
    assert!(debounced.decision(u64::MAX).due);
    assert_eq!(copy.decision(6_000), copy.decision(6_000));
}
