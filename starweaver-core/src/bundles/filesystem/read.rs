//! `read_file`: a text file, whole or a window of lines.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{read_only, requirements, FilesystemOptions};
use crate::bundles::environment::{environment, environment_error, normalized, too_large};
use crate::environment::{as_text, EnvironmentError};
use crate::tools::ToolContext;
use crate::tools::{schema_for_type, typed_tool, DynTool, ToolError, ToolResult};

/// Name of the file-reading tool.
pub const READ_FILE_TOOL_NAME: &str = "read_file";

/// Lines returned when no `limit` is given.
const DEFAULT_LIMIT: usize = 2_000;
/// At most this much content per call, whatever the limit, so one read
/// cannot flood the model's context. Below the registry's return limit
/// (256 KiB by default) with room for JSON escapes, so a full read comes
/// back whole, with `next_offset`, rather than cut by the registry.
const MAX_CONTENT_BYTES: usize = 192 * 1024;

/// Arguments of `read_file`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// File to read, relative to the environment root.
    #[serde(alias = "file_path")]
    pub path: String,
    /// First line to return, 1-based (default 1).
    #[serde(default)]
    pub offset: Option<usize>,
    /// Maximum number of lines to return, at least 1 (default 2000).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// What `read_file` returns.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct ReadFileOutput {
    /// The file read (root-relative).
    path: String,
    /// The requested lines, line endings kept.
    content: String,
    /// 1-based number of the first returned line.
    start_line: usize,
    /// Number of lines returned.
    lines_returned: usize,
    /// Number of lines in the whole file.
    total_lines: usize,
    /// True when lines after the returned ones exist.
    truncated: bool,
    /// Offset to continue reading from, when truncated.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_offset: Option<usize>,
    /// Present when a single line was too long and was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

pub(super) fn read_file_tool(options: FilesystemOptions) -> DynTool {
    let tool = typed_tool::<ReadFileArgs, _, _>(
        READ_FILE_TOOL_NAME,
        Some(
            "Read a UTF-8 text file from the environment. Returns up to `limit` lines (default \
             2000) starting at the 1-based line `offset`, plus the file's total line count; \
             read the rest with `next_offset` when `truncated` is true. Binary files are refused."
                .to_string(),
        ),
        move |ctx: ToolContext, args: ReadFileArgs| async move { read_file(&ctx, args, options).await },
    )
    .with_dependencies(requirements())
    .with_tags(read_only())
    .with_return_schema(schema_for_type::<ReadFileOutput>());
    Arc::new(tool)
}

async fn read_file(
    ctx: &ToolContext,
    args: ReadFileArgs,
    options: FilesystemOptions,
) -> Result<ToolResult, ToolError> {
    let provider = environment(ctx)?;
    let path = normalized(&provider, &args.path)?;
    if args.limit == Some(0) {
        // Zero lines would return a `next_offset` that never advances.
        return Err(ToolError::model_retry(format!(
            "limit must be at least 1; omit it to read up to {DEFAULT_LIMIT} lines"
        )));
    }
    let entry = provider.stat(&path).await.map_err(environment_error)?;
    if entry.is_dir() {
        return Err(environment_error(EnvironmentError::IsADirectory { path }));
    }
    // The whole file is loaded to split lines, so its size is bounded.
    if entry.size > options.max_file_bytes {
        return Err(too_large(
            &path,
            entry.size,
            options.max_file_bytes,
            "use grep to find the lines you need",
        ));
    }
    // Bounded again while reading: a link's `stat` does not tell its
    // target's size.
    let bytes = provider
        .read_bytes_up_to(&path, options.max_file_bytes)
        .await
        .map_err(environment_error)?;
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read > options.max_file_bytes {
        return Err(too_large(
            &path,
            read,
            options.max_file_bytes,
            "use grep to find the lines you need",
        ));
    }
    let text = match as_text(&bytes) {
        Some(text) => text,
        None => {
            return Err(ToolError::Feedback {
                message: format!(
                    "`{path}` is a binary file ({} bytes); read_file returns text only",
                    bytes.len()
                ),
                details: Some(serde_json::json!({"error": "binary", "path": path})),
            })
        }
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total_lines = lines.len();
    let start_line = args.offset.unwrap_or(1).max(1);
    if start_line > total_lines.max(1) {
        return Err(ToolError::model_retry(format!(
            "offset {start_line} is past the end of `{path}`, which has {total_lines} lines; use \
             an offset between 1 and {}",
            total_lines.max(1)
        )));
    }
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    let mut content = String::new();
    let mut lines_returned = 0;
    let mut note = None;
    for line in lines.iter().skip(start_line - 1).take(limit) {
        if content.len() + line.len() <= MAX_CONTENT_BYTES {
            content.push_str(line);
        } else if lines_returned == 0 {
            // One huge line (minified code, a data dump): its head only.
            let mut cut = MAX_CONTENT_BYTES;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            content.push_str(&line[..cut]);
            note = Some(format!(
                "line {start_line} has {} bytes; only its first {cut} are shown",
                line.len()
            ));
        } else {
            break;
        }
        lines_returned += 1;
    }
    let next = start_line - 1 + lines_returned;
    let truncated = next < total_lines;
    ToolResult::from_serialize(&ReadFileOutput {
        path,
        content,
        start_line,
        lines_returned,
        total_lines,
        truncated,
        next_offset: truncated.then_some(next + 1),
        note,
    })
}
