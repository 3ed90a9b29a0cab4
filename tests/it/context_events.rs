//! Context events keep loading across builds: logs and stream records
//! written before the event kind was typed read into [`ContextEventKind`]
//! variants, a kind this build does not know is kept as
//! [`ContextEventKind::Other`], and both write back to the same JSON.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{json, Value};
use starweaver::agent::AgentStreamRecord;
use starweaver::context::{ContextEvent, ContextEventKind, ContextEvents};
use starweaver::{AgentContext, AgentStreamEvent, SKILL_RELOAD_EVENT_KIND, SKILL_SCAN_EVENT_KIND};

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/context_events")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn an_event_log_written_before_typed_kinds_loads_and_writes_back_unchanged() {
    let text = fixture("context_events.json");
    let events: ContextEvents = serde_json::from_str(&text).unwrap();
    let known: BTreeSet<&str> = events
        .events()
        .iter()
        .filter(|event| !matches!(event.kind, ContextEventKind::Other(_)))
        .map(|event| event.kind.as_str())
        .collect();
    assert_eq!(
        known,
        BTreeSet::from([
            "model_request_adjusted",
            "skill_activated",
            "skills_reloaded",
            "skills_scanned",
            "tool_search_failed",
            "tool_search_initialized",
            "tool_search_invalidated",
            "tool_search_loaded",
            "tool_search_no_match",
            "tool_search_refreshed",
            "tools_unavailable",
            "toolset_closed",
            "toolset_failed",
            "toolset_initialized",
            "toolset_unavailable",
        ])
    );
    let unavailable: Vec<_> = events.of_kind(ContextEventKind::ToolsUnavailable).collect();
    assert_eq!(unavailable.len(), 1);
    assert_eq!(unavailable[0].payload["tools"], json!(["gated"]));
    assert_eq!(events.of_kind(SKILL_RELOAD_EVENT_KIND).count(), 1);
    assert_eq!(
        serde_json::to_value(&events).unwrap(),
        serde_json::from_str::<Value>(&text).unwrap()
    );
}

#[test]
fn a_kind_this_build_does_not_know_loads_as_other_and_keeps_its_name() {
    let text = fixture("context_events.json");
    let events: ContextEvents = serde_json::from_str(&text).unwrap();
    let host: Vec<_> = events.of_kind("announced").collect();
    assert_eq!(host.len(), 1);
    assert_eq!(
        host[0].kind,
        ContextEventKind::Other("announced".to_string())
    );
    assert_eq!(host[0].payload, json!({"tool": "alpha"}));

    let newer = json!({"kind": "subagent_spawned", "payload": {"agent": "research"}});
    let event: ContextEvent = serde_json::from_value(newer.clone()).unwrap();
    assert_eq!(event.kind, "subagent_spawned");
    assert_eq!(serde_json::to_value(&event).unwrap(), newer);
}

#[test]
fn stream_records_written_before_typed_kinds_load_and_write_back_unchanged() {
    let text = fixture("stream_records.json");
    let records: Vec<AgentStreamRecord> = serde_json::from_str(&text).unwrap();
    let kinds: Vec<ContextEventKind> = records
        .iter()
        .filter_map(|record| match &record.event {
            AgentStreamEvent::Custom { event } => Some(event.kind.clone()),
            _ => None,
        })
        .collect();
    assert!(
        kinds.contains(&ContextEventKind::ToolsetFailed),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&ContextEventKind::ToolsUnavailable),
        "{kinds:?}"
    );
    assert!(kinds.contains(&SKILL_SCAN_EVENT_KIND), "{kinds:?}");
    assert!(
        !kinds
            .iter()
            .any(|kind| matches!(kind, ContextEventKind::Other(_))),
        "{kinds:?}"
    );
    assert_eq!(
        serde_json::to_value(&records).unwrap(),
        serde_json::from_str::<Value>(&text).unwrap()
    );
}

#[test]
fn a_kind_built_from_its_name_is_the_variant() {
    let mut context = AgentContext::default();
    context.emit("tools_unavailable", json!({"tools": []}));
    context.emit(
        ContextEventKind::Other("toolset_closed".to_string()),
        json!({}),
    );
    let kinds: Vec<&ContextEventKind> = context
        .events
        .events()
        .iter()
        .map(|event| &event.kind)
        .collect();
    assert!(matches!(kinds[0], ContextEventKind::ToolsUnavailable));
    assert_eq!(*kinds[1], ContextEventKind::ToolsetClosed);
    assert_eq!(
        context
            .events
            .of_kind(ContextEventKind::ToolsetClosed)
            .count(),
        1
    );
    assert_eq!(
        serde_json::to_value(&context.events).unwrap(),
        json!([
            {"kind": "tools_unavailable", "payload": {"tools": []}},
            {"kind": "toolset_closed", "payload": {}},
        ])
    );
}
