//! What a given OpenAI model takes: reasoning models (o1, o3, o4, gpt-5) accept only their
//! default sampling and count output with `max_completion_tokens`; some refuse parallel tool
//! calls. Settings a model lacks are left out with a reason instead of sent to fail.

use serde_json::{Map, Value};

use starweaver_core::model::{ModelSettings, ProviderKind, RequestNotice};

/// The settings to send for `model`, in a fixed order, and what was left out.
pub(super) fn settings(
    model: &str,
    settings: &ModelSettings,
    has_tools: bool,
) -> (Map<String, Value>, Vec<RequestNotice>) {
    let reasoning = is_reasoning(model);
    let mut out = Map::new();
    let mut notices = Vec::new();
    let mut left_out = |name: &str, reason: &str| {
        notices.push(RequestNotice::setting_left_out(name, reason));
    };
    let sampling = "reasoning models accept only their default sampling";
    if let Some(temperature) = settings.temperature {
        if reasoning {
            left_out("temperature", sampling);
        } else {
            out.insert("temperature".into(), number(temperature));
        }
    }
    if let Some(top_p) = settings.top_p {
        if reasoning {
            left_out("top_p", sampling);
        } else {
            out.insert("top_p".into(), number(top_p));
        }
    }
    if let Some(max_tokens) = settings.max_tokens {
        let key = if reasoning {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        out.insert(key.into(), Value::from(max_tokens));
    }
    if !settings.stop.is_empty() {
        if reasoning {
            left_out("stop", "reasoning models do not take stop sequences");
        } else {
            out.insert("stop".into(), Value::from(settings.stop.clone()));
        }
    }
    if let Some(seed) = settings.seed {
        out.insert("seed".into(), Value::from(seed));
    }
    for (key, value) in &settings.extra {
        if !ProviderKind::OpenAi.takes_setting(key) {
            left_out(
                key,
                "not a setting of the OpenAI Chat Completions API (see `starweaver check`)",
            );
        } else if key == "parallel_tool_calls" && !has_tools {
            // The API refuses it on a request without tools; nothing is lost.
        } else if key == "parallel_tool_calls" && refuses_parallel_tool_calls(model) {
            left_out(key, "this model does not take `parallel_tool_calls`");
        } else if reasoning
            && matches!(
                key.as_str(),
                "frequency_penalty" | "presence_penalty" | "logit_bias"
            )
        {
            left_out(key, sampling);
        } else if key == "seed" {
            out.entry("seed").or_insert_with(|| value.clone());
        } else {
            out.insert(key.clone(), value.clone());
        }
    }
    (out, notices)
}

/// A JSON number for a setting (a non-finite value, which JSON cannot hold, becomes null).
fn number(value: f64) -> Value {
    serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number)
}

/// The o-series and gpt-5 reasoning models (not the `gpt-5-chat` variants).
pub(super) fn is_reasoning(model: &str) -> bool {
    let name = model.rsplit('/').next().unwrap_or(model);
    let o_series = ["o1", "o3", "o4"]
        .iter()
        .any(|prefix| name == *prefix || name.starts_with(&format!("{prefix}-")));
    o_series || (name.starts_with("gpt-5") && !name.contains("-chat"))
}

/// Models that refuse `parallel_tool_calls`.
fn refuses_parallel_tool_calls(model: &str) -> bool {
    let name = model.rsplit('/').next().unwrap_or(model);
    name == "o1" || name.starts_with("o1-") || name.starts_with("o3-mini")
}

/// The role instructions take: o-series models read `developer` messages.
pub(super) fn instructions_role(model: &str) -> &'static str {
    let name = model.rsplit('/').next().unwrap_or(model);
    if is_reasoning(name) && name.starts_with('o') {
        "developer"
    } else {
        "system"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_models_drop_sampling_with_a_reason() {
        let given = ModelSettings {
            temperature: Some(0.2),
            top_p: Some(0.9),
            max_tokens: Some(100),
            ..ModelSettings::default()
        };
        let (sent, notices) = settings("o3-mini", &given, true);
        assert_eq!(
            sent,
            serde_json::json!({"max_completion_tokens": 100})
                .as_object()
                .cloned()
                .unwrap_or_default()
        );
        let names: Vec<&str> = notices
            .iter()
            .map(|notice| notice.subject.as_str())
            .collect();
        assert_eq!(names, ["temperature", "top_p"]);
        let (sent, notices) = settings("gpt-4o", &given, true);
        assert_eq!(sent.len(), 3);
        assert!(sent.contains_key("max_tokens"));
        assert!(notices.is_empty());
    }

    #[test]
    fn unknown_extras_are_left_out_and_known_ones_pass() {
        let mut given = ModelSettings::default();
        given
            .extra
            .insert("presence_penalty".into(), Value::from(0.5));
        given.extra.insert("top_k".into(), Value::from(3));
        given
            .extra
            .insert("parallel_tool_calls".into(), Value::from(false));
        let (sent, notices) = settings("gpt-4o", &given, false);
        assert_eq!(sent.keys().collect::<Vec<_>>(), ["presence_penalty"]);
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].subject, "top_k");
        let (sent, notices) = settings("o1", &given, true);
        assert!(sent.is_empty(), "{sent:?}");
        assert_eq!(notices.len(), 3);
    }

    #[test]
    fn model_families() {
        for name in [
            "o1",
            "o1-mini",
            "o3",
            "o4-mini",
            "gpt-5",
            "gpt-5-mini",
            "openai/o3",
        ] {
            assert!(is_reasoning(name), "{name}");
        }
        for name in [
            "gpt-4o",
            "gpt-4.1-mini",
            "gpt-5-chat-latest",
            "llama3.1",
            "omni",
        ] {
            assert!(!is_reasoning(name), "{name}");
        }
        assert_eq!(instructions_role("o3"), "developer");
        assert_eq!(instructions_role("gpt-5"), "system");
        assert_eq!(instructions_role("gpt-4o"), "system");
    }
}
