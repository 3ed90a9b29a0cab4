//! The macro tools under test, one per group of rules, with a twin of
//! each built by hand.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use starweaver::tools::{schema_for_type, ToolDependencyRequirements};
use starweaver::{typed_tool, Tool, ToolContext, ToolError, ToolKind, ToolResult};

/// One glossary entry.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Entry {
    /// The term.
    pub term: String,
    /// Its section.
    pub section: String,
}

// ---------------------------------------------------------------------------
// Async, bare context, docs, a default, an Option, Result return
// ---------------------------------------------------------------------------

/// Look up a value in the project's glossary.
///
/// Longer paragraphs after the first stay in the description.
#[starweaver::tool(timeout_ms = 1_000, tags("search"), max_retries = 2)]
pub async fn macro_lookup(
    ctx: ToolContext,
    /// Term to look up.
    term: String,
    /// Maximum number of results.
    #[arg(default = 10)]
    limit: usize,
    /// Restrict to one section.
    section: Option<String>,
) -> Result<Vec<Entry>, ToolError> {
    let _ = ctx;
    if term == "retry" {
        return Err(ToolError::model_retry("try another term"));
    }
    let section = section.unwrap_or_else(|| "general".to_string());
    Ok((0..limit.min(3))
        .map(|n| Entry {
            term: format!("{term}-{n}"),
            section: section.clone(),
        })
        .collect())
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct LookupArgs {
    /// Term to look up.
    term: String,
    /// Maximum number of results.
    #[serde(default = "ten")]
    #[schemars(default = "ten")]
    limit: usize,
    /// Restrict to one section.
    #[serde(default)]
    section: Option<String>,
}

fn ten() -> usize {
    10
}

pub fn lookup_by_hand() -> impl Tool {
    typed_tool::<LookupArgs, _, _>(
        "macro_lookup",
        Some(
            "Look up a value in the project's glossary.\n\n\
             Longer paragraphs after the first stay in the description."
                .to_string(),
        ),
        |_ctx: ToolContext, _args: LookupArgs| async move {
            Ok(ToolResult::new(serde_json::Value::Null))
        },
    )
    .with_timeout_ms(1_000)
    .with_tags(["search"])
    .with_max_retries(2)
}

// ---------------------------------------------------------------------------
// Sync, no context, plain value return, name/description overrides, flags
// ---------------------------------------------------------------------------

/// This doc is replaced by the attribute's description.
#[starweaver::tool(
    name = "macro-words",
    description = "Split text into words.",
    hidden_by_tags("search"),
    kind = "output",
    strict,
    sequential,
    at_most_once,
    return_schema
)]
pub fn split_words(
    /// The text.
    #[arg(description = "Text to split on whitespace.")]
    text: String,
) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WordsArgs {
    /// Text to split on whitespace.
    #[allow(dead_code)]
    text: String,
}

pub fn words_by_hand() -> impl Tool {
    typed_tool::<WordsArgs, _, _>(
        "macro-words",
        Some("Split text into words.".to_string()),
        |_ctx: ToolContext, _args: WordsArgs| async move {
            Ok(ToolResult::new(serde_json::Value::Null))
        },
    )
    .with_hidden_by_tags(["search"])
    .with_kind(ToolKind::Output)
    .with_strict_schema(true)
    .with_sequential(true)
    .with_at_most_once(true)
    .with_return_schema(schema_for_type::<Vec<String>>())
}

// ---------------------------------------------------------------------------
// Context by path, ToolResult return, rename, filtered dependencies
// ---------------------------------------------------------------------------

/// Echo a value back under its wire name.
#[starweaver::tool(
    kind = "unapproved",
    dependencies = filtered("glossary_db", context("starweaver.context.tasks"))
)]
pub async fn macro_echo(
    /// The value to echo.
    #[arg(rename = "type")]
    kind: String,
    context: starweaver::ToolContext,
) -> ToolResult {
    let _ = context;
    ToolResult::new(serde_json::json!({ "type": kind }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EchoArgs {
    /// The value to echo.
    #[serde(rename = "type")]
    #[allow(dead_code)]
    kind: String,
}

pub fn echo_by_hand() -> impl Tool {
    typed_tool::<EchoArgs, _, _>(
        "macro_echo",
        Some("Echo a value back under its wire name.".to_string()),
        |_ctx: ToolContext, _args: EchoArgs| async move { Ok(ToolResult::new(serde_json::Value::Null)) },
    )
    .with_kind(ToolKind::Unapproved)
    .with_dependencies(
        ToolDependencyRequirements::filtered(["glossary_db"])
            .with_context_capability("starweaver.context.tasks"),
    )
}

// ---------------------------------------------------------------------------
// #[context] on an alias, #[args], sync Result return, strict dependencies
// ---------------------------------------------------------------------------

/// The context under another name: only `#[context]` marks it.
pub type Ctx = ToolContext;

/// Arguments of [`macro_add`], used whole.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddArgs {
    /// First addend.
    pub a: u32,
    /// Second addend.
    pub b: u32,
}

/// Add two numbers.
#[starweaver::tool(dependencies = strict("calculator"), return_schema)]
pub fn macro_add(#[context] ctx: Ctx, #[args] args: AddArgs) -> Result<u32, ToolError> {
    let _ = ctx;
    args.a
        .checked_add(args.b)
        .ok_or_else(|| ToolError::model_retry("the sum overflows a u32"))
}

pub fn add_by_hand() -> impl Tool {
    typed_tool::<AddArgs, _, _>(
        "macro_add",
        Some("Add two numbers.".to_string()),
        |_ctx: ToolContext, _args: AddArgs| async move { Ok(ToolResult::new(serde_json::Value::Null)) },
    )
    .with_dependencies(ToolDependencyRequirements::strict(["calculator"]))
    .with_return_schema(schema_for_type::<u32>())
}

// ---------------------------------------------------------------------------
// No parameters, unit return, kinds
// ---------------------------------------------------------------------------

/// Do nothing, successfully.
#[starweaver::tool(kind = "deferred", strict = false)]
pub fn macro_nothing() {}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

pub fn nothing_by_hand() -> impl Tool {
    typed_tool::<NoArgs, _, _>(
        "macro_nothing",
        Some("Do nothing, successfully.".to_string()),
        |_ctx: ToolContext, _args: NoArgs| async move { Ok(ToolResult::new(serde_json::Value::Null)) },
    )
    .with_kind(ToolKind::Deferred)
    .with_strict_schema(false)
}

/// A raw identifier as the function name: the tool is `r#type`'s `type`.
#[starweaver::tool(kind = "external")]
pub async fn r#macro_raw(r#type: String) -> String {
    r#type
}
