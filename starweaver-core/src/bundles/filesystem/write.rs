//! `write_file`: create or replace a text file.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::lock::lock_path;
use super::{mutating, requirements, FilesystemOptions};
use crate::bundles::environment::{
    environment, environment_error, normalized, too_large, write_error,
};
use crate::environment::{is_text, EnvironmentError};
use crate::tools::ToolContext;
use crate::tools::{schema_for_type, typed_tool, DynTool, ToolError, ToolResult};

/// Name of the file-writing tool.
pub const WRITE_FILE_TOOL_NAME: &str = "write_file";

/// Arguments of `write_file`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// File to write, relative to the environment root. Missing parent
    /// directories are created.
    #[serde(alias = "file_path")]
    pub path: String,
    /// The complete new content of the file.
    pub content: String,
}

/// What `write_file` returns.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct WriteFileOutput {
    /// The file written (root-relative).
    path: String,
    /// Bytes written.
    bytes_written: usize,
    /// True when the file did not exist before; false when it was
    /// overwritten.
    created: bool,
}

pub(super) fn write_file_tool(options: FilesystemOptions) -> DynTool {
    let tool = typed_tool::<WriteFileArgs, _, _>(
        WRITE_FILE_TOOL_NAME,
        Some(
            "Create a text file, or replace an existing file's whole content, in the \
             environment. Missing parent directories are created. To change part of an \
             existing file, prefer edit_file."
                .to_string(),
        ),
        move |ctx: ToolContext, args: WriteFileArgs| async move {
            write_file(&ctx, args, options).await
        },
    )
    .with_dependencies(requirements())
    .with_tags(mutating())
    // Reads in the same batch then see a predictable state.
    .with_sequential(true)
    // Not retried internally: an I/O error may follow a write that
    // landed, and the model should see it rather than a silent repeat.
    .with_return_schema(schema_for_type::<WriteFileOutput>());
    Arc::new(tool)
}

async fn write_file(
    ctx: &ToolContext,
    args: WriteFileArgs,
    options: FilesystemOptions,
) -> Result<ToolResult, ToolError> {
    let provider = environment(ctx)?;
    let path = normalized(&provider, &args.path)?;
    if !is_text(&args.content) {
        return Err(ToolError::model_retry(
            "content holds a NUL byte; the filesystem tools read and write text only",
        ));
    }
    let bytes = args.content.len() as u64;
    if bytes > options.max_file_bytes {
        return Err(too_large(
            &path,
            bytes,
            options.max_file_bytes,
            "write a smaller file, or split the content over several files",
        ));
    }
    // Not interleaved with an edit of the same file in this process.
    let _guard = lock_path(&provider, &path).await;
    let created = match provider.stat(&path).await {
        Ok(entry) if entry.is_dir() => {
            return Err(environment_error(EnvironmentError::IsADirectory { path }))
        }
        Ok(_) => false,
        Err(EnvironmentError::NotFound { .. }) => true,
        Err(error) => return Err(environment_error(error)),
    };
    provider
        .write_text(&path, &args.content)
        .await
        .map_err(write_error)?;
    ToolResult::from_serialize(&WriteFileOutput {
        path,
        bytes_written: args.content.len(),
        created,
    })
}
