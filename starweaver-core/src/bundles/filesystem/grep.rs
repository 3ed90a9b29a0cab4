//! `grep`: search file contents by regular expression.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::glob::names_hidden;
use super::reminder::skill_reminder;
use super::unreadable::{is_zero, join_hints, unreadable_hint};
use super::{read_only, requirements};
use crate::bundles::environment::{environment, normalized, search_error};
use crate::environment::{grep, GrepOptions};
use crate::tools::ToolContext;
use crate::tools::{schema_for_type, typed_tool, DynTool, ToolError, ToolResult};

/// Name of the content-search tool.
pub const GREP_TOOL_NAME: &str = "grep";

/// Matches returned when no `max_results` is given.
const DEFAULT_MAX_RESULTS: usize = 100;
/// Upper bound on `max_results`.
const MAX_RESULTS_CAP: usize = 1_000;
/// Upper bound on `context_lines`.
const MAX_CONTEXT_LINES: usize = 10;
/// Bytes of paths and lines one call returns: below the registry's
/// return limit (256 KiB by default) with room for each match's JSON
/// fields and escapes, so a broad search comes back whole, with its hint,
/// rather than cut by the registry.
const MAX_OUTPUT_BYTES: usize = 160 * 1024;

/// Arguments of `grep`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct GrepArgs {
    /// Regular expression (Rust regex syntax) to search for, or plain
    /// text when `literal` is true. `^` and `$` match at line boundaries.
    pub pattern: String,
    /// File or directory to search, relative to the environment root
    /// (default: the root).
    #[serde(default, alias = "file_path", alias = "dir", alias = "directory")]
    pub path: Option<String>,
    /// Only search files matching this glob, e.g. `*.rs` or `src/**/*.ts`.
    #[serde(default, alias = "include")]
    pub glob: Option<String>,
    /// Ignore letter case.
    #[serde(default, alias = "ignore_case")]
    pub case_insensitive: bool,
    /// Treat `pattern` as literal text instead of a regular expression.
    #[serde(default, alias = "fixed_strings")]
    pub literal: bool,
    /// Lines of context to show before and after each match (default 0,
    /// at most 10).
    #[serde(default)]
    pub context_lines: Option<usize>,
    /// Also search hidden files and directories. The search directory's
    /// `.agents/` is always included.
    #[serde(default)]
    pub include_hidden: bool,
    /// Maximum number of matching lines to return (default 100, at most
    /// 1000).
    #[serde(default)]
    pub max_results: Option<usize>,
}

/// One matching line.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct GrepLine {
    /// File path (root-relative).
    path: String,
    /// 1-based line number.
    line_number: usize,
    /// The matching line.
    line: String,
    /// Context lines before the match.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    before: Vec<String>,
    /// Context lines after the match.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    after: Vec<String>,
}

/// What `grep` returns.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct GrepOutput {
    /// Matching lines, files in path order. A long line is an excerpt
    /// around its match.
    matches: Vec<GrepLine>,
    /// Number of matching lines returned.
    count: usize,
    /// True when more lines match than were returned (the count or size
    /// limit was reached).
    truncated: bool,
    /// Text files searched.
    files_searched: usize,
    /// Binary or non-UTF-8 files skipped.
    binary_files_skipped: usize,
    /// Files skipped for their size.
    large_files_skipped: usize,
    /// Files and directories skipped because they could not be read
    /// (omitted when none); matches inside them are missing.
    #[serde(skip_serializing_if = "is_zero")]
    unreadable: usize,
    /// The first few of those paths.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unreadable_paths: Vec<String>,
    /// Present when a SKILL.md matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    reminder: Option<String>,
    /// A suggestion when the result is empty or cut short.
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
}

pub(super) fn grep_tool() -> DynTool {
    let tool = typed_tool::<GrepArgs, _, _>(
        GREP_TOOL_NAME,
        Some(
            "Search file contents in the environment for a regular expression, ripgrep-style; \
             returns matching lines with paths and 1-based line numbers. Narrow with `path` and \
             `glob`; binary, hidden and ignored files are skipped."
                .to_string(),
        ),
        |ctx: ToolContext, args: GrepArgs| async move { grep_files(&ctx, args).await },
    )
    .with_dependencies(requirements())
    .with_tags(read_only())
    .with_return_schema(schema_for_type::<GrepOutput>());
    Arc::new(tool)
}

async fn grep_files(ctx: &ToolContext, args: GrepArgs) -> Result<ToolResult, ToolError> {
    let provider = environment(ctx)?;
    let root = normalized(&provider, args.path.as_deref().unwrap_or_default())?;
    let max_results = args
        .max_results
        .unwrap_or(DEFAULT_MAX_RESULTS)
        .clamp(1, MAX_RESULTS_CAP);
    let mut options = GrepOptions::default()
        .with_root(root)
        .with_case_insensitive(args.case_insensitive)
        .with_fixed_strings(args.literal)
        .with_max_matches(max_results)
        .with_context_lines(args.context_lines.unwrap_or(0).min(MAX_CONTEXT_LINES));
    options.glob = args.glob.clone();
    options.max_output_bytes = MAX_OUTPUT_BYTES;
    options.include_hidden = args.include_hidden;
    let report = grep(provider.as_ref(), &args.pattern, &options)
        .await
        .map_err(search_error)?;
    let reminder = skill_reminder(report.matches.iter().map(|found| found.path.as_str()));
    let hidden_glob = args.glob.as_deref().is_some_and(names_hidden);
    let hint = if report.truncated && report.matches.len() < max_results {
        Some(format!(
            "the output reached its size limit ({} KiB) after {} matching lines; narrow the \
             pattern, path or glob, or ask for fewer context_lines",
            options.max_output_bytes / 1024,
            report.matches.len()
        ))
    } else if report.truncated {
        Some(format!(
            "only the first {max_results} matching lines are shown; narrow the pattern, path or glob"
        ))
    } else if report.matches.is_empty() && !args.include_hidden && hidden_glob {
        Some("the glob names a hidden path; set include_hidden to true to search it".to_string())
    } else {
        None
    };
    let hint = join_hints([
        hint,
        unreadable_hint(report.unreadable, &report.unreadable_paths),
    ]);
    let matches: Vec<GrepLine> = report
        .matches
        .into_iter()
        .map(|found| GrepLine {
            path: found.path,
            line_number: found.line_number,
            line: found.line,
            before: found.before,
            after: found.after,
        })
        .collect();
    ToolResult::from_serialize(&GrepOutput {
        count: matches.len(),
        matches,
        truncated: report.truncated,
        files_searched: report.files_searched,
        binary_files_skipped: report.binary_files_skipped,
        large_files_skipped: report.large_files_skipped,
        unreadable: report.unreadable,
        unreadable_paths: report.unreadable_paths,
        reminder,
        hint,
    })
}
