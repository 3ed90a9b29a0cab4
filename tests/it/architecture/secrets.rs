//! What looks like a secret is decided in one place, `starweaver-config`'s `secrets` module:
//! the checker's `literal-secret` warning and the masking of a run stand on the same rule, so
//! a name the checker calls secret is the name a run hides, and a change to the rule reaches
//! both.

use std::path::Path;

use crate::common::sources::rust_files;

/// The lines that would state a secret-name rule of their own.
const RULE_DEFINITIONS: [&str; 3] = [
    "fn is_secret_name(",
    "SECRET_WORDS: [",
    "MIN_SECRET_CHARS: usize",
];

#[test]
fn the_secret_name_rule_is_defined_once_in_the_config_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let crate_src = entry.unwrap().path().join("src");
        if crate_src.is_dir() {
            rust_files(&crate_src, &mut files);
        }
    }
    rust_files(&root.join("src"), &mut files);
    let home = root.join("starweaver-config/src/secrets.rs");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for definition in RULE_DEFINITIONS {
            if text.contains(definition) {
                found.push((file.clone(), definition));
            }
        }
    }
    let elsewhere: Vec<String> = found
        .iter()
        .filter(|(file, _)| *file != home)
        .map(|(file, definition)| format!("{}: `{definition}`", file.display()))
        .collect();
    assert!(
        elsewhere.is_empty(),
        "a second copy of the secret rule; use starweaver_config::secrets: {elsewhere:#?}"
    );
    // The scan read the rule's home (a wrong path would find nothing, and pass).
    assert_eq!(found.len(), RULE_DEFINITIONS.len(), "{found:?}");
}
