//! `model:` to a runtime model and its settings.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use starweaver_core::model::{DynModel, ModelSettings, ProviderKind, TestModel};

use super::LoadError;
use crate::manifest::ModelSpec;
use crate::paths::{script_file, FileProblem};
use crate::script::ScriptModel;

/// The model `model.id` names: the embedded `test` model, the `script` model playing the file
/// `model.script` names (relative to the manifest's folder `base_dir`), or a provider's client
/// with the manifest's base URL, key variable, streaming and HTTP settings.
pub(super) fn model(spec: &ModelSpec, base_dir: &Path) -> Result<DynModel, LoadError> {
    if spec.id == "test" || spec.id == "script" {
        if let Some(field) = set_client_keys(spec).first() {
            return Err(LoadError::Unsupported {
                field: format!("model.{field}"),
                reason: format!("the `{}` model makes no network requests", spec.id),
            });
        }
    }
    if spec.id == "script" {
        return script(spec, base_dir);
    }
    if spec.script.is_some() {
        return Err(LoadError::Unsupported {
            field: "model.script".to_string(),
            reason: format!(
                "only the `script` model plays a script, and `model.id` is `{}` (set `id: script` to play it)",
                spec.id
            ),
        });
    }
    if spec.id == "test" {
        return Ok(Arc::new(TestModel::auto()));
    }
    let Some((kind, name)) = ProviderKind::from_model_id(&spec.id) else {
        return Err(LoadError::UnknownModel {
            id: spec.id.clone(),
        });
    };
    if let Some(url) = &spec.base_url {
        starweaver_core::model::check_base_url(url).map_err(|reason| LoadError::InvalidValue {
            field: "model.base_url".to_string(),
            expected: format!("an http or https URL ({reason})"),
        })?;
    }
    client(kind, name, spec)
}

/// The `script` model, reading `model.script` inside the manifest's folder.
fn script(spec: &ModelSpec, base_dir: &Path) -> Result<DynModel, LoadError> {
    let Some(file) = &spec.script else {
        return Err(LoadError::Missing {
            field: "model.id".to_string(),
            needs: "model.script".to_string(),
            help: "add `script: NAME.script.yaml`, the file of turns the model plays (relative to the manifest's folder)".to_string(),
        });
    };
    let path = script_file(base_dir, file).map_err(|FileProblem::OutsideFolder| LoadError::Script {
        message: format!(
            "`{file}` is outside the manifest's folder; put the script beside the manifest (or in a folder inside it) and name it relative to the manifest"
        ),
    })?;
    let model = ScriptModel::from_file(&path).map_err(|error| LoadError::Script {
        message: error.to_string(),
    })?;
    Ok(Arc::new(model.with_script_name(file.clone())))
}

/// The client keys a manifest sets.
fn set_client_keys(spec: &ModelSpec) -> Vec<&'static str> {
    let set = [
        spec.base_url.is_some(),
        spec.api_key_env.is_some(),
        spec.stream.is_some(),
        spec.timeout_ms.is_some(),
        spec.connect_timeout_ms.is_some(),
        spec.max_retries.is_some(),
        spec.retry_budget_ms.is_some(),
    ];
    ModelSpec::CLIENT_KEYS
        .into_iter()
        .zip(set)
        .filter_map(|(key, set)| set.then_some(key))
        .collect()
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
fn http_options(spec: &ModelSpec) -> starweaver_providers::http::HttpOptions {
    use std::time::Duration;
    let mut options = starweaver_providers::http::HttpOptions::default();
    if let Some(ms) = spec.timeout_ms {
        options.timeout = Duration::from_millis(ms.get());
    }
    if let Some(ms) = spec.connect_timeout_ms {
        options.connect_timeout = Duration::from_millis(ms.get());
    }
    if let Some(retries) = spec.max_retries {
        options.retry.max_retries = retries;
    }
    if let Some(ms) = spec.retry_budget_ms {
        options.retry.max_elapsed = Duration::from_millis(ms.get());
    }
    options
}

/// The client of protocol `P` for the provider's model `name`, the manifest's client settings
/// applied through the client's own public builders (the same chain a program would write).
#[cfg(any(feature = "openai", feature = "anthropic"))]
fn configured<P: starweaver_providers::http::Protocol>(name: &str, spec: &ModelSpec) -> DynModel {
    let mut model = starweaver_providers::http::HttpModel::<P>::new(name)
        .with_http_options(http_options(spec))
        .with_streaming(spec.stream.unwrap_or(true));
    if let Some(url) = &spec.base_url {
        model = model.with_base_url(url);
    }
    if let Some(variable) = &spec.api_key_env {
        model = model.with_api_key_env(variable);
    }
    Arc::new(model)
}

