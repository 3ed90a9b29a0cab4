//! `model:` to a runtime model and its settings.

use std::collections::BTreeMap;
use std::sync::Arc;

use starweaver_core::model::{DynModel, ModelSettings, TestModel};

use super::LoadError;
use crate::manifest::ModelSpec;

/// The model `model.id` names. Only the embedded `test` model exists in this build; provider
/// ids (`openai:…`, `anthropic:…`) are refused by name rather than replaced.
pub(super) fn model(spec: &ModelSpec) -> Result<DynModel, LoadError> {
    if spec.id != "test" {
        return Err(LoadError::UnknownModel {
            id: spec.id.clone(),
        });
    }
    for (field, value) in [
        ("base_url", &spec.base_url),
        ("api_key_env", &spec.api_key_env),
    ] {
        if value.is_some() {
            return Err(LoadError::Unsupported {
                field: format!("model.{field}"),
                reason: "the `test` model makes no network requests".to_string(),
            });
        }
    }
    Ok(Arc::new(TestModel::auto()))
}

/// `model.settings` as request settings: the known keys typed, the rest passed on as extras.
pub(super) fn settings(
    settings: &BTreeMap<String, serde_json::Value>,
) -> Result<ModelSettings, LoadError> {
    let mut out = ModelSettings::default();
    let bad = |key: &str, want: &str| LoadError::InvalidValue {
        field: format!("model.settings.{key}"),
        expected: want.to_string(),
    };
    for (key, value) in settings {
        match key.as_str() {
            "temperature" => {
                out.temperature = Some(value.as_f64().ok_or_else(|| bad(key, "a number"))?)
            }
            "top_p" => out.top_p = Some(value.as_f64().ok_or_else(|| bad(key, "a number"))?),
            "max_tokens" => {
                out.max_tokens = Some(value.as_u64().ok_or_else(|| bad(key, "a whole number"))?);
            }
            "stop" => {
                out.stop = match value {
                    serde_json::Value::String(one) => vec![one.clone()],
                    serde_json::Value::Array(items) => items
                        .iter()
                        .map(|item| item.as_str().map(str::to_string))
                        .collect::<Option<_>>()
                        .ok_or_else(|| bad(key, "a string or a list of strings"))?,
                    _ => return Err(bad(key, "a string or a list of strings")),
                };
            }
            _ => {
                out.extra.insert(key.clone(), value.clone());
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn known_settings_are_typed_and_the_rest_pass_through() {
        let given: BTreeMap<String, serde_json::Value> = serde_json::from_value(
            serde_json::json!({"temperature": 0.2, "max_tokens": 10, "stop": "END", "seed": 7}),
        )
        .unwrap();
        let out = settings(&given).unwrap();
        assert_eq!(out.temperature, Some(0.2));
        assert_eq!(out.max_tokens, Some(10));
        assert_eq!(out.stop, ["END"]);
        assert_eq!(out.extra["seed"], 7);
        let bad: BTreeMap<String, serde_json::Value> =
            serde_json::from_value(serde_json::json!({"top_p": "high"})).unwrap();
        let error = settings(&bad).unwrap_err().to_string();
        assert!(error.contains("model.settings.top_p"), "{error}");
    }
}
