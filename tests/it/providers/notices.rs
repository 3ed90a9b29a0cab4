//! Settings a model refuses are left out of the request instead of sent
//! to fail it, and the run says so: one `model_request_adjusted` event
//! naming each setting and why, once per run however many requests the
//! run makes.

use serde_json::{json, Value};
use starweaver::context::ContextEventKind;
use starweaver::model::ModelSettings;

use super::{custom_events, patiently, project, Provider, Setup, FINAL_TEXT, PROMPT};
use crate::common::loopback::LoopbackServer;

/// Runs the two-step conversation streamed on `model` of `provider` with
/// `settings`; returns the request bodies and the adjustment events that
/// report settings (with only those notices).
async fn adjusted_run(
    provider: Provider,
    model: &str,
    settings: ModelSettings,
) -> (Vec<Value>, Vec<Value>) {
    let server = LoopbackServer::start(provider.conversation(true));
    let built = Setup::new(provider, &server).model(model).build();
    let mut workspace = project(built, settings);
    let stream = patiently(workspace.session.run_stream(PROMPT))
        .await
        .unwrap();
    assert_eq!(stream.result().output, FINAL_TEXT);
    let bodies: Vec<Value> = server
        .requests()
        .iter()
        .map(|request| request.json_body().clone())
        .collect();
    assert_eq!(bodies.len(), 2);
    // Only the settings' notices count here: what the tools' schemas
    // need is the schema rewriting's business.
    let events = custom_events(stream.events(), ContextEventKind::ModelRequestAdjusted)
        .into_iter()
        .filter_map(|mut event| {
            let notices = event["notices"].as_array_mut().unwrap();
            notices.retain(|notice| notice["kind"] == "setting_left_out");
            (!notices.is_empty()).then_some(event)
        })
        .collect();
    (bodies, events)
}

/// The `(kind, subject)` of each notice of an adjustment event, and
/// checks each has a reason.
fn notices(event: &Value) -> Vec<(String, String)> {
    event["notices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|notice| {
            let reason = notice["reason"].as_str().unwrap();
            assert!(!reason.is_empty(), "{notice}");
            (
                notice["kind"].as_str().unwrap().to_string(),
                notice["subject"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn left_out(setting: &str) -> (String, String) {
    ("setting_left_out".to_string(), setting.to_string())
}

#[tokio::test]
async fn an_openai_reasoning_model_gets_no_temperature_and_the_run_says_so() {
    let settings = ModelSettings {
        temperature: Some(0.3),
        max_tokens: Some(800),
        ..ModelSettings::default()
    };
    let (bodies, events) = adjusted_run(Provider::OpenAi, "o3-mini", settings).await;
    for body in &bodies {
        assert!(body.get("temperature").is_none(), "{body}");
        // Reasoning models count output with `max_completion_tokens` and
        // read instructions as a developer message.
        assert_eq!(body["max_completion_tokens"], 800);
        assert!(body.get("max_tokens").is_none());
        assert_eq!(body["messages"][0]["role"], "developer");
    }
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["model"], "openai:o3-mini");
    assert_eq!(notices(&events[0]), [left_out("temperature")]);
    let reason = events[0]["notices"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("reasoning models"), "{reason}");
}

#[tokio::test]
async fn a_claude_model_gets_temperature_without_top_p_and_no_seed() {
    let settings = ModelSettings {
        temperature: Some(0.3),
        top_p: Some(0.9),
        seed: Some(11),
        ..ModelSettings::default()
    };
    let (bodies, events) = adjusted_run(Provider::Anthropic, "claude-sonnet-4-5", settings).await;
    for body in &bodies {
        assert_eq!(body["temperature"], 0.3);
        assert!(body.get("top_p").is_none(), "{body}");
        assert!(body.get("seed").is_none(), "{body}");
    }
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["model"], "anthropic:claude-sonnet-4-5");
    assert_eq!(notices(&events[0]), [left_out("top_p"), left_out("seed")]);
}

#[tokio::test]
async fn a_setting_the_model_takes_is_sent_and_not_reported() {
    // An older Claude takes both sampling settings; a chat OpenAI model
    // takes the temperature.
    let both = ModelSettings {
        temperature: Some(0.3),
        top_p: Some(0.9),
        ..ModelSettings::default()
    };
    let (bodies, events) =
        adjusted_run(Provider::Anthropic, "claude-sonnet-4-20250514", both).await;
    assert!(events.is_empty(), "{events:?}");
    assert!(bodies.iter().all(|body| body["top_p"] == 0.9));
    let warm = ModelSettings {
        temperature: Some(0.3),
        ..ModelSettings::default()
    };
    let (bodies, events) = adjusted_run(Provider::OpenAi, "gpt-4.1-mini", warm).await;
    assert!(events.is_empty(), "{events:?}");
    assert!(bodies.iter().all(|body| body["temperature"] == 0.3));
}

#[tokio::test]
async fn a_setting_the_protocol_lacks_is_left_out_and_named() {
    // `top_k` is a Messages setting, not a Chat Completions one.
    let mut settings = ModelSettings::default();
    settings.extra.insert("top_k".into(), json!(5));
    let (bodies, events) = adjusted_run(Provider::OpenAi, "gpt-4.1-mini", settings.clone()).await;
    assert!(bodies.iter().all(|body| body.get("top_k").is_none()));
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(notices(&events[0]), [left_out("top_k")]);
    let reason = events[0]["notices"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("starweaver check"), "{reason}");

    let (bodies, events) = adjusted_run(Provider::Anthropic, "claude-sonnet-4-5", settings).await;
    assert!(events.is_empty(), "{events:?}");
    assert!(bodies.iter().all(|body| body["top_k"] == 5));
}
