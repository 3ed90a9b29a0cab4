//! `edit_file`: replace exact text in a file.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::environment::{environment, environment_error, normalized, write_error};
use super::lock::lock_path;
use super::{mutating, requirements};
use crate::tools::{schema_for_type, typed_tool, DynTool, ToolError, ToolResult};
use crate::ToolContext;

/// Name of the file-editing tool.
pub const EDIT_FILE_TOOL_NAME: &str = "edit_file";

/// Line numbers named in a "not unique" error.
const NAMED_LINES: usize = 10;

/// Arguments of `edit_file`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct EditFileArgs {
    /// File to edit, relative to the environment root.
    #[serde(alias = "file_path")]
    pub path: String,
    /// Exact text to replace, including whitespace and indentation. It
    /// must occur exactly once unless `replace_all` is true.
    pub old_string: String,
    /// Replacement text.
    pub new_string: String,
    /// Replace every occurrence instead of requiring a unique one.
    #[serde(default)]
    pub replace_all: bool,
}

/// What `edit_file` returns.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct EditFileOutput {
    /// The file edited (root-relative).
    path: String,
    /// Occurrences replaced.
    replacements: usize,
    /// 1-based line where the first replacement starts.
    first_line: usize,
}

pub(super) fn edit_file_tool() -> DynTool {
    let tool = typed_tool::<EditFileArgs, _, _>(
        EDIT_FILE_TOOL_NAME,
        Some(
            "Replace exact text in a text file of the environment. `old_string` must match the \
             file exactly (read the file first) and occur once, unless `replace_all` is true. \
             Use write_file to create files."
                .to_string(),
        ),
        |ctx: ToolContext, args: EditFileArgs| async move { edit_file(&ctx, args).await },
    )
    .with_dependencies(requirements())
    .with_tags(mutating())
    .with_sequential(true)
    .with_return_schema(schema_for_type::<EditFileOutput>());
    Arc::new(tool)
}

async fn edit_file(ctx: &ToolContext, args: EditFileArgs) -> Result<ToolResult, ToolError> {
    let provider = environment(ctx)?;
    let path = normalized(&args.path)?;
    if args.old_string.is_empty() {
        return Err(ToolError::model_retry(format!(
            "old_string is empty; copy the exact text to replace from `{path}`, or use \
             write_file to create or replace the whole file"
        )));
    }
    if args.old_string == args.new_string {
        return Err(ToolError::model_retry(
            "old_string and new_string are identical, so nothing would change; send the text you \
             want in new_string",
        ));
    }
    // Held from read to write, so concurrent edits in this process
    // cannot drop each other's changes.
    let _guard = lock_path(&provider, &path).await;
    let content = provider.read_text(&path).await.map_err(environment_error)?;
    let (old, new) = match_line_endings(&content, &args.old_string, &args.new_string);
    let offsets: Vec<usize> = content
        .match_indices(old.as_str())
        .map(|(at, _)| at)
        .collect();
    let Some(&first) = offsets.first() else {
        return Err(ToolError::model_retry(format!(
            "old_string was not found in `{path}`; read the file again and copy the text exactly, \
             including whitespace, indentation and line breaks"
        )));
    };
    if offsets.len() > 1 && !args.replace_all {
        let mut lines: Vec<String> = offsets
            .iter()
            .take(NAMED_LINES)
            .map(|&at| line_of(&content, at).to_string())
            .collect();
        if offsets.len() > NAMED_LINES {
            lines.push("...".to_string());
        }
        return Err(ToolError::model_retry(format!(
            "old_string occurs {} times in `{path}` (lines {}); include more surrounding lines to \
             make it unique, or set replace_all to true to replace every occurrence",
            offsets.len(),
            lines.join(", ")
        )));
    }
    let updated = if args.replace_all {
        content.replace(old.as_str(), &new)
    } else {
        content.replacen(old.as_str(), &new, 1)
    };
    provider
        .write_text(&path, &updated)
        .await
        .map_err(write_error)?;
    ToolResult::from_serialize(&EditFileOutput {
        first_line: line_of(&content, first),
        replacements: if args.replace_all { offsets.len() } else { 1 },
        path,
    })
}

/// Models usually send `\n` line breaks. When the text is absent as
/// given but present with `\r\n`, `old` switches to `\r\n`; and in a file
/// that uses CRLF, `new` always does (an insertion after a one-line
/// `old` included), so the file keeps its line endings.
fn match_line_endings(content: &str, old: &str, new: &str) -> (String, String) {
    let crlf = |text: &str| text.replace("\r\n", "\n").replace('\n', "\r\n");
    let mut old = old.to_string();
    let plain_newlines = old.contains('\n') && !old.contains("\r\n");
    if plain_newlines && content.contains("\r\n") && !content.contains(&old) {
        let old_crlf = crlf(&old);
        if content.contains(&old_crlf) {
            old = old_crlf;
        }
    }
    let new = if uses_crlf(content) {
        crlf(new)
    } else {
        new.to_string()
    };
    (old, new)
}

/// True when the file's first line ends with `\r\n`, as editors decide.
fn uses_crlf(content: &str) -> bool {
    content
        .find('\n')
        .is_some_and(|at| content[..at].ends_with('\r'))
}

/// 1-based line number of a byte offset.
fn line_of(content: &str, offset: usize) -> usize {
    content[..offset].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_files_match_lf_edits() {
        let (old, new) = match_line_endings("a\r\nb\r\nc", "a\nb", "x\ny");
        assert_eq!((old.as_str(), new.as_str()), ("a\r\nb", "x\r\ny"));
        let (old, _) = match_line_endings("a\nb", "a\nb", "z");
        assert_eq!(old, "a\nb");
        // A one-line old string, a multi-line new one; `\r\n` kept once.
        let (old, new) = match_line_endings("a\r\nb\r\n", "a", "a\nx\r\ny");
        assert_eq!((old.as_str(), new.as_str()), ("a", "a\r\nx\r\ny"));
        let (_, new) = match_line_endings("a\nb\r\n", "a", "a\nx");
        assert_eq!(new, "a\nx");
        assert_eq!(line_of("a\nb\nc", 4), 3);
    }
}
