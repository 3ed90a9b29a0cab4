//! Listing and calling: plain names, schemas, output schemas, annotations, results and
//! errors; deferred tools left out and said so.

use serde_json::json;

use super::{project, read, serve, text, within, Client, BOTH, NOTES};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_listed_by_their_own_names_with_schemas_and_annotations() {
    for transport in BOTH {
        within(async {
            let dir = project();
            let served = serve(transport, dir.path(), "served.yaml", &[], Client::default()).await;
            let tools = served.client.peer().list_all_tools().await.unwrap();
            let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
            for name in [
                "ls",
                "read_file",
                "glob",
                "grep",
                "write_file",
                "edit_file",
                "shell_exec",
            ] {
                assert!(names.contains(&name), "{transport:?}: {name} in {names:?}");
            }
            assert!(
                !names.iter().any(|name| name.starts_with("propose")),
                "{transport:?}: the deferred tool is served: {names:?}"
            );
            let read_file = tools.iter().find(|tool| tool.name == "read_file").unwrap();
            assert_eq!(read_file.input_schema.get("type"), Some(&json!("object")));
            assert!(read_file.input_schema["properties"].get("path").is_some());
            let output = read_file
                .output_schema
                .as_ref()
                .expect("read_file's output schema");
            assert_eq!(output.get("type"), Some(&json!("object")));
            let hints = read_file.annotations.as_ref().unwrap();
            assert_eq!(hints.read_only_hint, Some(true));
            let write = tools.iter().find(|tool| tool.name == "write_file").unwrap();
            assert_eq!(
                write.annotations.as_ref().unwrap().destructive_hint,
                Some(true)
            );
            let log = served.stderr();
            assert!(
                log.contains("not served: propose_edit_file (deferred"),
                "{transport:?}: {log}"
            );
            served.close().await;
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_returns_the_tools_result_as_text_and_structured_content() {
    for transport in BOTH {
        within(async {
            let dir = project();
            let served = serve(transport, dir.path(), "served.yaml", &[], Client::default()).await;
            let result = served.call("read_file", read("notes.txt")).await.unwrap();
            assert_eq!(result.is_error, Some(false), "{transport:?}: {result:?}");
            assert!(text(&result).contains("hello from the notes"), "{result:?}");
            let structured = result.structured_content.expect("structured content");
            let shown = structured.to_string();
            assert!(shown.contains(NOTES.trim()), "{transport:?}: {shown}");
            served.close().await;
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_call_is_an_error_result_and_an_unserved_name_a_protocol_error_the_session_survives(
) {
    for transport in BOTH {
        within(async {
            let dir = project();
            let served = serve(transport, dir.path(), "served.yaml", &[], Client::default()).await;
            // A missing file is feedback the model reasons about, as in a run: not an error.
            let missing = served.call("read_file", read("absent.txt")).await.unwrap();
            assert_eq!(missing.is_error, Some(false), "{transport:?}: {missing:?}");
            assert!(
                text(&missing).contains("`absent.txt` does not exist"),
                "{missing:?}"
            );
            let bad = served.call("read_file", json!({"path": 7})).await.unwrap();
            assert_eq!(bad.is_error, Some(true), "{transport:?}: {bad:?}");
            assert!(text(&bad).contains("path"), "{bad:?}");
            for name in ["no_such_tool", "propose_edit_file"] {
                let refused = served.call(name, json!({})).await;
                assert!(refused.is_err(), "{transport:?}: {name}: {refused:?}");
            }
            // The session survives all of it.
            let again = served.call("read_file", read("notes.txt")).await.unwrap();
            assert_eq!(again.is_error, Some(false));
            served.close().await;
        })
        .await;
    }
}
