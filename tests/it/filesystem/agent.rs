//! The bundle in agent runs: behind a prefixed proxy, through a session,
//! loaded by tool search, deferred, run-scoped, and cancelled mid-grep.

use std::sync::{Arc, Mutex};

use serde_json::json;
use starweaver::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
use starweaver::model::{
    FunctionModel, ModelMessage, ModelResponse, ToolCallPart, ToolReturnKind, ToolReturnPart,
};
use starweaver::tools::{DeferredToolset, DynTool};
use starweaver::{
    filesystem_tools, tool_proxy_toolset, tool_search_toolset, AgentBuilder, AgentError,
    AgentRunOptions, AgentSession, AgentStreamEvent, DynToolset, PrefixedToolset, StaticToolset,
    TestModel, ToolRegistry,
};

use crate::common::environment::{
    call_on, context_with, filesystem_registry, match_paths, notes, project, text_of,
    TestEnvironment,
};
use crate::common::{
    ambient, batch_model, call, call_response, proxied, responses_so_far, round_trip, tool_returns,
};

// ---------------------------------------------------------------------------
// Proxy and agent runs
// ---------------------------------------------------------------------------

#[tokio::test]
async fn the_bundle_works_behind_a_prefixed_tool_proxy() {
    let proxy = tool_proxy_toolset(vec![filesystem_tools()]);
    let prefixed: DynToolset = Arc::new(PrefixedToolset::new("workspace", proxy));
    let registry = ToolRegistry::new().with_toolset(&prefixed);
    assert_eq!(
        registry.names(),
        ["workspace_call_tool", "workspace_search_tools"]
    );

    let provider: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("docs").with_file("README.md", "hello"));
    let found = registry
        .execute_call(
            ambient(context_with(provider.clone())),
            &ToolCallPart::new(
                "s1",
                "workspace_search_tools",
                json!({"query": "read a text file"}),
            ),
        )
        .await;
    assert_eq!(found.kind, ToolReturnKind::Success, "{}", found.content);
    let names: Vec<&str> = found.content["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"read_file"), "{names:?}");

    // The wrapped tool still resolves the environment through its own
    // Filtered profile.
    let read = registry
        .execute_call(
            ambient(context_with(provider)),
            &ToolCallPart::new(
                "c1",
                "workspace_call_tool",
                json!({"name": "read_file", "arguments": {"path": "README.md"}}),
            ),
        )
        .await;
    assert_eq!(read.kind, ToolReturnKind::Success, "{}", read.content);
    assert_eq!(read.content["content"], "hello");
}

#[tokio::test]
async fn an_agent_reads_edits_and_greps_through_a_session() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("repo")
            .with_file("README.md", "# Demo\nstatus: draft\n")
            .with_file(".agents/skills/release/SKILL.md", "release steps\n"),
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "read_file", json!({"path": "README.md"})),
        call_response(
            "c2",
            "edit_file",
            json!({"path": "README.md", "old_string": "draft", "new_string": "final"}),
        ),
        call_response("c3", "grep", json!({"pattern": "final|release"})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .toolset(&filesystem_tools())
        .build();
    let mut session = AgentSession::new(agent).with_context(context_with(provider.clone()));

    let result = session.run("finish the readme").await.unwrap();
    assert_eq!(result.output, "done");
    assert_eq!(
        provider.read_text("README.md").await.unwrap(),
        "# Demo\nstatus: final\n"
    );
    let returns = tool_returns(&result.messages);
    assert_eq!(returns.len(), 3);
    assert!(returns
        .iter()
        .all(|part| part.kind == ToolReturnKind::Success));
    assert_eq!(returns[0].content["content"], "# Demo\nstatus: draft\n");
    assert_eq!(
        match_paths(&returns[2].content),
        [".agents/skills/release/SKILL.md", "README.md"]
    );
    assert!(returns[2].content["reminder"].as_str().is_some());
    // The toolset's instruction reached the model.
    let first = &model.requests()[0];
    let tools: Vec<&str> = first
        .parameters
        .tools
        .iter()
        .map(|tool| tool.name.as_str())
        .collect();
    assert!(tools.contains(&"read_file"));
    assert!(first
        .parameters
        .instructions
        .iter()
        .any(|text| text.contains("Filesystem tools act on the attached environment")));
}

#[tokio::test]
async fn a_missing_file_is_feedback_the_run_continues_past() {
    // Feedback costs no retry budget: four misses in a row do not fail
    // the run, as four model retries (budget 3) would.
    let provider = Arc::new(VirtualEnvironmentProvider::new("repo").with_file("a.md", "A"));
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        let step = responses_so_far(messages);
        Ok(if step < 4 {
            call_response(
                &format!("c{step}"),
                "read_file",
                json!({"path": format!("missing{step}.md")}),
            )
        } else if step == 4 {
            call_response("c4", "read_file", json!({"path": "a.md"}))
        } else {
            ModelResponse::text("found it")
        })
    }));
    let agent = AgentBuilder::new(model)
        .toolset(&filesystem_tools())
        .build();
    let mut session = AgentSession::new(agent).with_context(context_with(provider));
    let result = session.run("find the file").await.unwrap();
    assert_eq!(result.output, "found it");
    let returns = tool_returns(&result.messages);
    assert_eq!(returns.len(), 5);
    assert!(returns[..4]
        .iter()
        .all(|part| part.kind == ToolReturnKind::Feedback));
    assert_eq!(returns[4].content["content"], "A");
}

