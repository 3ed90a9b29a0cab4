//! The secret-variable rule as the docs state it is this file's rule: docs/cli.md lists exactly
//! [`SECRET_WORDS`] and its examples are classified as [`is_secret_name`] classifies them, and
//! docs/manifest.md (generated from the `secret_vars` doc comment) points at that one statement
//! instead of stating a rule of its own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::is_secret_name;
use starweaver_config::secrets::SECRET_WORDS;

fn doc(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// The backticked words of `text`.
fn quoted(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The words of `list` (`` `a`, `b` or `c` ``) joined the way the docs write them.
fn or_list(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|word| format!("`{word}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// Regression: docs/manifest.md said a variable is secret when its name *contains* `key`,
/// `token`, `secret` or `password`, while the code (and docs/cli.md) takes the name's last word
/// from six words: `keyring` and `key_name` are not secret.
#[test]
fn cli_md_states_the_rule_the_code_applies() {
    let cli = doc("cli.md");
    let flat = cli.split_whitespace().collect::<Vec<_>>().join(" ");
    let rule = format!(
        "when the LAST word of its name is {}, in any case",
        or_list(&SECRET_WORDS)
    );
    assert!(flat.contains(&rule), "docs/cli.md does not say: {rule}");
    let (secret, rest) = flat
        .split_once(" are secret; ")
        .expect("docs/cli.md gives examples: `...` are secret; `...` are not");
    let secret = secret.rsplit(": ").next().unwrap();
    let not = rest.split(" are not").next().unwrap();
    let secret = quoted(secret);
    let not = quoted(not);
    assert!(secret.len() >= 4 && not.len() >= 3, "{secret:?} {not:?}");
    for name in secret {
        assert!(is_secret_name(name), "docs/cli.md calls `{name}` secret");
    }
    for name in not {
        assert!(
            !is_secret_name(name),
            "docs/cli.md calls `{name}` not secret"
        );
    }
}

#[test]
fn manifest_md_points_at_the_rule_instead_of_restating_it() {
    let manifest = doc("manifest.md");
    let row = manifest
        .lines()
        .find(|line| line.starts_with("| `secret_vars` |"))
        .expect("docs/manifest.md has a `secret_vars` row");
    assert!(row.contains("(cli.md#secrets)"), "{row}");
    assert!(!row.contains(" contain"), "{row}");
    // Its examples of names that are secret by name alone are secret by the code's rule.
    let description = row.rsplit(" | ").next().unwrap();
    let by_name = description
        .split_once("ends in a secret word (")
        .map(|(_, rest)| rest.split(')').next().unwrap())
        .expect("the row gives examples of secret names");
    for name in quoted(by_name) {
        assert!(
            is_secret_name(name),
            "docs/manifest.md calls `{name}` secret"
        );
    }
}
