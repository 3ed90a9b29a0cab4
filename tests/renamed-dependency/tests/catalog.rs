//! The renamed facade's catalog finds the macro tool, and it runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use sw::model::{ToolCallPart, ToolReturnKind};
use sw::{ToolContext, ToolRegistry};

// Linking the library registers its tools.
use starweaver_renamed_dependency::renamed_greet_tool;

#[tokio::test]
async fn renamed_facade_tool_is_in_the_catalog_and_runs() {
    assert!(
        sw::catalog::names()
            .iter()
            .any(|name| name == "renamed_greet"),
        "{:?}",
        sw::catalog::names()
    );
    let tool = sw::catalog::get("renamed_greet").unwrap();
    assert_eq!(
        tool.definition(),
        sw::Tool::definition(&renamed_greet_tool())
    );
    let parameters = tool.definition().parameters;
    assert_eq!(parameters["properties"]["excitement"]["default"], 1);

    let registry = ToolRegistry::new().with_tool(tool);
    let part = registry
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new("1", "renamed_greet", serde_json_args()),
        )
        .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{part:?}");
    assert_eq!(part.content, "Hello, Ada!");
}

/// `{"name": "Ada"}`, built through the facade's JSON re-export.
fn serde_json_args() -> sw::__private::serde_json::Value {
    sw::__private::serde_json::json!({"name": "Ada"})
}
