//! What a given Anthropic model takes. The Messages API requires `max_tokens`; newer models
//! (Claude 4.1 and later) refuse `temperature` and `top_p` together, so `top_p` is left out
//! with a reason when both are set; `seed` does not exist in the protocol.

use serde_json::{Map, Value};

use starweaver_core::model::{ModelSettings, ProviderKind, RequestNotice};

/// `max_tokens` when the settings give none (the protocol requires one).
pub const DEFAULT_MAX_TOKENS: u64 = 4096;

/// The settings to send, in a fixed order, whether parallel tool calls are switched off, and
/// what was left out.
pub(super) fn settings(
    model: &str,
    settings: &ModelSettings,
) -> (Map<String, Value>, Option<bool>, Vec<RequestNotice>) {
    let mut out = Map::new();
    let mut notices = Vec::new();
    out.insert(
        "max_tokens".into(),
        Value::from(settings.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    if let Some(temperature) = settings.temperature {
        out.insert("temperature".into(), number(temperature));
    }
    if let Some(top_p) = settings.top_p {
        if settings.temperature.is_some() && refuses_temperature_with_top_p(model) {
            notices.push(RequestNotice::setting_left_out(
                "top_p",
                "this model refuses `temperature` and `top_p` together; `temperature` is sent",
            ));
        } else {
            out.insert("top_p".into(), number(top_p));
        }
    }
    if !settings.stop.is_empty() {
        out.insert("stop_sequences".into(), Value::from(settings.stop.clone()));
    }
    if settings.seed.is_some() {
        notices.push(RequestNotice::setting_left_out(
            "seed",
            "the Anthropic Messages API has no seed",
        ));
    }
    let mut parallel = None;
    for (key, value) in &settings.extra {
        if !ProviderKind::Anthropic.takes_setting(key) {
            notices.push(RequestNotice::setting_left_out(
                key,
                "not a setting of the Anthropic Messages API (see `starweaver check`)",
            ));
        } else if key == "parallel_tool_calls" {
            parallel = value.as_bool();
        } else {
            out.insert(key.clone(), value.clone());
        }
    }
    (out, parallel, notices)
}

fn number(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// Claude models from 4.1 on (`claude-opus-4-1`, `claude-sonnet-4-5`, `claude-haiku-4-5`,
/// any `claude-*-5`).
fn refuses_temperature_with_top_p(model: &str) -> bool {
    let mut parts = model.split('-');
    if parts.next() != Some("claude") {
        return false;
    }
    // `claude-sonnet-4-5` and the older `claude-3-5-sonnet`: the first number is the major
    // version, a short number right after it the minor one (a date is not).
    let mut numbers = parts.skip_while(|part| part.parse::<u32>().is_err());
    let Some(major) = numbers.next().and_then(|part| part.parse::<u32>().ok()) else {
        return false;
    };
    let minor = numbers
        .next()
        .filter(|part| part.len() <= 2)
        .and_then(|part| part.parse::<u32>().ok())
        .unwrap_or(0);
    major > 4 || (major == 4 && minor >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_models_take_temperature_or_top_p_not_both() {
        for model in [
            "claude-opus-4-1",
            "claude-sonnet-4-5",
            "claude-haiku-4-5-20251001",
            "claude-opus-5",
        ] {
            assert!(refuses_temperature_with_top_p(model), "{model}");
        }
        for model in [
            "claude-sonnet-4-20250514",
            "claude-3-5-haiku-latest",
            "claude-opus-4-20250514",
            "other",
        ] {
            assert!(!refuses_temperature_with_top_p(model), "{model}");
        }
        let given = ModelSettings {
            temperature: Some(0.2),
            top_p: Some(0.9),
            seed: Some(3),
            ..ModelSettings::default()
        };
        let (sent, _, notices) = settings("claude-sonnet-4-5", &given);
        assert_eq!(
            sent.keys().collect::<Vec<_>>(),
            ["max_tokens", "temperature"]
        );
        let names: Vec<&str> = notices
            .iter()
            .map(|notice| notice.subject.as_str())
            .collect();
        assert_eq!(names, ["top_p", "seed"]);
    }
}
