//! Second review of the environment layer, the filesystem bundle and the
//! skills frontmatter reader, after the fixes of the first review.
//!
//! The first tests pin defects that remain (ignored until fixed; run them
//! with `cargo test --test review_round5 -- --ignored`). The last ones
//! lock in behaviour that was checked and found sound: deterministic
//! fuzzing of the frontmatter reader and of glob and grep patterns, and a
//! stress test of the per-file write locks.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use starweaver::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
use starweaver::SkillRegistry;

mod common;
use common::Rng;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Activates `skills/a/SKILL.md` holding `frontmatter` between fences.
async fn activate(frontmatter: &str) -> Result<starweaver::ActiveSkill, String> {
    let text = format!("---\n{frontmatter}\n---\nBody.\n");
    let provider: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("skills").with_file("skills/a/SKILL.md", text));
    SkillRegistry::activate(provider, "skills/a/SKILL.md")
        .await
        .map_err(|error| error.to_string())
}

// ---------------------------------------------------------------------------
// Defects
// ---------------------------------------------------------------------------

/// docs/skills.md: "`allowed-tools` and `allowed_tools` count as one key"
/// and "`<<` merge keys are expanded (explicit keys win)". A shared base
/// merged with `<<` that sets `allowed_tools`, overridden by an explicit
/// `allowed-tools`, should load with the explicit value. `parse_yaml`
/// cannot tell merged from explicit keys and rejects the skill with
/// "`allowed-tools` repeats `allowed_tools` (set on line 5) ...; keep one
/// `allowed-tools:` line", pointing at the `<<:` line, although the file
/// has only one such line.
#[tokio::test]
async fn explicit_allowed_tools_wins_over_a_merged_allowed_tools() {
    let active = activate(
        "name: a\ndescription: b\nbase: &base {allowed_tools: Read}\n<<: *base\n\
         allowed-tools: Grep",
    )
    .await;
    match active {
        Ok(active) => assert_eq!(active.summary.allowed_tools, ["Grep"]),
        Err(message) => panic!("the skill was rejected: {message}"),
    }
}

/// docs/skills.md: messages give "what is wrong, where ... and how to fix
/// it, with a fix that fits the mistake (... a tab ...)". A key indented
/// with a tab after a `key: value` line (the most common tab mistake) is
/// reported by the parser as "while scanning a plain scalar, found a tab"
/// at the start of the previous line's value (line 3, column 14 here),
/// with the generic "quote values" fix: wrong line, wrong fix. Only the
/// parser's `TabInIndentation`-style kinds get "indent with spaces".
#[tokio::test]
async fn a_tab_indented_key_is_reported_on_its_line_with_the_tab_fix() {
    let message = activate("name: a\ndescription: b\n\tlicense: MIT")
        .await
        .expect_err("a tab-indented key must be an error");
    // File lines: 1 `---`, 2 name, 3 description, 4 the tab.
    assert!(message.contains("line 4"), "{message}");
    assert!(message.contains("indent with spaces"), "{message}");
}

/// docs/skills.md: "Quoted user text ... spells invisible characters as
/// `<U+XXXX>`" and "Parser internals (Rust option names, `Debug` dumps)
/// never reach" the messages. A NUL byte in the frontmatter yields
/// "unexpected character: `\u{0}'" (Rust's `escape_debug` spelling, with
/// a mismatched quote) and the fix "quote values ...", which does not
/// help: the byte has to be removed.
#[tokio::test]
async fn a_nul_byte_in_frontmatter_is_named_by_code_point() {
    let message = activate("name: a\ndescription: b\nnote: x\0y")
        .await
        .expect_err("a NUL byte must be an error");
    assert!(!message.contains("\\u{0}"), "{message}");
    assert!(message.contains("U+0000"), "{message}");
}

// ---------------------------------------------------------------------------
// Checked and sound (kept as regression locks)
// ---------------------------------------------------------------------------

/// Random frontmatter built from YAML-significant tokens (anchors, tags,
/// flow brackets, BOMs, NUL, tabs, CR, directives) never panics, and
/// every error is one line that names the file.
#[tokio::test]
async fn fuzzed_frontmatter_never_panics_and_errors_are_one_line() {
    const TOKENS: &[&str] = &[
        "name",
        "description",
        "metadata",
        "allowed-tools",
        "allowed_tools",
        "license",
        ":",
        ": ",
        "\n",
        "\n  ",
        "\n- ",
        "- ",
        "[",
        "]",
        "{",
        "}",
        ",",
        "'",
        "\"",
        "&a",
        "*a",
        "!!str",
        "!!int",
        "!!binary",
        "!!timestamp",
        "!x",
        "~",
        "null",
        "true",
        "1e999",
        ".inf",
        "007",
        "?",
        "<<",
        "#",
        "|",
        ">",
        "\t",
        "\r",
        "\u{feff}",
        "\u{200b}",
        "é",
        "\\",
        "---",
        "...",
        "%YAML 1.2",
        "@",
        "(",
        ")",
        "Bash(",
        " ",
        "x",
        "0x1F",
        "-1",
        "1.5",
        "\0",
        "\u{85}",
        "\u{2028}",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..1_500 {
        let mut text = String::from("name: a\ndescription: b\n");
        for _ in 0..rng.below(30) {
            text.push_str(rng.pick(TOKENS));
        }
        let input = text.clone();
        let outcome = tokio::spawn(async move { activate(&text).await.map(|_| ()) }).await;
        match outcome {
            Err(panic) => panic!("{input:?} panicked: {panic}"),
            Ok(Err(message)) => {
                assert!(!message.contains('\n'), "{input:?}: {message}");
                assert!(
                    message.contains("skills/a/SKILL.md"),
                    "{input:?}: {message}"
                );
            }
            Ok(Ok(())) => {}
        }
    }
}
