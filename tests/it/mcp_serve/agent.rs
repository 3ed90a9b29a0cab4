//! `--agent`: `run_<name>` runs the agent itself on its model and answers with its final
//! text, reporting its steps as progress.

use serde_json::json;

use super::{project, serve, text, within, Client, BOTH};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_agent_answers_on_the_test_model_with_progress() {
    for transport in BOTH {
        within(async {
            let dir = project();
            let client = Client::default();
            let progress = client.progress.clone();
            let served = serve(transport, dir.path(), "helper.yaml", &["--agent"], client).await;
            let tools = served.client.peer().list_all_tools().await.unwrap();
            let agent = tools
                .iter()
                .find(|tool| tool.name == "run_helper")
                .unwrap_or_else(|| panic!("{transport:?}: no run_helper in {tools:?}"));
            assert_eq!(agent.description.as_deref(), Some("Answers briefly."));
            assert_eq!(agent.input_schema["required"], json!(["prompt"]));
            let result = served
                .call("run_helper", json!({"prompt": "Say hello."}))
                .await
                .unwrap();
            assert_eq!(result.is_error, Some(false), "{transport:?}: {result:?}");
            assert!(!text(&result).is_empty(), "{result:?}");
            // Progress notifications precede the result on the wire, but the client's
            // handler may see them after the call returns: wait for them, bounded.
            let mut steps = Vec::new();
            for _ in 0..200 {
                steps = progress.lock().unwrap().clone();
                if steps.iter().any(|step| step.contains("asking the model")) {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            }
            assert!(
                steps.iter().any(|step| step.contains("asking the model")),
                "{transport:?}: {steps:?}"
            );
            let missing = served.call("run_helper", json!({})).await.unwrap();
            assert_eq!(missing.is_error, Some(true), "{missing:?}");
            assert!(text(&missing).contains("prompt"));
            served.close().await;
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_with_an_output_schema_answers_with_structured_content() {
    within(async {
        let dir = project();
        std::fs::write(
            dir.path().join("shaped.yaml"),
            "version: 1\nname: shaped\ndescription: Answers in shape.\nmodel: {id: test}\noutput:\n  schema:\n    type: object\n    properties:\n      severity: { enum: [low, high] }\n    required: [severity]\n",
        )
        .unwrap();
        let served = serve(
            super::Transport::Stdio,
            dir.path(),
            "shaped.yaml",
            &["--agent"],
            Client::default(),
        )
        .await;
        let result = served
            .call("run_shaped", json!({"prompt": "Triage."}))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(false), "{result:?}");
        assert_eq!(
            result.structured_content,
            Some(json!({"severity": "low"})),
            "{result:?}"
        );
        // The same object as text, for clients that read only text.
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text(&result)).unwrap(),
            json!({"severity": "low"})
        );
        served.close().await;
    })
    .await;
}