#[tokio::test]
async fn schema_sampled_arguments_still_deserialize_and_an_auto_run_does_not_panic() {
    // What `TestModel::auto` sends: each tool's schema sampled.
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    for definition in filesystem_registry().definitions() {
        let arguments = starweaver::model::sample_value(&definition.parameters);
        let part = call_on(env.clone(), &definition.name, arguments.clone()).await;
        assert_ne!(
            part.kind,
            ToolReturnKind::InvalidArguments,
            "{} rejected its own sampled arguments {arguments}: {}",
            definition.name,
            part.content
        );
    }

    let model = Arc::new(TestModel::auto());
    let agent = AgentBuilder::new(model.clone())
        .toolset(&filesystem_tools())
        .build();
    let mut session = AgentSession::new(agent).with_context(context_with(Arc::new(project())));
    let result = session.run("use every tool").await;
    assert_eq!(model.requests()[0].parameters.tools.len(), 6);
    // Listings and searches come first, then the calls that need what
    // they found (a file to read, the file written to edit): every tool
    // runs, none is refused, and the run completes: the embedded test
    // model runs any manifest with the filesystem bundle.
    let result = result.unwrap();
    let returns = tool_returns(&result.messages);
    let mut called: Vec<&str> = returns.iter().map(|part| part.tool_name.as_str()).collect();
    called.sort_unstable();
    assert_eq!(
        called,
        ["edit_file", "glob", "grep", "ls", "read_file", "write_file"]
    );
    assert!(
        returns.iter().all(ToolReturnPart::is_success),
        "{returns:?}"
    );
    assert!(!result.output.is_empty());
}

/// An `old_string` miss is the model's to fix: it reaches the model as a
/// retry prompt within the tool's ordinary budget (the non-idempotent
/// write is protected by mapping write failures to feedback, not by a
/// zero retry budget).
#[tokio::test]
async fn an_edit_file_miss_in_a_run_reaches_the_model_as_a_retry_prompt() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("repo").with_file("a.md", "A"));
    let model = Arc::new(TestModel::scripted(vec![
        call_response(
            "c1",
            "edit_file",
            json!({"path": "a.md", "old_string": "nope", "new_string": "B"}),
        ),
        call_response(
            "c2",
            "edit_file",
            json!({"path": "a.md", "old_string": "A", "new_string": "B"}),
        ),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model)
        .toolset(&filesystem_tools())
        .build();
    let mut session = AgentSession::new(agent).with_context(context_with(provider.clone()));
    let result = session.run("edit a.md").await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(provider.read_text("a.md").await.unwrap(), "B");
}

/// The bundle's tool `name`.
fn bundle_tool(name: &str) -> DynTool {
    filesystem_tools()
        .get_tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap()
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

// Regression lock (review found no defect): searched-in tools use the session environment.
#[tokio::test]
async fn filesystem_tools_loaded_by_tool_search_act_on_the_session_environment() {
    let provider = notes();
    let model = batch_model(vec![
        vec![call("s1", "tool_search", json!({"query": "write file"}))],
        vec![call(
            "w1",
            "write_file",
            json!({"path": "new/file.txt", "content": "x"}),
        )],
    ]);
    let agent = AgentBuilder::new(model)
        .toolset(&tool_search_toolset(vec![filesystem_tools()]))
        .build();
    let mut session = AgentSession::new(agent).with_environment(provider.clone());
    let result = session.run("search then write").await.unwrap();
    let returns = tool_returns(&result.messages);
    assert_eq!(returns[1].kind, ToolReturnKind::Success, "{:?}", returns[1]);
    assert_eq!(text_of(&provider, "new/file.txt").await, "x");
}

// Regression lock (review found no defect): a deferred write only returns the worker result.
#[tokio::test]
async fn a_deferred_write_returns_the_worker_result_and_touches_nothing() {
    let provider = notes();
    let model = batch_model(vec![vec![
        call("r1", "read_file", json!({"path": "notes.txt"})),
        call(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "x"}),
        ),
    ]]);
    let build = || {
        AgentBuilder::new(model.clone())
            .toolset(&StaticToolset::new("fs").with_tool(bundle_tool("read_file")))
            .toolset(&DeferredToolset::new("remote").with_tool(bundle_tool("write_file")))
            .build()
    };
    let mut session = AgentSession::new(build()).with_environment(provider.clone());
    let waiting = session.run("defer").await.unwrap();
    assert_eq!(waiting.pending.len(), 1);
    let mut restored = round_trip(&session, build()).with_environment(provider.clone());
    let done = restored
        .resume_after_hitl(
            starweaver::agent::AgentHitlResults::new().with_deferred_result("w1", json!({"ok": 1})),
        )
        .await
        .unwrap();
    let returns = tool_returns(&done.messages);
    assert_eq!(returns[1].content, json!({"ok": 1}));
    assert_eq!(text_of(&provider, "notes.txt").await, "one\n");
}