/// Builds the client the build has, with every manifest setting applied.
fn client(kind: ProviderKind, name: &str, spec: &ModelSpec) -> Result<DynModel, LoadError> {
    match kind {
        #[cfg(feature = "openai")]
        ProviderKind::OpenAi => Ok(configured::<starweaver_providers::openai::OpenAiProtocol>(
            name, spec,
        )),
        #[cfg(feature = "anthropic")]
        ProviderKind::Anthropic => Ok(configured::<
            starweaver_providers::anthropic::AnthropicProtocol,
        >(name, spec)),
        #[allow(unreachable_patterns)]
        _ => {
            let _ = name;
            Err(LoadError::ProviderNotBuilt {
                id: spec.id.clone(),
                feature: kind.feature().to_string(),
            })
        }
    }
}

/// `model.settings` as request settings: the known keys typed, the provider's other settings
/// passed on as given, and a setting the provider does not have refused (the `test` model
/// ignores settings, so it takes any).
pub(super) fn settings(spec: &ModelSpec) -> Result<ModelSettings, LoadError> {
    let provider = ProviderKind::from_model_id(&spec.id).map(|(kind, _)| kind);
    let mut out = ModelSettings::default();
    let bad = |key: &str, want: &str| LoadError::InvalidValue {
        field: format!("model.settings.{key}"),
        expected: want.to_string(),
    };
    let entries: &BTreeMap<String, serde_json::Value> = &spec.settings;
    for (key, value) in entries {
        if let Some(kind) = provider {
            if !kind.takes_setting(key) {
                return Err(LoadError::Unsupported {
                    field: format!("model.settings.{key}"),
                    reason: format!(
                        "not a setting of {}; it takes {}",
                        kind.display_name(),
                        kind.settings().join(", ")
                    ),
                });
            }
        }
        match key.as_str() {
            "temperature" => {
                out.temperature = Some(value.as_f64().ok_or_else(|| bad(key, "a number"))?)
            }
            "top_p" => out.top_p = Some(value.as_f64().ok_or_else(|| bad(key, "a number"))?),
            "max_tokens" => {
                out.max_tokens = Some(value.as_u64().ok_or_else(|| bad(key, "a whole number"))?);
            }
            "seed" => out.seed = Some(value.as_i64().ok_or_else(|| bad(key, "a whole number"))?),
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

    fn spec(id: &str, settings: serde_json::Value) -> ModelSpec {
        serde_json::from_value(serde_json::json!({"id": id, "settings": settings})).unwrap()
    }

    #[test]
    fn known_settings_are_typed_and_the_rest_pass_through() {
        let out = settings(&spec(
            "openai:gpt-4o",
            serde_json::json!({"temperature": 0.2, "max_tokens": 10, "stop": "END", "seed": 7, "presence_penalty": 0.5}),
        ))
        .unwrap();
        assert_eq!(out.temperature, Some(0.2));
        assert_eq!(out.max_tokens, Some(10));
        assert_eq!(out.stop, ["END"]);
        assert_eq!(out.seed, Some(7));
        assert_eq!(out.extra["presence_penalty"], 0.5);
        let error = settings(&spec("test", serde_json::json!({"top_p": "high"})))
            .unwrap_err()
            .to_string();
        assert!(error.contains("model.settings.top_p"), "{error}");
    }

    #[test]
    fn the_script_model_reads_its_file_inside_the_manifest_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.script.yaml"), "- answer: done\n").unwrap();
        let spec =
            |value: serde_json::Value| -> ModelSpec { serde_json::from_value(value).unwrap() };
        let loaded = model(
            &spec(serde_json::json!({"id": "script", "script": "a.script.yaml"})),
            dir.path(),
        )
        .unwrap();
        assert_eq!(loaded.name(), "script");
        let error = |value| model(&spec(value), dir.path()).err().unwrap().to_string();
        let missing = error(serde_json::json!({"id": "script", "script": "b.script.yaml"}));
        assert!(
            missing.starts_with("model.script: cannot read the script `")
                && missing.contains("does not exist"),
            "{missing}"
        );
        let outside = error(serde_json::json!({"id": "script", "script": "../a.script.yaml"}));
        assert!(
            outside.contains("outside the manifest's folder"),
            "{outside}"
        );
        let unnamed = error(serde_json::json!({"id": "script"}));
        assert!(unnamed.contains("needs `model.script`"), "{unnamed}");
        let other = error(serde_json::json!({"id": "test", "script": "a.script.yaml"}));
        assert!(other.starts_with("model.script: not supported"), "{other}");
        let keyed =
            error(serde_json::json!({"id": "script", "script": "a.script.yaml", "stream": false}));
        assert!(
            keyed.contains("the `script` model makes no network requests"),
            "{keyed}"
        );
    }

    #[test]
    fn a_setting_the_provider_lacks_is_refused() {
        let error = settings(&spec(
            "anthropic:claude-sonnet-4-5",
            serde_json::json!({"seed": 1}),
        ))
        .unwrap_err()
        .to_string();
        assert!(error.contains("model.settings.seed"), "{error}");
        assert!(error.contains("top_k"), "{error}");
        assert!(settings(&spec("test", serde_json::json!({"anything": 1}))).is_ok());
    }
}
