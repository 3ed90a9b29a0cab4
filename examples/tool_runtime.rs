//! A tour of the tool runtime: typed and manual tools, a toolset, tool
//! search and a proxy, dispatched through `ToolRegistry::execute_call` (the
//! entry point agent runs use; here mostly without an agent context).
//!
//! `cargo run --example tool_runtime`

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use starweaver::model::ToolCallPart;
use starweaver::{
    string_tool, tool_proxy_toolset, tool_search_toolset, typed_tool, AgentContext,
    AgentContextHandle, StaticToolset, ToolContext, ToolError, ToolInstruction, ToolRegistry,
    ToolResult,
};

#[derive(Deserialize, JsonSchema)]
struct LookupArgs {
    /// Term to look up in the glossary.
    term: String,
}

fn glossary() -> Arc<StaticToolset> {
    let lookup = typed_tool::<LookupArgs, _, _>(
        "lookup",
        Some("Look up a term in the project glossary".to_string()),
        |_ctx: ToolContext, args: LookupArgs| async move {
            match args.term.as_str() {
                "toolset" => Ok(ToolResult::new(
                    serde_json::json!({"term": "toolset", "meaning": "a group of tools registered together"}),
                )),
                other => Err(ToolError::feedback(format!("`{other}` is not in the glossary"))),
            }
        },
    )
    .with_tags(["search"])
    .with_timeout_ms(1_000);
    let word_count = string_tool(
        "word_count",
        Some("Count the words of a text".to_string()),
        serde_json::json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        }),
        |_ctx: ToolContext, args: serde_json::Value| async move {
            let text = args["text"].as_str().unwrap_or_default();
            Ok(ToolResult::new(
                serde_json::json!({"words": text.split_whitespace().count()}),
            ))
        },
    );
    Arc::new(
        StaticToolset::new("glossary")
            .with_id("glossary")
            .with_tool(Arc::new(lookup))
            .with_tool(Arc::new(word_count))
            .with_instruction(ToolInstruction::new(
                "glossary",
                "Prefer exact lookup before answering.",
            )),
    )
}

fn print(label: &str, value: &impl serde::Serialize) {
    let text = serde_json::to_string(value).unwrap_or_else(|error| error.to_string());
    println!("{label:<32} {text}");
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let direct = ToolRegistry::new().with_toolset(&glossary());
    print("direct tools", &direct.names());
    print("instructions", &direct.instructions());

    let ctx = ToolContext::default();
    let calls = [
        ToolCallPart::new("1", "lookup", serde_json::json!({"term": "toolset"})),
        ToolCallPart::new("2", "lookup", serde_json::json!({"term": "agent"})),
        ToolCallPart::new("3", "lookup", serde_json::json!({"word": "typo"})),
        ToolCallPart::new("4", "word_count", "{not json"),
        ToolCallPart::new("5", "lokup", serde_json::json!({})),
    ];
    for call in &calls {
        let part = direct.execute_call(ctx.clone(), call).await;
        print(
            &format!("{} -> {}", call.name, part.kind.as_str()),
            &part.content,
        );
    }

    // Tool search: the model first sees only `tool_search`.
    let search = tool_search_toolset(vec![glossary()]);
    let searchable = ToolRegistry::new().with_toolset(&search);
    let handle = AgentContextHandle::new(AgentContext::default());
    let visible = |handle: &AgentContextHandle| {
        handle.read(|context| {
            searchable
                .definitions_for_context(context)
                .into_iter()
                .map(|definition| definition.name)
                .collect::<Vec<_>>()
        })
    };
    print("before search", &visible(&handle));
    let found = searchable
        .execute_call(
            ToolContext::default().with_agent_context(handle.clone()),
            &ToolCallPart::new(
                "6",
                "tool_search",
                serde_json::json!({"query": "glossary term"}),
            ),
        )
        .await;
    print("tool_search", &found.content["loaded_tools"]);
    print("after search", &visible(&handle));

    // Tool proxy: two stable tools in front of the whole library.
    let proxy = ToolRegistry::new().with_toolset(&tool_proxy_toolset(vec![glossary()]));
    print("proxy tools", &proxy.names());
    let proxied = proxy
        .execute_call(
            ToolContext::default(),
            &ToolCallPart::new(
                "7",
                "call_tool",
                serde_json::json!({"name": "word_count", "arguments": {"text": "tools all the way down"}}),
            ),
        )
        .await;
    print("call_tool word_count", &proxied.content);
}
