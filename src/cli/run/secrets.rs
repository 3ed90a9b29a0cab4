//! Which variable values are secret, and their removal from everything the run writes out.
//!
//! The manifest format has no secret marker, so the name decides: a variable whose name
//! contains `key`, `token`, `secret` or `password` (in any case) is secret. Its value given
//! with `--var` is replaced by [`MASK`] in `--json` lines, in the plain and terminal output
//! and in save files, and a save file keeps the mask instead of the value, so `--resume` needs it again.

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock};

use serde_json::Value;

/// What a secret value is replaced with.
pub const MASK: &str = "***";

/// Name fragments that make a variable secret (compared case-insensitively).
const SECRET_WORDS: [&str; 4] = ["key", "token", "secret", "password"];

/// Whether the variable `name` holds a secret by its name alone.
#[must_use]
pub fn is_secret_name(name: &str) -> bool {
    let lower = name.to_lowercase();
    SECRET_WORDS.iter().any(|word| lower.contains(word))
}

/// Whether the variable `name` holds a secret: by its name, or because the manifest's
/// `secret_vars` (`declared`) lists it.
#[must_use]
pub fn is_secret(name: &str, declared: &[String]) -> bool {
    is_secret_name(name) || declared.iter().any(|secret| secret == name)
}

/// Replaces the values of secret variables in text and JSON. Clones share their values, so the
/// secrets the manifest declares, known only once it is read, reach a UI made before.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    /// The secret values, longest first so a value that contains another is masked whole.
    values: Arc<RwLock<Vec<String>>>,
}

impl Redactor {
    /// A redactor for the secret ones among `vars` (empty values are nothing to hide).
    #[must_use]
    pub fn for_vars(vars: &BTreeMap<String, String>) -> Self {
        let redactor = Self::default();
        redactor.add(
            vars.iter()
                .filter(|(name, _)| is_secret_name(name))
                .map(|(_, value)| value.clone()),
        );
        redactor
    }

    /// Masks these values too, in every clone (empty values are nothing to hide).
    pub fn add(&self, more: impl IntoIterator<Item = String>) {
        let mut values = self.values.write().unwrap_or_else(PoisonError::into_inner);
        values.extend(
            more.into_iter()
                .filter(|value| !value.is_empty() && value != MASK),
        );
        values.sort_by_key(|value| std::cmp::Reverse(value.len()));
        values.dedup();
    }

    /// `text` with every secret value masked.
    #[must_use]
    pub fn text(&self, text: &str) -> String {
        let values = self.values.read().unwrap_or_else(PoisonError::into_inner);
        let mut out = text.to_string();
        for value in values.iter() {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), MASK);
            }
        }
        out
    }

    /// Masks secret values inside every string (and object key) of `value`.
    pub fn json(&self, value: &mut Value) {
        if self
            .values
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
        {
            return;
        }
        match value {
            Value::String(text) => *text = self.text(text),
            Value::Array(items) => items.iter_mut().for_each(|item| self.json(item)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut item) in entries {
                    self.json(&mut item);
                    map.insert(self.text(&key), item);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// `vars` as a save file keeps them: secret values (by name, or listed in `declared`)
    /// masked.
    #[must_use]
    pub fn vars_to_save(
        vars: &BTreeMap<String, String>,
        declared: &[String],
    ) -> BTreeMap<String, String> {
        vars.iter()
            .map(|(name, value)| {
                let kept = if is_secret(name, declared) {
                    MASK.to_string()
                } else {
                    value.clone()
                };
                (name.clone(), kept)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_with_secret_words_are_secret_in_any_case() {
        for name in [
            "api_key",
            "GITHUB_TOKEN",
            "ClientSecret",
            "db_password",
            "keyring",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["tone", "audience", "project"] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn secret_values_are_masked_in_text_json_and_saved_vars() {
        let vars = BTreeMap::from([
            ("api_key".to_string(), "sk-123".to_string()),
            ("tone".to_string(), "plain".to_string()),
        ]);
        let redactor = Redactor::for_vars(&vars);
        assert_eq!(redactor.text("use sk-123 plain"), "use *** plain");
        let mut value = serde_json::json!({"a": ["x sk-123"], "sk-123": 1, "n": 2});
        redactor.json(&mut value);
        assert_eq!(value, serde_json::json!({"a": ["x ***"], "***": 1, "n": 2}));
        let saved = Redactor::vars_to_save(&vars, &[]);
        assert_eq!(saved["api_key"], MASK);
        assert_eq!(saved["tone"], "plain");
    }

    #[test]
    fn secrets_the_manifest_declares_are_masked_in_every_clone() {
        let vars = BTreeMap::from([("deploy".to_string(), "hunter2".to_string())]);
        let redactor = Redactor::for_vars(&vars);
        let shown_by_a_ui = redactor.clone();
        assert_eq!(shown_by_a_ui.text("pw hunter2"), "pw hunter2");
        // Known once the manifest is read: `secret_vars: [deploy]`.
        redactor.add(["hunter2".to_string()]);
        assert_eq!(shown_by_a_ui.text("pw hunter2"), "pw ***");
        let declared = ["deploy".to_string()];
        assert!(is_secret("deploy", &declared));
        assert_eq!(Redactor::vars_to_save(&vars, &declared)["deploy"], MASK);
    }
}
