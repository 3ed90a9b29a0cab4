//! Approvals: a tool that needs one asks the client through elicitation; a client that cannot
//! be asked gets an error saying so, unless the server runs with `--yes`.

use rmcp::model::ElicitationAction;
use serde_json::json;

use super::{project, serve, text, within, Client, BOTH};

fn write(path: &str) -> serde_json::Value {
    json!({"path": path, "content": "written over MCP\n"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_elicitation_or_yes_a_gated_call_is_refused_and_does_not_run() {
    for transport in BOTH {
        within(async {
            let dir = project();
            let served = serve(transport, dir.path(), "served.yaml", &[], Client::default()).await;
            let result = served.call("write_file", write("out.txt")).await.unwrap();
            assert_eq!(result.is_error, Some(true), "{transport:?}: {result:?}");
            let message = text(&result);
            assert!(message.contains("requires approval"), "{message}");
            assert!(message.contains("--yes"), "{message}");
            assert!(
                !dir.path().join("out.txt").exists(),
                "{transport:?}: it ran"
            );
            served.close().await;
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_yes_a_gated_call_runs() {
    for transport in BOTH {
        within(async {
            let dir = project();
            let served = serve(
                transport,
                dir.path(),
                "served.yaml",
                &["--yes"],
                Client::default(),
            )
            .await;
            let result = served.call("write_file", write("out.txt")).await.unwrap();
            assert_eq!(result.is_error, Some(false), "{transport:?}: {result:?}");
            let written = std::fs::read_to_string(dir.path().join("out.txt")).unwrap();
            assert_eq!(written, "written over MCP\n");
            assert!(served.stderr().contains("--yes"), "{}", served.stderr());
            served.close().await;
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_elicitation_is_asked_and_its_answer_decides() {
    for transport in BOTH {
        within(async {
            let dir = project();
            let yes = Client::answering(ElicitationAction::Accept);
            let asked = yes.asked.clone();
            let served = serve(transport, dir.path(), "served.yaml", &[], yes).await;
            let result = served.call("write_file", write("yes.txt")).await.unwrap();
            assert_eq!(result.is_error, Some(false), "{transport:?}: {result:?}");
            assert!(dir.path().join("yes.txt").exists());
            let questions = asked.lock().unwrap().clone();
            assert_eq!(questions.len(), 1, "{questions:?}");
            assert!(questions[0].contains("write_file") && questions[0].contains("yes.txt"));
            // Tools that need no approval never ask.
            served
                .call("read_file", json!({"path": "yes.txt"}))
                .await
                .unwrap();
            assert_eq!(asked.lock().unwrap().len(), 1);
            served.close().await;

            let no = Client::answering(ElicitationAction::Decline);
            let served = serve(transport, dir.path(), "served.yaml", &[], no).await;
            let result = served.call("write_file", write("no.txt")).await.unwrap();
            assert_eq!(result.is_error, Some(true), "{transport:?}: {result:?}");
            assert!(text(&result).contains("declined"), "{result:?}");
            assert!(!dir.path().join("no.txt").exists());
            served.close().await;
        })
        .await;
    }
}
