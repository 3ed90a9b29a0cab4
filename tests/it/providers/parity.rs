//! A streamed answer and the same answer whole give the same run: the
//! same history (every part, call, usage and finish reason) and output,
//! however the stream is cut on the wire: per event, one byte per write,
//! or at the places a careless reader breaks (inside `data:`, mid-line,
//! between an event's two newlines, inside a UTF-8 character).

use starweaver::agent::AgentRunResult;
use starweaver::model::ModelSettings;

use super::{patiently, project, Provider, Setup, FINAL_TEXT, PROMPT};
use crate::common::loopback::{awkward_cuts, fixture, utf8_cut, LoopbackServer, Reply, Split};

/// The scripted run over `script`; streamed when the script is.
async fn run(provider: Provider, script: Vec<Reply>, streamed: bool) -> AgentRunResult {
    let server = LoopbackServer::start(script);
    let model = Setup::new(provider, &server).streaming(streamed).build();
    let mut workspace = project(model, ModelSettings::default());
    let result = if streamed {
        patiently(workspace.session.run_stream(PROMPT))
            .await
            .unwrap_or_else(|error| panic!("{provider:?}: {error}"))
            .into_parts()
            .1
    } else {
        patiently(workspace.session.run(PROMPT))
            .await
            .unwrap_or_else(|error| panic!("{provider:?}: {error}"))
    };
    assert_eq!(server.requests().len(), 2, "{provider:?}");
    result
}

/// Where to cut a stream, given its text.
type Cutter = fn(&str) -> Split;

/// The streamed conversation, each stream cut by `split(fixture text)`.
fn cut(provider: Provider, split: Cutter) -> Vec<Reply> {
    ["tool_round_1", "final"]
        .into_iter()
        .map(|name| {
            let text = fixture(provider.dir(), &format!("{name}.sse"));
            provider.sse(name).with_split(split(&text))
        })
        .collect()
}

#[tokio::test]
async fn streamed_and_whole_answers_give_the_same_history() {
    for provider in Provider::ALL {
        let whole = run(provider, provider.conversation(false), false).await;
        assert_eq!(whole.output, FINAL_TEXT);
        // The final text holds a multi-byte character the cuts split.
        assert!(utf8_cut(FINAL_TEXT).is_some());
        let cuts: [(&str, Cutter); 3] = [
            ("per event", |_| Split::Events),
            ("one byte per write", |_| Split::Every(1)),
            ("awkward cuts", |text| Split::At(awkward_cuts(text))),
        ];
        for (how, split) in cuts {
            let streamed = run(provider, cut(provider, split), true).await;
            assert_eq!(streamed.output, whole.output, "{provider:?}, {how}");
            assert_eq!(
                streamed.messages, whole.messages,
                "{provider:?}, {how}: the streamed history differs"
            );
            assert_eq!(streamed.usage, whole.usage, "{provider:?}, {how}");
        }
    }
}
