//! Requests that never get an answer: the per-attempt timeout ends them
//! with a message naming the setting (and they are not sent again), and a
//! cancelled run lets go of the request in flight, closing its
//! connection.

use std::time::Duration;

use serde_json::json;
use starweaver::agent::AgentStreamRecord;
use starweaver::model::http::RetryPolicy;
use starweaver::model::ModelSettings;
use starweaver::{AgentError, AgentRunOptions, AgentStreamEvent};
use tokio_util::sync::CancellationToken;

use super::{model_failure, patiently, project, quick_retries, Provider, Setup, PROMPT};
use crate::common::loopback::{fixture, LoopbackServer, Reply, Split};

/// Waits (at most 30 s) until the server saw `count` clients hang up on
/// a `Hang` reply, and returns how many it saw.
async fn hangups(server: &LoopbackServer, count: usize) -> usize {
    for _ in 0..3000 {
        if server.hangups() >= count {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    server.hangups()
}

// The timeouts are a few seconds, not less: the server must have read the
// request before the client gives up, however busy the machine.

#[tokio::test]
async fn a_request_left_unanswered_times_out_and_is_not_retried() {
    for provider in Provider::ALL {
        for streamed in [false, true] {
            let server = LoopbackServer::start(vec![Reply::Hang, provider.json("final")]);
            let model = Setup::new(provider, &server)
                .streaming(streamed)
                .timeout(Duration::from_secs(2))
                .build();
            let mut workspace = project(model, ModelSettings::default());
            let message = if streamed {
                model_failure(patiently(workspace.session.run_stream(PROMPT)).await)
            } else {
                model_failure(patiently(workspace.session.run(PROMPT)).await)
            };
            assert!(
                message.contains("no complete answer within 2 s"),
                "{provider:?}: {message}"
            );
            assert!(message.contains("model.timeout_ms"), "{message}");
            assert_eq!(server.requests().len(), 1, "{provider:?}: {message}");
            assert_eq!(hangups(&server, 1).await, 1, "{provider:?}");
        }
    }
}

#[tokio::test]
async fn a_stream_that_stalls_mid_answer_times_out() {
    // The timeout covers the whole answer, a stream's body included.
    for provider in Provider::ALL {
        let server = LoopbackServer::start(vec![provider
            .sse("final")
            .with_pause(Duration::from_secs(20))]);
        let model = Setup::new(provider, &server)
            .timeout(Duration::from_secs(2))
            .build();
        let mut workspace = project(model, ModelSettings::default());
        let message = model_failure(patiently(workspace.session.run_stream(PROMPT)).await);
        assert!(
            message.contains("no complete answer within 2 s"),
            "{provider:?}: {message}"
        );
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn cancelling_a_run_aborts_the_request_in_flight() {
    for provider in Provider::ALL {
        for streamed in [false, true] {
            let server = LoopbackServer::start(vec![Reply::Hang]);
            let model = Setup::new(provider, &server).streaming(streamed).build();
            let mut workspace = project(model, ModelSettings::default());
            let token = CancellationToken::new();
            let options = AgentRunOptions::new().cancellation(token.clone());
            let mut records: Vec<AgentStreamRecord> = Vec::new();
            let mut sink = |record: &AgentStreamRecord| records.push(record.clone());
            let cancel = async {
                server.requests_arrived(1).await;
                token.cancel();
            };
            let (result, ()) = if streamed {
                patiently(async {
                    tokio::join!(
                        workspace
                            .session
                            .run_with_events(PROMPT, options, &mut sink),
                        cancel
                    )
                })
                .await
            } else {
                patiently(async {
                    tokio::join!(workspace.session.run_with_options(PROMPT, options), cancel)
                })
                .await
            };
            assert!(
                matches!(result, Err(AgentError::Cancelled)),
                "{provider:?}: {result:?}"
            );
            assert_eq!(server.requests().len(), 1);
            // The dropped request closed its connection.
            assert_eq!(hangups(&server, 1).await, 1, "{provider:?}");
        }
    }
}

#[tokio::test]
async fn cancelling_a_run_ends_the_wait_before_a_retry() {
    // The server asks for a long wait; the cancelled run does not sit it
    // out (if it did, the test's 30 s patience would run out first).
    for provider in Provider::ALL {
        let server = LoopbackServer::start(vec![
            Reply::json(429, json!({"error": {"message": "slow down"}}))
                .with_header("retry-after", "100"),
            provider.json("final"),
        ]);
        let model = Setup::new(provider, &server)
            .retry(RetryPolicy {
                max_elapsed: Duration::from_secs(600),
                ..quick_retries(2)
            })
            .build();
        let mut workspace = project(model, ModelSettings::default());
        let token = CancellationToken::new();
        let options = AgentRunOptions::new().cancellation(token.clone());
        let cancel = async {
            server.requests_arrived(1).await;
            token.cancel();
        };
        let (result, ()) = patiently(async {
            tokio::join!(workspace.session.run_with_options(PROMPT, options), cancel)
        })
        .await;
        assert!(
            matches!(result, Err(AgentError::Cancelled)),
            "{provider:?}: {result:?}"
        );
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn cancelling_a_run_mid_stream_lets_go_of_the_stream() {
    // The stream up to its first text arrives, then the server pauses far
    // longer than the test's patience: cancelling at the first text must
    // end the run at once.
    for provider in Provider::ALL {
        let text = fixture(provider.dir(), "final.sse");
        let first_text = text.find("The folder").unwrap();
        let cut = first_text + text[first_text..].find("\n\n").unwrap() + 2;
        let server = LoopbackServer::start(vec![provider
            .sse("final")
            .with_split(Split::At(vec![cut]))
            .with_pause(Duration::from_secs(60))]);
        let model = Setup::new(provider, &server).build();
        let mut workspace = project(model, ModelSettings::default());
        let token = CancellationToken::new();
        let options = AgentRunOptions::new().cancellation(token.clone());
        let mut sink = |record: &AgentStreamRecord| {
            if matches!(record.event, AgentStreamEvent::TextDelta { .. }) {
                token.cancel();
            }
        };
        let result = patiently(
            workspace
                .session
                .run_with_events(PROMPT, options, &mut sink),
        )
        .await;
        assert!(
            matches!(result, Err(AgentError::Cancelled)),
            "{provider:?}: {result:?}"
        );
        assert_eq!(server.requests().len(), 1);
    }
}
