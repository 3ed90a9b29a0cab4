//! The client's cancellation cancels the call: the command it started is stopped, and the
//! session goes on.

use std::time::Duration;

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::json;

use super::{project, read, serve, within, Client, BOTH};

/// Whether a process whose command line is `sleep SECONDS` (the program named by any path)
/// is running.
fn sleeping(seconds: &str) -> bool {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| std::fs::read(entry.path().join("cmdline")).ok())
        .any(|cmdline| {
            let words: Vec<&[u8]> = cmdline.split(|byte| *byte == 0).collect();
            matches!(words.as_slice(), [program, argument, b""]
                if program.ends_with(b"sleep") && *argument == seconds.as_bytes())
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_stops_its_command_and_the_session_goes_on() {
    for (index, transport) in BOTH.into_iter().enumerate() {
        // Unique to this run: a `sleep` left behind by an earlier, killed run is not ours.
        let seconds = format!("{}.{index}5", 300_000 + std::process::id() % 100_000);
        let seconds = seconds.as_str();
        within(async {
            let dir = project();
            let served = serve(transport, dir.path(), "served.yaml", &[], Client::default()).await;
            let arguments = json!({"program": "sleep", "args": [seconds]});
            let serde_json::Value::Object(arguments) = arguments else {
                unreachable!()
            };
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(
                CallToolRequestParams::new("shell_exec").with_arguments(arguments),
            ));
            let handle = served
                .client
                .peer()
                .send_request_with_option(request, PeerRequestOptions::no_options())
                .await
                .unwrap();
            // Cancel once the command is running.
            while !sleeping(seconds) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            handle
                .cancel(Some("the test cancels it".into()))
                .await
                .unwrap();
            while sleeping(seconds) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let after = served.call("read_file", read("notes.txt")).await.unwrap();
            assert_eq!(after.is_error, Some(false), "{transport:?}: {after:?}");
            served.close().await;
        })
        .await;
    }
}
