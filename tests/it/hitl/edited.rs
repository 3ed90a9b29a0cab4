//! Approvals with edited arguments: the call runs with the human's
//! arguments, and arguments the tool's schema rejects leave the session
//! waiting.

use std::sync::Arc;

use serde_json::json;
use starweaver::agent::{AgentHitlUserInteraction, AgentRunStatus};
use starweaver::{AgentError, TestModel};

use crate::common::{deploy_agent, deploy_script, tool_return, Log};

#[tokio::test]
async fn an_approval_with_edited_arguments_runs_the_edited_call() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = deploy_agent(&model, &log).session();
    assert!(session.run("deploy the api").await.unwrap().is_waiting());

    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved_with_arguments(
            "d1",
            json!({"service": "web"}),
        ))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "web"})]);
    let part = tool_return(&done.messages, "d1");
    assert_eq!(part.content, json!({"deployed": "web"}));
    assert_eq!(part.metadata["approval"]["edited_arguments"], json!(true));
}

#[tokio::test]
async fn edited_arguments_the_schema_rejects_leave_the_session_waiting() {
    let log: Log = Arc::default();
    let model = Arc::new(TestModel::scripted(deploy_script("deployed")));
    let mut session = deploy_agent(&model, &log).session();
    assert!(session.run("deploy the api").await.unwrap().is_waiting());

    for bad in [json!({"service": 7}), json!({}), json!(["api"])] {
        let error = session
            .resume_after_hitl(AgentHitlUserInteraction::approved_with_arguments(
                "d1",
                bad.clone(),
            ))
            .await
            .unwrap_err();
        match error {
            AgentError::InvalidHitlInput {
                tool_call_id, tool, ..
            } => {
                assert_eq!((tool_call_id.as_str(), tool.as_str()), ("d1", "deploy"));
            }
            other => panic!("{bad} gave {other}"),
        }
        assert!(session.is_waiting(), "{bad} must leave the session waiting");
    }
    assert!(log.lock().unwrap().is_empty(), "no edited call may run");

    // The model's arguments still work afterwards.
    let done = session
        .resume_after_hitl(AgentHitlUserInteraction::approved("d1"))
        .await
        .unwrap();
    assert_eq!(done.status, AgentRunStatus::Completed);
    assert_eq!(*log.lock().unwrap(), vec![json!({"service": "api"})]);
}

#[test]
fn edited_arguments_survive_serialization_and_stay_out_when_absent() {
    let edited = AgentHitlUserInteraction::approved_with_arguments("d1", json!({"a": 1}));
    let text = serde_json::to_string(&edited).unwrap();
    let back: AgentHitlUserInteraction = serde_json::from_str(&text).unwrap();
    assert_eq!(back, edited);
    let plain = serde_json::to_value(AgentHitlUserInteraction::approved("d1")).unwrap();
    assert!(plain.get("arguments").is_none(), "{plain}");
}
