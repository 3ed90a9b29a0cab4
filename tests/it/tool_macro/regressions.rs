//! Signatures a user writes that the attribute once got wrong: names the
//! expansion used for itself, a borrowed context, `Result<ToolResult, _>`,
//! doc comments that are not plain `///` lines, deprecated functions,
//! tools in function bodies and modules, and the catalog's source line.

use serde_json::json;
use starweaver::{catalog, Tool, ToolContext, ToolError, ToolResult};

async fn call(tool: &dyn Tool, arguments: serde_json::Value) -> ToolResult {
    tool.call(ToolContext::default(), &arguments).await.unwrap()
}

/// Echo the text back.
#[starweaver::tool]
async fn regression_echo(regression_echo: String) -> String {
    regression_echo
}

/// Names the expansion once used for its own bindings.
#[starweaver::tool]
async fn regression_own_names(ctx: ToolContext, __ctx: String, __args: u8) -> String {
    format!("{} {__ctx} {__args}", ctx.run_id().as_str().is_empty())
}

#[tokio::test]
async fn parameters_named_like_the_function_or_the_expansion_bindings_work() {
    // Regression: a parameter named like its function shadowed the call
    // (`expected function, found String`); `__ctx` shadowed the context.
    let result = call(&regression_echo_tool(), json!({"regression_echo": "hi"})).await;
    assert_eq!(result.content, json!("hi"));
    let result = call(
        &regression_own_names_tool(),
        json!({"__ctx": "x", "__args": 3}),
    )
    .await;
    assert_eq!(result.content, json!("false x 3"));
}

/// Borrow the context, async.
#[starweaver::tool]
async fn regression_ref_ctx_async(ctx: &ToolContext, text: String) -> String {
    format!("{text} {}", ctx.run_id().as_str().is_empty())
}

/// Borrow the context, sync.
#[starweaver::tool]
fn regression_ref_ctx_sync(text: String, #[context] ctx: &starweaver::ToolContext) -> String {
    format!("{text} {}", ctx.run_id().as_str().is_empty())
}

#[tokio::test]
async fn a_borrowed_context_is_injected_and_never_a_property() {
    // Regression: `ctx: &ToolContext` was an argument, refused as "must be owned".
    for tool in [
        &regression_ref_ctx_async_tool() as &dyn Tool,
        &regression_ref_ctx_sync_tool(),
    ] {
        let properties = tool.definition().parameters["properties"].clone();
        assert_eq!(properties.as_object().unwrap().len(), 1, "{properties}");
        assert_eq!(
            call(tool, json!({"text": "t"})).await.content,
            json!("t false")
        );
    }
}

/// A `ToolResult` inside a `Result`.
#[starweaver::tool]
async fn regression_result_of_tool_result(text: String) -> Result<ToolResult, ToolError> {
    if text.is_empty() {
        return Err(ToolError::model_retry("give some text"));
    }
    Ok(ToolResult::new(json!({ "echo": text })))
}

#[tokio::test]
async fn a_result_of_tool_result_is_used_as_it_is() {
    // Regression: the `ToolResult` was serialized into the content
    // (`{"content": .., "metadata": {}, "private_metadata": {}}`).
    let tool = regression_result_of_tool_result_tool();
    assert_eq!(
        call(&tool, json!({"text": "a"})).await.content,
        json!({"echo": "a"})
    );
    let error = tool
        .call(ToolContext::default(), &json!({"text": ""}))
        .await
        .unwrap_err();
    assert!(matches!(error, ToolError::ModelRetry { .. }), "{error:?}");
}

/// Intro line.
#[doc = include_str!("included_description.md")]
#[starweaver::tool]
fn regression_included() {}

#[doc = include_str!("included_description.md")]
#[starweaver::tool]
fn regression_only_included() {}

///  Two spaces after the slashes.
///  On every line.
#[starweaver::tool]
fn regression_margin() {}

#[doc = "
    Look up a term.

    Second paragraph.
"]
#[starweaver::tool]
fn regression_doc_string() {}

/// Described by the attribute instead.
#[starweaver::tool(description = "
    Indented in the attribute.

    Still a paragraph, not a code block.
")]
fn regression_description_key() {}

#[test]
fn descriptions_are_the_doc_text_a_reader_sees() {
    let description = |tool: &dyn Tool| tool.definition().description.unwrap();
    // Regression: an `include_str!` doc line was dropped ("no description").
    assert_eq!(
        description(&regression_included_tool()),
        "Intro line.\nIncluded from a file.\n\n    Its second paragraph, indented in the file."
    );
    assert_eq!(
        description(&regression_only_included_tool()),
        "Included from a file.\n\n    Its second paragraph, indented in the file."
    );
    // Regression: only one space was dropped from each line.
    assert_eq!(
        description(&regression_margin_tool()),
        "Two spaces after the slashes.\nOn every line."
    );
    // Regression: the margin of a multi-line string stayed, making a code block.
    assert_eq!(
        description(&regression_doc_string_tool()),
        "Look up a term.\n\nSecond paragraph."
    );
    assert_eq!(
        description(&regression_description_key_tool()),
        "Indented in the attribute.\n\nStill a paragraph, not a code block."
    );
}

// Regression: the generated `NAME_tool` called the deprecated function
// and warned (an error under `-D warnings`, as here).
#[deny(deprecated)]
mod deprecated {
    /// An old tool, still offered.
    #[deprecated = "use something newer"]
    #[starweaver::tool]
    pub(super) fn regression_deprecated() {}
}

#[test]
fn a_deprecated_function_makes_a_tool_without_a_warning() {
    let tool = deprecated::regression_deprecated_tool();
    assert_eq!(tool.name(), "regression_deprecated");
}

mod nested {
    /// A tool in a module, visible to its crate.
    #[starweaver::tool]
    pub(crate) fn regression_in_module(n: u8) -> u8 {
        n
    }
}

fn tool_in_a_function_body() -> starweaver::tools::DynTool {
    /// A tool defined inside a function.
    #[starweaver::tool]
    fn regression_in_body(n: u8) -> u8 {
        n + 1
    }
    std::sync::Arc::new(regression_in_body_tool())
}

const SITED_LINE: u32 = line!() + 6;

#[starweaver::tool(
    description = "A tool whose attribute spans lines: its first line is not the function's.",
    tags("sited")
)]
fn regression_sited() {}

#[tokio::test]
async fn tools_in_modules_and_function_bodies_build_and_are_in_the_catalog() {
    let module_tool = nested::regression_in_module_tool();
    assert_eq!(call(&module_tool, json!({"n": 4})).await.content, json!(4));
    let body_tool = tool_in_a_function_body();
    assert_eq!(
        call(body_tool.as_ref(), json!({"n": 4})).await.content,
        json!(5)
    );
    for name in ["regression_in_module", "regression_in_body"] {
        assert!(catalog::get(name).is_some(), "{name} not in the catalog");
    }
}

#[test]
fn the_catalog_source_is_the_function_line() {
    // Regression: the source was the attribute's first line.
    let json = catalog::to_json();
    let sited = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "regression_sited")
        .unwrap()
        .clone();
    let source = sited["source"].as_str().unwrap();
    assert!(
        source.ends_with(&format!("tool_macro/regressions.rs:{SITED_LINE}")),
        "{source}"
    );
}
