//! `model:` to a runtime model and its settings.

use std::sync::Arc;

use starweaver_core::model::{DynModel, ModelSettings, ProviderKind, TestModel};

use super::LoadError;
use crate::manifest::ModelSpec;
use crate::validate::Checked;

/// The model `model.id` names: the embedded `test` model, the `script` model playing the turns
/// the checker read from `model.script`, or a provider's client with the manifest's base URL,
/// key variable, streaming and HTTP settings. The checker has already refused every id and
/// setting that cannot apply; what is left fails only for the build or the host.
pub(super) fn model(checked: &Checked) -> Result<DynModel, LoadError> {
    let spec = &checked.manifest().model;
    if spec.id == "test" {
        return Ok(Arc::new(TestModel::auto()));
    }
    if spec.id == "script" {
        // The checker passes a `script` model only with its turns read.
        return checked.script().map_or_else(
            || Err(not_given(spec)),
            |script| Ok(Arc::new(script.clone()) as DynModel),
        );
    }
    match ProviderKind::from_model_id(&spec.id) {
        Some((kind, name)) => client(kind, name, spec),
        // An id the host said it supplies (`CheckContext::with_model_ids`).
        None => Err(not_given(spec)),
    }
}

fn not_given(spec: &ModelSpec) -> LoadError {
    LoadError::ModelNotGiven {
        id: spec.id.clone(),
    }
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
/// passed on as given. The checker has refused settings of the wrong kind and settings the
/// provider does not have, so a value that does not fit its key cannot reach here; were one to,
/// it is passed on as given rather than dropped.
pub(super) fn settings(spec: &ModelSpec) -> ModelSettings {
    let mut out = ModelSettings::default();
    for (key, value) in &spec.settings {
        let typed = match key.as_str() {
            "temperature" => value.as_f64().map(|n| out.temperature = Some(n)),
            "top_p" => value.as_f64().map(|n| out.top_p = Some(n)),
            "max_tokens" => value.as_u64().map(|n| out.max_tokens = Some(n)),
            "seed" => value.as_i64().map(|n| out.seed = Some(n)),
            "stop" => stop(value).map(|list| out.stop = list),
            _ => None,
        };
        if typed.is_none() {
            out.extra.insert(key.clone(), value.clone());
        }
    }
    out
}

/// `stop`: one string or a list of strings.
fn stop(value: &serde_json::Value) -> Option<Vec<String>> {
    match value {
        serde_json::Value::String(one) => Some(vec![one.clone()]),
        serde_json::Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(str::to_string))
            .collect(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::diagnostics::Diagnostic;
    use crate::validate::{check_manifest, CheckContext};

    fn spec(id: &str, settings: serde_json::Value) -> ModelSpec {
        serde_json::from_value(serde_json::json!({"id": id, "settings": settings})).unwrap()
    }

    /// The checker's messages for a manifest with this `model:` in `dir`, and whether it
    /// passed.
    fn checked(model: &str, dir: &std::path::Path) -> (String, Option<Checked>) {
        let text = format!("version: 1\nname: a\nmodel: {model}\n");
        let (found, checked) =
            check_manifest(text.as_bytes(), &CheckContext::new().with_base_dir(dir));
        let messages: Vec<String> = found.iter().map(Diagnostic::full_text).collect();
        (messages.join("\n"), checked)
    }

    #[test]
    fn known_settings_are_typed_and_the_rest_pass_through() {
        let out = settings(&spec(
            "openai:gpt-4o",
            serde_json::json!({"temperature": 0.2, "max_tokens": 10, "stop": "END", "seed": 7, "presence_penalty": 0.5}),
        ));
        assert_eq!(out.temperature, Some(0.2));
        assert_eq!(out.max_tokens, Some(10));
        assert_eq!(out.stop, ["END"]);
        assert_eq!(out.seed, Some(7));
        assert_eq!(out.extra["presence_penalty"], 0.5);
        // A value of the wrong kind is the checker's to refuse: it never reaches the loader.
        let dir = tempfile::tempdir().unwrap();
        let (error, refused) = checked("{id: test, settings: {top_p: high}}", dir.path());
        assert!(refused.is_none());
        assert!(error.contains("model.settings.top_p"), "{error}");
    }

    #[test]
    fn the_script_model_plays_the_turns_the_checker_read_inside_the_manifest_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.script.yaml"), "- answer: done\n").unwrap();
        let (_, passed) = checked("{id: script, script: a.script.yaml}", dir.path());
        let passed = passed.unwrap();
        assert_eq!(passed.script().unwrap().turns().len(), 1);
        // The file is not read again: the model plays the checked turns even once it is gone.
        std::fs::remove_file(dir.path().join("a.script.yaml")).unwrap();
        let loaded = model(&passed).unwrap();
        assert_eq!(loaded.name(), "script");
        let refused = |model: &str| {
            let (error, checked) = checked(model, dir.path());
            assert!(checked.is_none(), "{model} passed");
            error
        };
        let missing = refused("{id: script, script: b.script.yaml}");
        assert!(
            missing.contains("cannot read the script `") && missing.contains("does not exist"),
            "{missing}"
        );
        let outside = refused("{id: script, script: ../a.script.yaml}");
        assert!(
            outside.contains("outside the manifest's folder"),
            "{outside}"
        );
        let unnamed = refused("{id: script}");
        assert!(unnamed.contains("`model.script` is missing"), "{unnamed}");
        std::fs::write(dir.path().join("a.script.yaml"), "- answer: done\n").unwrap();
        let other = refused("{id: test, script: a.script.yaml}");
        assert!(other.contains("applies only to `id: script`"), "{other}");
        let keyed = refused("{id: script, script: a.script.yaml, stream: false}");
        assert!(
            keyed.contains("the `script` model makes no network requests"),
            "{keyed}"
        );
    }

    #[test]
    fn a_setting_the_provider_lacks_is_refused_by_the_checker() {
        let dir = tempfile::tempdir().unwrap();
        let (error, refused) = checked(
            "{id: 'anthropic:claude-sonnet-4-5', settings: {seed: 1}}",
            dir.path(),
        );
        assert!(refused.is_none());
        assert!(error.contains("model.settings.seed"), "{error}");
        assert!(error.contains("top_k"), "{error}");
        // The `test` model takes any setting; one it does not know is passed on as given.
        let out = settings(&spec("test", serde_json::json!({"anything": 1})));
        assert_eq!(out.extra["anything"], 1);
    }
}
