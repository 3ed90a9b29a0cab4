//! Answers that arrive broken: a body that is not JSON, a stream cut off,
//! a stream that ends without saying why the model stopped, an error
//! reported inside a stream, a connection dropped mid-stream. Each is a
//! model error saying what broke, never a partial answer, and none is
//! sent again (the provider may have billed it).

use serde_json::json;
use starweaver::model::ModelSettings;

use super::{model_failure, patiently, project, Provider, Setup, PROMPT};
use crate::common::loopback::{fixture, sse_events, LoopbackServer, Reply};

/// Runs the prompt on a model with two retries against `script`,
/// streamed or not, and returns the error's message; asserts the request
/// was sent once.
async fn failure(provider: Provider, script: Vec<Reply>, streamed: bool) -> String {
    let server = LoopbackServer::start(script);
    let model = Setup::new(provider, &server).streaming(streamed).build();
    let mut workspace = project(model, ModelSettings::default());
    let message = if streamed {
        model_failure(patiently(workspace.session.run_stream(PROMPT)).await)
    } else {
        model_failure(patiently(workspace.session.run(PROMPT)).await)
    };
    assert_eq!(server.requests().len(), 1, "{provider:?}: {message}");
    assert!(message.contains(provider.model()), "{message}");
    message
}

/// The message says the answer is incomplete, and that sending it again
/// is up to the user (it was not retried: it may have been billed).
fn assert_incomplete(provider: Provider, message: &str) {
    assert!(message.contains("incomplete"), "{provider:?}: {message}");
    assert!(
        message.contains("retry the request"),
        "{provider:?}: {message}"
    );
}

/// The events of stream fixture `name`.
fn events(provider: Provider, name: &str) -> Vec<String> {
    sse_events(&fixture(provider.dir(), &format!("{name}.sse")))
}

#[tokio::test]
async fn a_body_that_is_not_json_is_an_error_naming_the_protocol() {
    for provider in Provider::ALL {
        let body = fixture(provider.dir(), "malformed.json");
        let reply = Reply::text(200, body).with_header("content-type", "application/json");
        let message = failure(provider, vec![reply], false).await;
        let (expected, hint) = match provider {
            Provider::OpenAi => (
                "the answer is not a chat completion",
                "points at a Chat Completions API",
            ),
            Provider::Anthropic => ("the answer is not a message", "points at a Messages API"),
        };
        // What broke, and what to check: a base URL that reaches some
        // other server answers with something else.
        assert!(message.contains(expected), "{provider:?}: {message}");
        assert!(message.contains(hint), "{provider:?}: {message}");
        assert!(
            message.contains("model.base_url"),
            "{provider:?}: {message}"
        );
    }
}

#[tokio::test]
async fn a_stream_cut_off_is_an_incomplete_answer() {
    for provider in Provider::ALL {
        // The fixture stops part-way through the text, the body ends
        // cleanly.
        let message = failure(provider, vec![provider.sse("truncated")], true).await;
        assert_incomplete(provider, &message);

        // The body ends inside an event's data line.
        let text = fixture(provider.dir(), "final.sse");
        let cut = text.find("nothing else").unwrap();
        let reply = Reply::sse(vec![text[..cut].to_string()]);
        let message = failure(provider, vec![reply], true).await;
        assert_incomplete(provider, &message);
    }
}

#[tokio::test]
async fn a_stream_that_ends_without_a_finish_reason_is_incomplete() {
    for provider in Provider::ALL {
        // Everything but the event that says why the model stopped; the
        // protocol's end marker still comes.
        let kept: Vec<String> = events(provider, "final")
            .into_iter()
            .filter(|event| match provider {
                Provider::OpenAi => !event.contains("\"finish_reason\":\"stop\""),
                Provider::Anthropic => !event.starts_with("event: message_delta"),
            })
            .collect();
        assert_eq!(kept.len(), events(provider, "final").len() - 1);
        let message = failure(provider, vec![Reply::sse(kept)], true).await;
        assert_incomplete(provider, &message);
    }
}

#[tokio::test]
async fn an_error_event_mid_stream_fails_with_the_providers_message() {
    for provider in Provider::ALL {
        let message = failure(provider, vec![provider.sse("error_event")], true).await;
        let said = match provider {
            Provider::OpenAi => "The server had an error while processing the request; retry it.",
            Provider::Anthropic => "Overloaded",
        };
        assert!(message.contains("mid-stream"), "{provider:?}: {message}");
        assert!(message.contains(said), "{provider:?}: {message}");
    }
}

#[tokio::test]
async fn a_connection_dropped_mid_stream_is_not_retried() {
    for provider in Provider::ALL {
        let first_events: String = events(provider, "tool_round_1")[..3].concat();
        let reply = Reply::DropAfter {
            bytes: first_events,
        };
        let message = failure(provider, vec![reply, provider.sse("final")], true).await;
        assert!(
            message.contains("the connection failed"),
            "{provider:?}: {message}"
        );
        assert!(message.contains("not retried"), "{provider:?}: {message}");
    }
}

#[tokio::test]
async fn an_error_body_sent_with_status_200_fails_with_the_providers_message() {
    // Some gateways answer 200 and put the error in the body.
    for provider in Provider::ALL {
        let body = match provider {
            Provider::OpenAi => {
                json!({"error": {"message": "upstream model unavailable", "code": 502}})
            }
            Provider::Anthropic => json!({"type": "error",
                "error": {"type": "api_error", "message": "upstream model unavailable"}}),
        };
        let message = failure(provider, vec![Reply::json(200, body)], false).await;
        assert!(
            message.contains("upstream model unavailable"),
            "{provider:?}: {message}"
        );
    }
}

#[tokio::test]
async fn a_connection_closed_before_any_answer_is_not_retried() {
    // The request went out, so the provider may have run it.
    for provider in Provider::ALL {
        for streamed in [false, true] {
            let script = vec![Reply::Raw { bytes: Vec::new() }, provider.sse("final")];
            let message = failure(provider, script, streamed).await;
            assert!(
                message.contains("the connection failed"),
                "{provider:?}: {message}"
            );
            assert!(message.contains("retry the request"), "{message}");
        }
    }
}

#[tokio::test]
async fn a_body_shorter_than_it_said_is_an_error() {
    for provider in Provider::ALL {
        let body = fixture(provider.dir(), "final.json");
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let bytes = [head.as_bytes(), &body.as_bytes()[..body.len() / 2]].concat();
        let message = failure(provider, vec![Reply::Raw { bytes }], false).await;
        assert!(
            message.contains("the connection failed"),
            "{provider:?}: {message}"
        );
    }
}
