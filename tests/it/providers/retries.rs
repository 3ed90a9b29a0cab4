//! Error statuses: rate limits and overloads are retried within the
//! policy and then fail naming the status and the provider's words; a
//! `retry-after` past the retry budget fails at once; a refused request
//! (400) is never sent again.

use std::time::Duration;

use serde_json::json;
use starweaver::model::http::RetryPolicy;
use starweaver::model::ModelSettings;

use super::{
    model_failure, patiently, project, quick_retries, Provider, Setup, FINAL_TEXT, PROMPT,
};
use crate::common::loopback::{fixture_json, LoopbackServer, Reply};

/// The provider's own message in error fixture `name`.
fn provider_message(provider: Provider, name: &str) -> String {
    fixture_json(provider.dir(), &format!("{name}.json"))["error"]["message"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Error fixture `name` answered with `status`.
fn refusal(provider: Provider, status: u16, name: &str) -> Reply {
    Reply::json_file(status, provider.dir(), &format!("{name}.json"))
}

#[tokio::test]
async fn a_rate_limit_with_retry_after_zero_is_retried_and_the_run_succeeds() {
    for provider in Provider::ALL {
        for streamed in [false, true] {
            let final_answer = if streamed {
                provider.sse("final")
            } else {
                provider.json("final")
            };
            let server = LoopbackServer::start(vec![
                refusal(provider, 429, "rate_limited").with_header("retry-after", "0"),
                final_answer,
            ]);
            let model = Setup::new(provider, &server).streaming(streamed).build();
            let mut workspace = project(model, ModelSettings::default());
            let output = if streamed {
                patiently(workspace.session.run_stream(PROMPT))
                    .await
                    .map(|stream| stream.result().output.clone())
            } else {
                patiently(workspace.session.run(PROMPT))
                    .await
                    .map(|result| result.output)
            };
            assert_eq!(output.unwrap(), FINAL_TEXT, "{provider:?}");
            let requests = server.requests();
            assert_eq!(requests.len(), 2, "{provider:?}, streamed: {streamed}");
            // The retry sends the very same request.
            assert_eq!(requests[0].body, requests[1].body);
        }
    }
}

#[tokio::test]
async fn try_later_statuses_give_up_after_max_retries() {
    let cases = [
        (Provider::OpenAi, 429, "rate_limited"),
        (Provider::OpenAi, 503, "overloaded"),
        (Provider::Anthropic, 429, "rate_limited"),
        (Provider::Anthropic, 503, "overloaded"),
        (Provider::Anthropic, 529, "overloaded"),
    ];
    for (provider, status, name) in cases {
        let retries = 2;
        let server = LoopbackServer::start(vec![refusal(provider, status, name); 4]);
        let model = Setup::new(provider, &server)
            .retry(quick_retries(retries))
            .build();
        let mut workspace = project(model, ModelSettings::default());
        let message = model_failure(patiently(workspace.session.run(PROMPT)).await);
        assert_eq!(
            server.requests().len(),
            retries as usize + 1,
            "{provider:?} {status}"
        );
        assert_eq!(server.unserved(), 1);
        for part in [
            format!("HTTP {status}"),
            provider_message(provider, name),
            "gave up after 3 attempts".to_string(),
            "model.max_retries".to_string(),
        ] {
            assert!(message.contains(&part), "{provider:?} {status}: {message}");
        }
        assert!(message.contains(provider.model()), "{message}");
    }
}

#[tokio::test]
async fn a_retry_after_beyond_the_retry_budget_fails_at_once() {
    for provider in Provider::ALL {
        let server = LoopbackServer::start(vec![
            refusal(provider, 429, "rate_limited").with_header("retry-after", "3600"),
            provider.json("final"),
        ]);
        let model = Setup::new(provider, &server)
            .retry(RetryPolicy {
                max_elapsed: Duration::from_secs(30),
                ..quick_retries(3)
            })
            .build();
        let mut workspace = project(model, ModelSettings::default());
        let message = model_failure(patiently(workspace.session.run(PROMPT)).await);
        assert_eq!(server.requests().len(), 1, "{provider:?}");
        for part in [
            "HTTP 429",
            "not retried",
            "3600",
            "retry time budget of 30 s",
        ] {
            assert!(message.contains(part), "{provider:?}: {message}");
        }
        assert!(message.contains(&provider_message(provider, "rate_limited")));
    }
}

#[tokio::test]
async fn a_bad_request_shows_the_providers_message_and_is_not_retried() {
    for provider in Provider::ALL {
        for streamed in [false, true] {
            let server = LoopbackServer::start(vec![
                refusal(provider, 400, "bad_request"),
                provider.json("final"),
            ]);
            let model = Setup::new(provider, &server)
                .streaming(streamed)
                .retry(quick_retries(3))
                .build();
            let mut workspace = project(model, ModelSettings::default());
            let message = if streamed {
                model_failure(patiently(workspace.session.run_stream(PROMPT)).await)
            } else {
                model_failure(patiently(workspace.session.run(PROMPT)).await)
            };
            assert_eq!(server.requests().len(), 1, "{provider:?}");
            assert!(message.contains("HTTP 400"), "{message}");
            assert!(
                message.contains(&provider_message(provider, "bad_request")),
                "{provider:?}: {message}"
            );
        }
    }
}

#[tokio::test]
async fn an_error_page_that_is_not_json_is_shown_as_text() {
    // A proxy in front of the provider answers with its own page.
    for provider in Provider::ALL {
        let server = LoopbackServer::start(vec![Reply::text(
            502,
            "<html><body>502 Bad Gateway</body></html>",
        )
        .with_header("content-type", "text/html")]);
        let model = Setup::new(provider, &server)
            .retry(RetryPolicy::none())
            .build();
        let mut workspace = project(model, ModelSettings::default());
        let message = model_failure(patiently(workspace.session.run(PROMPT)).await);
        assert!(message.contains("HTTP 502"), "{message}");
        assert!(message.contains("502 Bad Gateway"), "{message}");
        assert!(message.contains("gave up after 1 attempt;"), "{message}");
    }
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_names_the_base_url() {
    // A port nothing listens on: the connection is refused, which cannot
    // have been billed, so it is tried again, then reported.
    let port = std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = LoopbackServer::start(Vec::new());
    for provider in Provider::ALL {
        let model = Setup::new(provider, &server)
            .base_url(&format!("http://127.0.0.1:{port}/v1"))
            .retry(quick_retries(2))
            .build();
        let mut workspace = project(model, ModelSettings::default());
        let message = model_failure(patiently(workspace.session.run(PROMPT)).await);
        assert!(
            message.contains("cannot connect"),
            "{provider:?}: {message}"
        );
        assert!(
            message.contains("model.base_url"),
            "{provider:?}: {message}"
        );
    }
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_refused_key_says_where_the_key_comes_from() {
    for provider in Provider::ALL {
        for status in [401, 403] {
            let body = json!({"error": {"message": "invalid x-api-key"}});
            let server = LoopbackServer::start(vec![Reply::json(status, body)]);
            let mut workspace = project(
                Setup::new(provider, &server).build(),
                ModelSettings::default(),
            );
            let message = model_failure(patiently(workspace.session.run(PROMPT)).await);
            assert_eq!(server.requests().len(), 1, "{provider:?}: not retried");
            assert!(message.contains(&format!("HTTP {status}")), "{message}");
            assert!(message.contains("invalid x-api-key"), "{message}");
            assert!(
                message.contains("model.api_key_env"),
                "{provider:?}: {message}"
            );
        }
    }
}
