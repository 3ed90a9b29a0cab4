//! Multi-step runs over each provider, streamed and whole: the tools
//! really run on the folder, the final text arrives, and the usage of
//! both requests is summed.

use starweaver::agent::AgentRunResult;
use starweaver::model::{ModelSettings, ToolReturnKind, Usage};
use starweaver::AgentStreamEvent;

use super::{patiently, project, returns, Provider, Setup, FINAL_TEXT, NOTES, PROMPT};
use crate::common::loopback::LoopbackServer;

/// The usage the two fixture answers add up to: Anthropic counts cache
/// reads as input.
fn summed_usage(provider: Provider) -> Usage {
    let (input_tokens, output_tokens) = match provider {
        Provider::OpenAi => (212 + 301, 41 + 12),
        Provider::Anthropic => (348 + 512 + 256, 96 + 14),
    };
    Usage {
        requests: 2,
        input_tokens,
        output_tokens,
        tool_calls: 2,
    }
}

/// The result of a completed scripted run: the answer, both tools run on
/// the folder, usage summed.
fn assert_completed(provider: Provider, result: &AgentRunResult) {
    assert_eq!(result.output, FINAL_TEXT, "{provider:?}");
    let returns = returns(&result.messages);
    let names: Vec<&str> = returns.iter().map(|part| part.tool_name.as_str()).collect();
    assert_eq!(names, ["ls", "read_file"], "{provider:?}");
    for part in &returns {
        assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
    }
    assert_eq!(returns[0].content["entries"][0]["name"], "notes.txt");
    assert_eq!(returns[1].content["content"], NOTES);
    assert_eq!(result.usage, summed_usage(provider), "{provider:?}");
}

#[tokio::test]
async fn streamed_runs_call_the_tools_and_finish_with_the_answer() {
    for provider in Provider::ALL {
        let server = LoopbackServer::start(provider.conversation(true));
        let model = Setup::new(provider, &server).streaming(true).build();
        let mut workspace = project(model, ModelSettings::default());
        let stream = patiently(workspace.session.run_stream(PROMPT))
            .await
            .unwrap();
        assert_completed(provider, stream.result());
        // The answer's text arrived as deltas, piece by piece.
        let deltas: Vec<&str> = stream
            .events()
            .iter()
            .filter_map(|record| match &record.event {
                AgentStreamEvent::TextDelta { delta } => Some(delta.as_str()),
                _ => None,
            })
            .collect();
        assert!(deltas.len() >= 5, "{provider:?}: {deltas:?}");
        assert!(deltas.concat().ends_with(FINAL_TEXT), "{deltas:?}");
        let calls = stream
            .events()
            .iter()
            .filter(|record| matches!(record.event, AgentStreamEvent::ToolCall { .. }))
            .count();
        assert_eq!(calls, 2, "{provider:?}");
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        assert!(requests
            .iter()
            .all(|request| request.json_body()["stream"] == true));
    }
}

#[tokio::test]
async fn whole_runs_call_the_tools_and_finish_with_the_answer() {
    for provider in Provider::ALL {
        // A quiet run asks for whole answers.
        let server = LoopbackServer::start(provider.conversation(false));
        let mut first = project(
            Setup::new(provider, &server).build(),
            ModelSettings::default(),
        );
        let result = patiently(first.session.run(PROMPT)).await.unwrap();
        assert_completed(provider, &result);
        assert!(server
            .requests()
            .iter()
            .all(|request| request.json_body().get("stream").is_none()));

        // A streamed run of a model that does not stream asks for whole
        // answers too, and still reports the run's events.
        let server = LoopbackServer::start(provider.conversation(false));
        let model = Setup::new(provider, &server).streaming(false).build();
        let mut second = project(model, ModelSettings::default());
        let stream = patiently(second.session.run_stream(PROMPT)).await.unwrap();
        assert_completed(provider, stream.result());
        assert_eq!(stream.result().messages, result.messages, "{provider:?}");
        assert!(server
            .requests()
            .iter()
            .all(|request| request.json_body().get("stream").is_none()));
        assert!(stream.events().iter().any(|record| matches!(
            &record.event,
            AgentStreamEvent::RunCompleted { output, .. } if output == FINAL_TEXT
        )));
    }
}

#[tokio::test]
async fn a_session_carries_the_history_into_its_next_run() {
    for provider in Provider::ALL {
        let mut script = provider.conversation(true);
        script.push(provider.sse("final"));
        let server = LoopbackServer::start(script);
        let mut workspace = project(
            Setup::new(provider, &server).build(),
            ModelSettings::default(),
        );
        patiently(workspace.session.run_stream(PROMPT))
            .await
            .unwrap();
        let second = patiently(workspace.session.run_stream("Thanks. Anything else?"))
            .await
            .unwrap();
        assert_eq!(second.result().output, FINAL_TEXT);
        let requests = server.requests();
        assert_eq!(requests.len(), 3);
        // The third request holds the whole first run and the new prompt.
        let body = requests[2].json_body();
        let messages = body["messages"].as_array().unwrap();
        let last = messages.last().unwrap();
        let prompt = match provider {
            Provider::OpenAi => &last["content"],
            Provider::Anthropic => &last["content"][0]["text"],
        };
        assert_eq!(prompt, "Thanks. Anything else?", "{provider:?}: {body}");
        let expected = match provider {
            // system, user, assistant, tool, tool, assistant, user
            Provider::OpenAi => 7,
            // user, assistant, user (results), assistant, user
            Provider::Anthropic => 5,
        };
        assert_eq!(messages.len(), expected, "{provider:?}: {body}");
    }
}
