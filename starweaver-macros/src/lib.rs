//! The `#[starweaver::tool]` attribute macro: turns an annotated function
//! into a typed tool, with no hand-written argument struct.
//!
//! The expansion uses only the facade's public builders (`typed_tool` and
//! the `with_*` methods) plus a few hidden helpers, so a macro tool and a
//! tool built by hand are the same thing spelled two ways. See the
//! facade's `tool` re-export for the user-facing documentation.

mod docs;
mod errors;
mod expand;
mod facade;
mod options;
mod params;
mod returns;
mod suggest;

use proc_macro::TokenStream;

/// Turns a function into a tool: keeps the function, adds `NAME_tool()`
/// returning the tool, and registers it in the process-wide catalog.
///
/// ```ignore
/// /// Look up a value in the project's glossary.
/// #[starweaver::tool(timeout_ms = 1_000, tags("search"), max_retries = 2)]
/// async fn lookup(
///     ctx: ToolContext,
///     /// Term to look up.
///     term: String,
///     /// Maximum number of results.
///     #[arg(default = 10)]
///     limit: usize,
///     /// Restrict to one section.
///     section: Option<String>,
/// ) -> Result<Vec<Entry>, ToolError> { Ok(Vec::new()) }
///
/// let tool = lookup_tool(); // a `TypedFunctionTool`, same builders as `typed_tool`
/// ```
///
/// - A `ToolContext` or `&ToolContext` parameter (bare, by path, or
///   marked `#[context]`) is injected and never in the schema; every other parameter is a
///   property in parameter order, its `///` doc its description.
///   `Option<T>` is optional; `#[arg(default = EXPR)]`,
///   `#[arg(rename = "..")]` and `#[arg(description = "..")]` adjust one
///   property; one `#[args]` parameter is the whole argument struct.
/// - The description is the function's doc comment, or `description`.
/// - Keys: `name`, `description`, `timeout_ms`, `max_retries`,
///   `tags(..)`, `hidden_by_tags(..)`, `kind`, `strict`, `sequential`,
///   `at_most_once` (a journaled run asks a person before running an interrupted call again),
///   `return_schema`, `dependencies = filtered(..)` or `strict(..)` (with
///   `context("..")` entries for context capabilities).
/// - Returns: `Result<T, E: Into<ToolError>>`, `Result<ToolResult, E>`,
///   `ToolResult`, or any `T: Serialize`. A sync function runs on the blocking pool.
/// - Misuse (unknown or duplicate keys, bad names or kinds, generics,
///   `self`, `unsafe`, patterns, two contexts or a `&mut` one, borrowed or
///   `impl Trait` arguments, `#[arg]` on `#[args]` or the context, a
///   default on an `Option`, no description) is a compile error on the
///   offending token.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}
