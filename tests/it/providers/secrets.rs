//! The API key is never shown: not in a model's `Debug`, not in a run's
//! events or history, and not in an error, even when the server echoes
//! the key back (in an error body, a stream's error event, or a field of
//! the wrong type that the parser quotes).

use serde_json::json;
use starweaver::agent::AgentStreamRecord;
use starweaver::model::ModelSettings;
use starweaver::AgentRunOptions;

use super::{model_failure, patiently, project, Provider, Setup, KEY, PROMPT};
use crate::common::loopback::{LoopbackServer, Reply};

#[test]
fn a_models_debug_text_never_shows_the_key() {
    let server = LoopbackServer::start(Vec::new());
    for provider in Provider::ALL {
        let shown = Setup::new(provider, &server).debug_text();
        assert!(!shown.contains(KEY), "{provider:?}: {shown}");
        assert!(shown.contains("***"), "{provider:?}: {shown}");
    }
}

#[tokio::test]
async fn a_run_never_shows_the_key_in_its_events_or_history() {
    for provider in Provider::ALL {
        let server = LoopbackServer::start(provider.conversation(true));
        let mut workspace = project(
            Setup::new(provider, &server).build(),
            ModelSettings::default(),
        );
        let stream = patiently(workspace.session.run_stream(PROMPT))
            .await
            .unwrap();
        // The key did go out, in its header.
        assert!(server.requests()[0]
            .headers
            .iter()
            .any(|(_, value)| value.contains(KEY)));
        let events = serde_json::to_string(stream.events()).unwrap();
        let messages = serde_json::to_string(&stream.result().messages).unwrap();
        let context = format!("{:?}", workspace.session.context());
        for (what, text) in [
            ("events", &events),
            ("messages", &messages),
            ("context", &context),
        ] {
            assert!(
                !text.contains(KEY),
                "{provider:?}: the key is in the {what}"
            );
        }
    }
}

/// Answers that quote the key back, each a different way to fail.
fn echoes(provider: Provider) -> Vec<(&'static str, Reply, bool)> {
    let said = format!("Incorrect API key provided: {KEY}.");
    let error_body = match provider {
        Provider::OpenAi => json!({"error": {"message": said, "type": "invalid_request_error",
                                              "param": null, "code": "invalid_api_key"}}),
        Provider::Anthropic => json!({"type": "error", "error": {"type": "authentication_error",
                                                                  "message": said}}),
    };
    let error_event = match provider {
        Provider::OpenAi => format!("data: {}\n\n", json!({"error": {"message": said}})),
        Provider::Anthropic => format!(
            "event: error\ndata: {}\n\n",
            json!({"type": "error", "error": {"type": "authentication_error", "message": said}})
        ),
    };
    // A field of the wrong type holding the key: a parser's message
    // quotes the value it could not take.
    let wrong_type = match provider {
        Provider::OpenAi => json!({"choices": KEY}),
        Provider::Anthropic => json!({"type": "message", "content": KEY}),
    };
    let mut echoes = vec![
        ("401 JSON", Reply::json(401, error_body), false),
        (
            "401 text",
            Reply::text(401, format!("denied for key {KEY}")),
            false,
        ),
        ("error event", Reply::sse(vec![error_event]), true),
        ("wrong type", Reply::json(200, wrong_type), false),
    ];
    // Chat Completions chunks are parsed into types, so a chunk can
    // quote too (Messages events are read as plain JSON).
    if provider == Provider::OpenAi {
        let chunk = format!("data: {}\n\n", json!({"choices": KEY}));
        echoes.push(("wrong chunk", Reply::sse(vec![chunk]), true));
    }
    echoes
}

#[tokio::test]
async fn errors_never_show_the_key_even_when_the_server_echoes_it() {
    // Regression: a key echoed in a stream's error event, or quoted by
    // the parser from a field of the wrong type, reached the error.
    let mut leaks = Vec::new();
    for provider in Provider::ALL {
        for (case, reply, streamed) in echoes(provider) {
            let server = LoopbackServer::start(vec![reply]);
            let model = Setup::new(provider, &server).streaming(streamed).build();
            let mut workspace = project(model, ModelSettings::default());
            let mut records: Vec<AgentStreamRecord> = Vec::new();
            let mut sink = |record: &AgentStreamRecord| records.push(record.clone());
            let result = if streamed {
                patiently(workspace.session.run_with_events(
                    PROMPT,
                    AgentRunOptions::new(),
                    &mut sink,
                ))
                .await
            } else {
                patiently(workspace.session.run(PROMPT)).await
            };
            let error = result.expect_err(case);
            let shown = format!("{error} {error:?}");
            if shown.contains(KEY) {
                leaks.push(format!("{provider:?}, {case}: {shown}"));
            } else {
                // What the server said is still shown, the key masked.
                assert!(shown.contains("***"), "{provider:?}, {case}: {shown}");
            }
            let events = serde_json::to_string(&records).unwrap();
            assert!(!events.contains(KEY), "{provider:?}, {case}: {events}");
            assert!(
                !format!("{:?}", workspace.session.messages()).contains(KEY),
                "{provider:?}, {case}"
            );
        }
    }
    assert!(
        leaks.is_empty(),
        "the key is in errors:\n{}",
        leaks.join("\n")
    );
}

#[tokio::test]
async fn a_redirect_is_not_followed_so_the_key_stays_with_the_base_url() {
    // Regression: redirects were followed, taking `x-api-key` (which,
    // unlike `authorization`, a client does not drop) to another host,
    // past the host policy.
    for provider in Provider::ALL {
        let elsewhere = LoopbackServer::start(vec![provider.json("final")]);
        let target = format!(
            "http://localhost:{}{}",
            elsewhere.address().port(),
            provider.path()
        );
        let server = LoopbackServer::start(vec![
            Reply::text(307, "moved").with_header("location", &target)
        ]);
        let mut workspace = project(
            Setup::new(provider, &server).build(),
            ModelSettings::default(),
        );
        let result = patiently(workspace.session.run(PROMPT)).await;
        let leaked: Vec<_> = elsewhere
            .requests()
            .iter()
            .filter(|request| request.headers.iter().any(|(_, value)| value.contains(KEY)))
            .map(|request| request.path.clone())
            .collect();
        assert!(
            leaked.is_empty(),
            "{provider:?}: the key went to {leaked:?}"
        );
        assert!(elsewhere.requests().is_empty(), "{provider:?}");
        let message = model_failure(result);
        assert!(message.contains("HTTP 307"), "{message}");
        assert!(message.contains(&target), "{message}");
        assert!(message.contains("model.base_url"), "{message}");
    }
}
