//! `edit_file`: replace exact text in a file.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::lock::lock_path;
use super::{mutating, requirements, FilesystemOptions};
use crate::bundles::environment::{
    environment, environment_error, normalized, too_large, write_error,
};
use crate::environment::{into_text, is_text, EnvironmentError};
use crate::tools::ToolContext;
use crate::tools::{schema_for_type, typed_tool, DynTool, ToolError, ToolResult};

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

pub(super) fn edit_file_tool(options: FilesystemOptions) -> DynTool {
    let tool = typed_tool::<EditFileArgs, _, _>(
        EDIT_FILE_TOOL_NAME,
        Some(
            "Replace exact text in a text file of the environment. `old_string` must match the \
             file exactly (read the file first) and occur once, unless `replace_all` is true. \
             Use write_file to create files."
                .to_string(),
        ),
        move |ctx: ToolContext, args: EditFileArgs| async move { edit_file(&ctx, args, options).await },
    )
    .with_dependencies(requirements())
    .with_tags(mutating())
    .with_sequential(true)
    .with_return_schema(schema_for_type::<EditFileOutput>());
    Arc::new(tool)
}

async fn edit_file(
    ctx: &ToolContext,
    args: EditFileArgs,
    options: FilesystemOptions,
) -> Result<ToolResult, ToolError> {
    let provider = environment(ctx)?;
    let path = normalized(&provider, &args.path)?;
    if args.old_string.is_empty() {
        return Err(ToolError::model_retry(format!(
            "old_string is empty; copy the exact text to replace from `{path}`, or use \
             write_file to create or replace the whole file"
        )));
    }
    if !is_text(&args.new_string) {
        return Err(ToolError::model_retry(
            "new_string holds a NUL byte; the filesystem tools read and write text only",
        ));
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
    let max = options.max_file_bytes;
    let entry = provider.stat(&path).await.map_err(environment_error)?;
    if entry.is_file() && entry.size > max {
        return Err(too_large(
            &path,
            entry.size,
            max,
            "edit_file loads the whole file, so it cannot edit this one",
        ));
    }
    let bytes = provider
        .read_bytes_up_to(&path, max)
        .await
        .map_err(environment_error)?;
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if read > max {
        return Err(too_large(
            &path,
            read,
            max,
            "edit_file loads the whole file, so it cannot edit this one",
        ));
    }
    let content = into_text(bytes)
        .ok_or_else(|| environment_error(EnvironmentError::NotText { path: path.clone() }))?;
    let (old, new) = match_line_endings(&content, &args.old_string, &args.new_string);
    // Counted, not collected: a one-byte `old` may occur millions of times.
    let mut count = 0usize;
    let mut offsets = Vec::new();
    for (at, _) in content.match_indices(old.as_str()) {
        count += 1;
        if offsets.len() < NAMED_LINES {
            offsets.push(at);
        }
    }
    let Some(&first) = offsets.first() else {
        return Err(ToolError::model_retry(format!(
            "old_string was not found in `{path}`; read the file again and copy the text exactly, \
             including whitespace, indentation and line breaks"
        )));
    };
    if count > 1 && !args.replace_all {
        let mut lines: Vec<String> = offsets
            .iter()
            .map(|&at| line_of(&content, at).to_string())
            .collect();
        if count > NAMED_LINES {
            lines.push("...".to_string());
        }
        return Err(ToolError::model_retry(format!(
            "old_string occurs {count} times in `{path}` (lines {}); include more surrounding \
             lines to make it unique, or set replace_all to true to replace every occurrence",
            lines.join(", ")
        )));
    }
    let replacements = if args.replace_all { count } else { 1 };
    // Checked before the new content is built: a short `old` replaced by
    // a long `new` everywhere can ask for gigabytes.
    let size = edited_size(content.len(), old.len(), new.len(), replacements);
    if size > max {
        return Err(too_large(
            &path,
            size,
            max,
            "replace fewer occurrences, or a shorter new_string",
        ));
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
        replacements,
        path,
    })
}

/// The file's size after `replacements` replacements of `old` bytes by
/// `new` bytes, without overflow.
fn edited_size(len: usize, old: usize, new: usize, replacements: usize) -> u64 {
    let wide = |value: usize| u128::try_from(value).unwrap_or(u128::MAX);
    let size = wide(len)
        .saturating_add(wide(new).saturating_mul(wide(replacements)))
        .saturating_sub(wide(old).saturating_mul(wide(replacements)));
    u64::try_from(size).unwrap_or(u64::MAX)
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

    #[test]
    fn edited_sizes_do_not_overflow() {
        assert_eq!(edited_size(10, 1, 3, 2), 14);
        assert_eq!(edited_size(10, 3, 1, 2), 6);
        assert_eq!(edited_size(usize::MAX, 0, usize::MAX, usize::MAX), u64::MAX);
    }
}
