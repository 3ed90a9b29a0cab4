//! Which variable values are secret, and their removal from everything the run writes out.
//!
//! The manifest's `secret_vars` marks a variable secret; so does its name, when the name's last
//! word (split at `_`, `-` and lower-to-upper case changes) is `key`, `token`, `secret`,
//! `password`, `passwd` or `credentials`, in any case. Values shorter than [`MIN_SECRET_CHARS`]
//! are not masked (they would match everywhere): the run warns about them instead. The values
//! a `type: mcp` toolset takes from the host (`env_from`, `headers_from_env`) are secret
//! whatever their names ([`mcp_host_values`]).
//!
//! Only string values are masked, never object keys, and in run records and session state
//! never the protocol fields ([`PROTOCOL_KEYS`]: ids, kinds, names), so what is masked still
//! reads back as the same structure.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, PoisonError, RwLock};

use serde_json::Value;

/// What a secret value is replaced with.
pub const MASK: &str = "***";

// The secret-name rule and the shortest value masked are the config crate's, where the
// checker's `literal-secret` warning uses them too: one rule for what the checker calls a
// secret and what a run masks.
use starweaver_config::secrets::{is_secret_name, MIN_SECRET_CHARS};

/// Fields of run records and session state that hold identifiers, kinds and names, never free
/// text: their values are never masked (outside the free text of [`FREE_TEXT_KEYS`]).
pub const PROTOCOL_KEYS: [&str; 30] = [
    "type",
    "kind",
    "part_kind",
    "role",
    "id",
    "tool_call_id",
    "run_id",
    "conversation_id",
    "name",
    "tool_name",
    "tool",
    "tools",
    "request_kind",
    "status",
    "finish_reason",
    "model_name",
    "provider_name",
    "timestamp",
    "mode",
    "sequence",
    "version",
    "format",
    "step",
    "loaded_tools",
    "loaded_namespaces",
    "approved_calls",
    "model_retries",
    "unavailable_tool_policy",
    "unavailable_toolsets",
    "exit_code",
];

/// Fields that hold free text (tool arguments and results, answers): everything inside them is
/// masked, whatever the inner field names.
const FREE_TEXT_KEYS: [&str; 9] = [
    "arguments",
    "content",
    "payload",
    "user_input",
    "delta",
    "output",
    "answers",
    "results",
    "reason",
];

/// Whether the variable `name` holds a secret: by its name, or because the manifest's
/// `secret_vars` (`declared`) lists it.
#[must_use]
pub fn is_secret(name: &str, declared: &[String]) -> bool {
    is_secret_name(name) || declared.iter().any(|secret| secret == name)
}

/// The secret values a redactor masks, and the secrets too short to mask.
#[derive(Debug, Default)]
struct Known {
    /// The values and their JSON-escaped forms, longest first so a value that contains another
    /// is masked whole.
    values: Vec<String>,
    /// Names of secrets too short to mask, and whether the warning was taken.
    short: BTreeMap<String, bool>,
}

/// Replaces the values of secret variables in text and JSON. Clones share their values, so the
/// secrets the manifest declares, known only once it is read, reach a UI made before.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    known: Arc<RwLock<Known>>,
}

impl Redactor {
    /// A redactor for the secret ones among `vars` (by name).
    #[must_use]
    pub fn for_vars(vars: &BTreeMap<String, String>) -> Self {
        let redactor = Self::default();
        redactor.add(
            vars.iter()
                .filter(|(name, _)| is_secret_name(name))
                .map(|(name, value)| (name.clone(), value.clone())),
        );
        redactor
    }

    /// Masks these `(name, value)` secrets too, in every clone: each value as it is and as it
    /// reads escaped inside a JSON string. Empty values are nothing to hide; values shorter than
    /// [`MIN_SECRET_CHARS`] are noted for [`Redactor::take_warnings`] instead.
    pub fn add(&self, more: impl IntoIterator<Item = (String, String)>) {
        let mut known = self.known.write().unwrap_or_else(PoisonError::into_inner);
        for (name, value) in more {
            if value.is_empty() || value == MASK {
                continue;
            }
            if value.chars().count() < MIN_SECRET_CHARS {
                known.short.entry(name).or_insert(false);
                continue;
            }
            let escaped = serde_json::to_string(&value).unwrap_or_default();
            let escaped = escaped
                .strip_prefix('"')
                .and_then(|inner| inner.strip_suffix('"'))
                .unwrap_or_default()
                .to_string();
            if escaped != value && !escaped.is_empty() {
                known.values.push(escaped);
            }
            known.values.push(value);
        }
        known
            .values
            .sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        known.values.dedup();
    }

