//! `glob`: find paths by pattern.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::reminder::skill_reminder;
use super::unreadable::{is_zero, join_hints, unreadable_hint};
use super::{read_only, requirements};
use crate::bundles::environment::{environment, normalized, search_error};
use crate::environment::{glob, GlobOptions};
use crate::tools::ToolContext;
use crate::tools::{schema_for_type, typed_tool, DynTool, ToolError, ToolResult};

/// Name of the path-finding tool.
pub const GLOB_TOOL_NAME: &str = "glob";

/// Results returned when no `max_results` is given.
const DEFAULT_MAX_RESULTS: usize = 200;
/// Upper bound on `max_results`.
const MAX_RESULTS_CAP: usize = 2_000;

/// Arguments of `glob`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct GlobArgs {
    /// Glob pattern. Without `/` it matches file names at any depth
    /// (`*.rs`); with `/` it is relative to `path` and `*` stays within
    /// one directory (`src/*.rs`); a leading `/` or `./` means directly in
    /// `path` (`./*.rs`); `**` spans directories (`src/**/*.rs`); `{a,b}`
    /// gives alternatives.
    pub pattern: String,
    /// Directory to search, relative to the environment root (default:
    /// the root).
    #[serde(default, alias = "dir", alias = "directory")]
    pub path: Option<String>,
    /// Also match hidden files and directories (names starting with a
    /// dot). The search directory's `.agents/` is always included.
    #[serde(default)]
    pub include_hidden: bool,
    /// Maximum number of paths to return (default 200, at most 2000).
    #[serde(default)]
    pub max_results: Option<usize>,
}

/// What `glob` returns.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct GlobOutput {
    /// Matching paths (root-relative), depth-first in name order.
    files: Vec<String>,
    /// Number of paths returned.
    count: usize,
    /// True when more paths match than were returned.
    truncated: bool,
    /// Directories skipped because they could not be listed (omitted
    /// when none); matches inside them are missing.
    #[serde(skip_serializing_if = "is_zero")]
    unreadable: usize,
    /// The first few of those directories.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unreadable_paths: Vec<String>,
    /// Present when a SKILL.md is among the results.
    #[serde(skip_serializing_if = "Option::is_none")]
    reminder: Option<String>,
    /// A suggestion when the result is empty or cut short.
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
}

pub(super) fn glob_tool() -> DynTool {
    let tool = typed_tool::<GlobArgs, _, _>(
        GLOB_TOOL_NAME,
        Some(
            "Find files in the environment by glob pattern, ripgrep-style: `*.rs` matches at any \
             depth, `src/*.rs` only directly under src, `**/*.rs` everywhere. Hidden paths \
             (except the search directory's `.agents/`) and ignored paths are skipped."
                .to_string(),
        ),
        |ctx: ToolContext, args: GlobArgs| async move { glob_files(&ctx, args).await },
    )
    .with_dependencies(requirements())
    .with_tags(read_only())
    .with_return_schema(schema_for_type::<GlobOutput>());
    Arc::new(tool)
}

async fn glob_files(ctx: &ToolContext, args: GlobArgs) -> Result<ToolResult, ToolError> {
    let provider = environment(ctx)?;
    let root = normalized(&provider, args.path.as_deref().unwrap_or_default())?;
    let max_results = args
        .max_results
        .unwrap_or(DEFAULT_MAX_RESULTS)
        .clamp(1, MAX_RESULTS_CAP);
    let options = GlobOptions::default()
        .with_root(root)
        .with_hidden(args.include_hidden)
        .with_max_results(max_results);
    let report = glob(provider.as_ref(), &args.pattern, &options)
        .await
        .map_err(search_error)?;
    let reminder = skill_reminder(
        report
            .entries
            .iter()
            .filter(|entry| entry.is_file())
            .map(|entry| entry.path.as_str()),
    );
    let hint = if report.truncated {
        Some(format!(
            "only the first {max_results} matches are shown; narrow the pattern or the path"
        ))
    } else if report.entries.is_empty() && !args.include_hidden && names_hidden(&args.pattern) {
        Some("the pattern names a hidden path; set include_hidden to true to search it".to_string())
    } else {
        None
    };
    let hint = join_hints([
        hint,
        unreadable_hint(report.unreadable_dirs, &report.unreadable_paths),
    ]);
    let files: Vec<String> = report.entries.into_iter().map(|entry| entry.path).collect();
    ToolResult::from_serialize(&GlobOutput {
        count: files.len(),
        files,
        truncated: report.truncated,
        unreadable: report.unreadable_dirs,
        unreadable_paths: report.unreadable_paths,
        reminder,
        hint,
    })
}

/// True when a pattern segment starts with a dot (other than `.`/`..`).
pub(super) fn names_hidden(pattern: &str) -> bool {
    pattern
        .split('/')
        .any(|segment| segment.starts_with('.') && segment != "." && segment != "..")
}
