//! `ls`: the direct children of one directory.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::reminder::skill_reminder;
use super::{read_only, requirements};
use crate::bundles::environment::{environment, normalized, search_error};
use crate::environment::{walk, EntryKind, WalkOptions};
use crate::tools::ToolContext;
use crate::tools::{schema_for_type, typed_tool, DynTool, ToolError, ToolResult};

/// Name of the directory-listing tool.
pub const LS_TOOL_NAME: &str = "ls";

/// Entries beyond this are left out (and `truncated` is set).
const MAX_ENTRIES: usize = 1_000;

/// Arguments of `ls`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
// A misspelled argument is an `invalid_arguments` return naming it,
// not silently dropped.
#[serde(deny_unknown_fields)]
pub struct LsArgs {
    /// Directory to list, relative to the environment root; omit or use
    /// "" for the root.
    #[serde(default, alias = "dir", alias = "directory")]
    pub path: Option<String>,
}

/// One listed entry.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct LsEntry {
    /// Entry name; directories end with `/`.
    name: String,
    /// Root-relative path to pass to other tools.
    path: String,
    /// `file`, `directory` or `symlink`.
    kind: String,
    /// Size in bytes (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
}

/// What `ls` returns.
#[derive(Clone, Debug, Serialize, JsonSchema)]
struct LsOutput {
    /// The listed directory (root-relative).
    path: String,
    /// Children sorted by name.
    entries: Vec<LsEntry>,
    /// Number of children, including any left out.
    total: usize,
    /// True when entries were left out.
    truncated: bool,
    /// Present when a SKILL.md is listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    reminder: Option<String>,
}

pub(super) fn ls_tool() -> DynTool {
    let tool = typed_tool::<LsArgs, _, _>(
        LS_TOOL_NAME,
        Some(
            "List the direct children of a directory in the environment (hidden and ignored \
             entries included). Directories end with `/`; files show their size in bytes."
                .to_string(),
        ),
        |ctx: ToolContext, args: LsArgs| async move { ls(&ctx, args).await },
    )
    .with_dependencies(requirements())
    .with_tags(read_only())
    .with_return_schema(schema_for_type::<LsOutput>());
    Arc::new(tool)
}

async fn ls(ctx: &ToolContext, args: LsArgs) -> Result<ToolResult, ToolError> {
    let provider = environment(ctx)?;
    let path = normalized(&provider, args.path.as_deref().unwrap_or_default())?;
    // A one-level walk with no filters: the listing, with the root
    // checks every search makes (a symlink is refused, not listed
    // through to a target that may be outside the environment).
    let everything = WalkOptions {
        include_hidden: true,
        respect_ignore: false,
        max_depth: Some(1),
        max_entries: None,
    };
    let children = walk(provider.as_ref(), &path, &everything)
        .await
        .map_err(search_error)?;
    let total = children.len();
    let reminder = skill_reminder(
        children
            .iter()
            .take(MAX_ENTRIES)
            .filter(|entry| entry.is_file())
            .map(|entry| entry.path.as_str()),
    );
    let entries = children
        .into_iter()
        .take(MAX_ENTRIES)
        .map(|entry| LsEntry {
            name: if entry.is_dir() {
                format!("{}/", entry.name)
            } else {
                entry.name.clone()
            },
            size: entry.is_file().then_some(entry.size),
            kind: kind_name(entry.kind).to_string(),
            path: entry.path,
        })
        .collect();
    ToolResult::from_serialize(&LsOutput {
        path,
        entries,
        total,
        truncated: total > MAX_ENTRIES,
        reminder,
    })
}

/// The kind as the model sees it.
fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::File => "file",
        EntryKind::Directory => "directory",
        EntryKind::Symlink => "symlink",
    }
}
