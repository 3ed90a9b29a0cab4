//! An MCP server re-served: `mcp serve` on a manifest whose toolset is another MCP server
//! (`hostile_server.py`, on the system's `python3`) passes that server's progress on to the
//! client that asked for it, and tells its clients when that server's tool list changed.

use serde_json::json;

use super::{serve, text, within, Client, BOTH, DEADLINE};
use crate::common::hostile::{hostile_server, python3};

/// A folder whose `reserved.yaml` serves the hostile server's tools, or `None` after a
/// one-line notice when `python3` is missing.
fn project() -> Option<tempfile::TempDir> {
    if !python3("the re-served MCP server") {
        return None;
    }
    let script = hostile_server();
    let manifest = format!(
        "version: 1\nname: reserved\nmodel: {{id: test}}\ntoolsets:\n  - type: mcp\n    name: inner\n    command: python3\n    args: ['{}', normal, inner]\n",
        script.display()
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("reserved.yaml"), manifest).unwrap();
    Some(dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reserved_servers_progress_reaches_the_client() {
    let Some(dir) = project() else { return };
    for transport in BOTH {
        within(async {
            let client = Client::default();
            let progress = client.progress.clone();
            let served = serve(transport, dir.path(), "reserved.yaml", &[], client).await;
            let result = served.call("count", json!({})).await.unwrap();
            assert_eq!(text(&result), "counted", "{transport:?}");
            // Notifications are handled on tasks of their own: give them a moment, bounded.
            let mut seen = Vec::new();
            for _ in 0..200 {
                seen = progress.lock().unwrap().clone();
                if seen.len() == 3 {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            // The SDK's client hands each notification to its handler on a task of its own, so
            // their order here is not the order they were sent in.
            seen.sort();
            assert_eq!(seen, ["step 1", "step 2", "step 3"], "{transport:?}");
            served.close().await;
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reserved_servers_list_change_is_told_to_the_client_and_served() {
    let Some(dir) = project() else { return };
    for transport in BOTH {
        within(async {
            let client = Client::default();
            let changed = client.list_changes.clone();
            let served = serve(transport, dir.path(), "reserved.yaml", &[], client).await;
            let names = |tools: Vec<rmcp::model::Tool>| -> Vec<String> {
                tools
                    .into_iter()
                    .map(|tool| tool.name.to_string())
                    .collect()
            };
            let before = names(served.client.peer().list_all_tools().await.unwrap());
            assert!(!before.contains(&"extra".to_string()), "{before:?}");
            let notified = changed.notified();
            assert_eq!(
                text(&served.call("grow", json!({})).await.unwrap()),
                "grown"
            );
            tokio::time::timeout(DEADLINE, notified)
                .await
                .unwrap_or_else(|_| panic!("{transport:?}: never told; {}", served.stderr()));
            let after = names(served.client.peer().list_all_tools().await.unwrap());
            assert!(
                after.contains(&"extra".to_string()),
                "{transport:?}: {after:?}"
            );
            let called = served.call("extra", json!({})).await.unwrap();
            assert_eq!(text(&called), "inner extra", "{transport:?}");
            served.close().await;
        })
        .await;
    }
}