    /// One warning per secret too short to mask, each given once over all clones.
    #[must_use]
    pub fn take_warnings(&self) -> Vec<String> {
        let mut known = self.known.write().unwrap_or_else(PoisonError::into_inner);
        known
            .short
            .iter_mut()
            .filter(|(_, taken)| !**taken)
            .map(|(name, taken)| {
                *taken = true;
                format!(
                    "warning: secret `{name}` is too short to mask reliably (under \
                     {MIN_SECRET_CHARS} characters); it is shown and saved as given"
                )
            })
            .collect()
    }

    /// Whether no value is masked.
    fn is_empty(&self) -> bool {
        self.known
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values
            .is_empty()
    }

    /// `text` with every secret value masked.
    #[must_use]
    pub fn text(&self, text: &str) -> String {
        let known = self.known.read().unwrap_or_else(PoisonError::into_inner);
        let mut out = text.to_string();
        for value in &known.values {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), MASK);
            }
        }
        out
    }

    /// Whether `text` holds a secret value (as it is or JSON-escaped).
    #[must_use]
    pub fn finds(&self, text: &str) -> bool {
        let known = self.known.read().unwrap_or_else(PoisonError::into_inner);
        known
            .values
            .iter()
            .any(|value| text.contains(value.as_str()))
    }

    /// Whether a string value anywhere in `value` holds a secret (object keys aside).
    #[must_use]
    pub fn finds_in_values(&self, value: &Value) -> bool {
        match value {
            Value::String(text) => self.finds(text),
            Value::Array(items) => items.iter().any(|item| self.finds_in_values(item)),
            Value::Object(map) => map.values().any(|item| self.finds_in_values(item)),
            Value::Null | Value::Bool(_) | Value::Number(_) => false,
        }
    }

    /// Whether an object key inside the free text of a record or state holds a secret: keys are
    /// never masked (protocol keys are the program's own words, never looked at).
    #[must_use]
    pub fn finds_in_free_keys(&self, value: &Value, free: bool) -> bool {
        match value {
            Value::Array(items) => items.iter().any(|item| self.finds_in_free_keys(item, free)),
            Value::Object(map) => map.iter().any(|(key, item)| {
                (free && self.finds(key))
                    || self.finds_in_free_keys(item, free || FREE_TEXT_KEYS.contains(&key.as_str()))
            }),
            Value::String(_) | Value::Null | Value::Bool(_) | Value::Number(_) => false,
        }
    }

    /// Masks secret values in the string values of a run record or session state: never an
    /// object key, never the value of a [`PROTOCOL_KEYS`] field outside free text.
    pub fn json(&self, value: &mut Value) {
        if !self.is_empty() {
            self.walk(value, false, false);
        }
    }

    /// Masks secret values everywhere in `value`, object keys included: for JSON only shown to
    /// a person (an approval's arguments), never read back.
    pub fn shown_json(&self, value: &mut Value) {
        if !self.is_empty() {
            self.walk(value, true, true);
        }
    }

    /// Masks `value`; inside free text (`free`) every string, else all but protocol fields.
    fn walk(&self, value: &mut Value, free: bool, keys: bool) {
        match value {
            Value::String(text) => {
                if self.finds(text) {
                    *text = self.text(text);
                }
            }
            Value::Array(items) => items
                .iter_mut()
                .for_each(|item| self.walk(item, free, keys)),
            Value::Object(map) => {
                if keys && map.keys().any(|key| self.finds(key)) {
                    let entries = std::mem::take(map);
                    for (key, item) in entries {
                        map.insert(self.text(&key), item);
                    }
                }
                for (key, item) in map.iter_mut() {
                    let key = key.as_str();
                    if free || FREE_TEXT_KEYS.contains(&key) {
                        self.walk(item, true, keys);
                    } else if !PROTOCOL_KEYS.contains(&key) {
                        self.walk(item, false, keys);
                    }
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

    /// The names among `vars` a save file masks (by name, or listed in `declared`).
    #[must_use]
    pub fn secret_names(vars: &BTreeMap<String, String>, declared: &[String]) -> BTreeSet<String> {
        vars.keys()
            .filter(|name| is_secret(name, declared))
            .cloned()
            .collect()
    }
}

/// The values MCP toolsets take from the host, masked whatever their names.
mod host;
pub use host::mcp_host_values;

/// The docs state this module's rule (`docs_agree.rs`).
#[cfg(test)]
mod docs_agree;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn named(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_string(), (*value).to_string()))
            .collect()
    }

    #[test]
    fn secret_values_are_masked_in_text_json_and_saved_vars() {
        let vars = named(&[("api_key", "sk-123"), ("tone", "plain")]);
        let redactor = Redactor::for_vars(&vars);
        assert_eq!(redactor.text("use sk-123 plain"), "use *** plain");
        let mut value = json!({"a": ["x sk-123"], "n": 2});
        redactor.json(&mut value);
        assert_eq!(value, json!({"a": ["x ***"], "n": 2}));
        let saved = Redactor::vars_to_save(&vars, &[]);
        assert_eq!(saved["api_key"], MASK);
        assert_eq!(saved["tone"], "plain");
        assert_eq!(
            Redactor::secret_names(&vars, &[]),
            BTreeSet::from(["api_key".to_string()])
        );
    }

    #[test]
    fn keys_protocol_fields_and_short_values_are_never_rewritten() {
        // `--var api_key=e`: too short to mask; warned about once.
        let redactor = Redactor::for_vars(&named(&[("api_key", "e")]));
        redactor.add([("api_key".to_string(), "e".to_string())]);
        let mut record = json!({"sequence": 1, "event": {"type": "text_delta", "delta": "hello"}});
        let before = record.clone();
        redactor.json(&mut record);
        assert_eq!(record, before);
        assert_eq!(redactor.text("sequence"), "sequence");
        let warnings = redactor.take_warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("secret `api_key` is too short to mask reliably"),
            "{warnings:?}"
        );
        assert!(redactor.clone().take_warnings().is_empty());

        // `sort_key: name`: keys and protocol fields stay, free text is masked.
        let redactor = Redactor::for_vars(&named(&[("sort_key", "name")]));
        let mut state = json!({
            "part_kind": "tool_call", "id": "c1", "name": "rename", "model_name": "name",
            "arguments": {"json": {"name": "by name", "type": "name"}},
            "content": "sorted by name", "message": "the name"
        });
        redactor.json(&mut state);
        assert_eq!(
            state,
            json!({
                "part_kind": "tool_call", "id": "c1", "name": "rename", "model_name": "name",
                "arguments": {"json": {"name": "by ***", "type": "***"}},
                "content": "sorted by ***", "message": "the ***"
            })
        );
    }

    #[test]
    fn json_escaped_secrets_are_masked_and_shown_json_masks_keys() {
        let secret = "p\"w\\x9z";
        let redactor = Redactor::for_vars(&named(&[("db_password", secret)]));
        let arguments = json!({"text": format!("pw={secret}")});
        let text = arguments.to_string();
        assert!(redactor.finds(&text), "{text}");
        assert!(!redactor.text(&text).contains("w\\\\x"), "{text}");
        let mut value = arguments.clone();
        redactor.json(&mut value);
        assert_eq!(value, json!({"text": "pw=***"}));
        // Keys are never masked: a save refuses free text whose keys hold a secret.
        assert!(redactor.finds_in_free_keys(&json!({"content": {secret: 1}}), false));
        assert!(!redactor.finds_in_free_keys(&json!({"content": {"k": secret}}), false));
        assert!(redactor.finds_in_values(&json!({"k": [format!("a{secret}")]})));
        let mut shown = json!({ secret: 1 });
        redactor.shown_json(&mut shown);
        assert_eq!(shown, json!({"***": 1}));
    }

    #[test]
    fn secrets_the_manifest_declares_are_masked_in_every_clone() {
        let vars = named(&[("deploy", "hunter2")]);
        let redactor = Redactor::for_vars(&vars);
        let shown_by_a_ui = redactor.clone();
        assert_eq!(shown_by_a_ui.text("pw hunter2"), "pw hunter2");
        // Known once the manifest is read: `secret_vars: [deploy]`.
        redactor.add([("deploy".to_string(), "hunter2".to_string())]);
        assert_eq!(shown_by_a_ui.text("pw hunter2"), "pw ***");
        let declared = ["deploy".to_string()];
        assert!(is_secret("deploy", &declared));
        assert_eq!(Redactor::vars_to_save(&vars, &declared)["deploy"], MASK);
    }
}