// Regression lock (review found no defect): run-scoped bundle tools see the environment, in order.
#[tokio::test]
async fn run_scoped_filesystem_tools_see_the_environment_and_stay_ordered() {
    let provider = notes();
    let model = batch_model(vec![vec![
        call("r0", "read_file", json!({"path": "notes.txt"})),
        call(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "two\n"}),
        ),
        call("r1", "grep", json!({"pattern": "two"})),
    ]]);
    let agent = AgentBuilder::new(model).build();
    let mut session = AgentSession::new(agent).with_environment(provider.clone());
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = records.clone();
    let result = session
        .run_with_events(
            "per run",
            AgentRunOptions::new().toolset(&filesystem_tools()),
            &mut move |record| sink.lock().unwrap().push(record.event.clone()),
        )
        .await
        .unwrap();
    let returns = tool_returns(&result.messages);
    assert_eq!(returns[0].content["content"], "one\n");
    assert_eq!(returns[2].content["count"], 1);
    let batch = records
        .lock()
        .unwrap()
        .iter()
        .find_map(|event| match event {
            AgentStreamEvent::ToolBatch { mode, reason, .. } => {
                Some((mode.clone(), reason.clone()))
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(batch.0, "sequential");
    assert_eq!(batch.1.as_deref(), Some("sequential_tool"));
}

// Regression lock (review found no defect): cancelling a run stops a long grep.
#[tokio::test]
async fn cancelling_a_run_stops_a_long_grep() {
    let files = VirtualEnvironmentProvider::new("big");
    let text = "haystack\n".repeat(50);
    for index in 0..20_000 {
        let path = format!("d{}/f{index}.txt", index % 100);
        files.write_text(&path, &text).await.unwrap();
    }
    // Cancel from inside the search, at its 100th file read: no sleeping,
    // and the grep is provably under way when the token fires.
    let token = tokio_util::sync::CancellationToken::new();
    let trigger = token.clone();
    let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = reads.clone();
    let provider = Arc::new(TestEnvironment::new(files).with_read_hook(move |_| {
        if counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 99 {
            trigger.cancel();
        }
    }));
    let model = batch_model(vec![vec![call("g1", "grep", json!({"pattern": "needle"}))]]);
    let agent = AgentBuilder::new(model)
        .toolset(&filesystem_tools())
        .build();
    let mut session = AgentSession::new(agent).with_environment(provider);
    let returns = Arc::new(Mutex::new(Vec::new()));
    let sink_returns = returns.clone();
    let mut sink = move |record: &starweaver::agent::AgentStreamRecord| {
        if let AgentStreamEvent::ToolReturn { part } = &record.event {
            sink_returns.lock().unwrap().push(part.clone());
        }
    };
    let result = session
        .run_with_events(
            "search",
            AgentRunOptions::new().cancellation(token),
            &mut sink,
        )
        .await;
    assert!(matches!(result, Err(AgentError::Cancelled)), "{result:?}");
    let returns = returns.lock().unwrap();
    assert_eq!(returns.len(), 1);
    assert_eq!(
        returns[0].kind,
        ToolReturnKind::Cancelled,
        "{:?}",
        returns[0]
    );
    // The search stopped at its next yield, long before 20,000 reads.
    let read = reads.load(std::sync::atomic::Ordering::SeqCst);
    assert!((100..1_000).contains(&read), "{read} reads");
}

// Regression lock (review found no defect): a proxied deferred write with a duplicate run toolset.
#[tokio::test]
async fn a_deferred_write_behind_the_proxy_and_a_duplicate_run_toolset() {
    let provider = notes();
    let model = batch_model(vec![vec![
        proxied(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "x"}),
        ),
        call("r1", "read_file", json!({"path": "notes.txt"})),
    ]]);
    let build = || {
        AgentBuilder::new(model.clone())
            .toolset(&filesystem_tools())
            .toolset(&tool_proxy_toolset(vec![
                DeferredToolset::new("remote").with_tool(bundle_tool("write_file"))
            ]))
            .build()
    };
    let mut session = AgentSession::new(build()).with_environment(provider.clone());
    let waiting = session
        .run_with_options("defer", AgentRunOptions::new().toolset(&filesystem_tools()))
        .await
        .unwrap();
    assert_eq!(waiting.pending.len(), 1);
    let mut restored = round_trip(&session, build()).with_environment(provider.clone());
    let done = restored
        .resume_after_hitl(
            starweaver::agent::AgentHitlResults::new().with_deferred_result("w1", json!({"ok": 1})),
        )
        .await
        .unwrap();
    let returns = tool_returns(&done.messages);
    assert_eq!(returns[0].content, json!({"ok": 1}));
    assert_eq!(returns[1].content["content"], "one\n");
    assert_eq!(text_of(&provider, "notes.txt").await, "one\n");
}
