//! `ToolProxyToolset`: the `search_tools` / `call_tool` pair over wrapped
//! toolsets.

mod approvals;
mod calls;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use starweaver::{
    string_tool, DynToolset, StaticToolset, ToolContext, ToolInstruction, ToolResult,
};

use crate::common::toolsets::{failing_tool, never_available, tagged_echo};

/// The proxy's wrapped toolsets: `docs` (`lookup_docs`, with an
/// instruction) and `git` (`delete_branch` needing approval, a failing
/// `flaky_fetch` and a never available `secret_vault`).
fn proxy_inner(runs: Arc<AtomicU32>, failures: Arc<AtomicU32>) -> Vec<DynToolset> {
    let docs: DynToolset = Arc::new(
        StaticToolset::new("docs")
            .with_tool(tagged_echo(
                "lookup_docs",
                "Look up documentation by topic",
                "docs",
            ))
            .with_instruction(ToolInstruction::new("docs", "Cite the docs.")),
    );
    let approval = Arc::new(
        string_tool(
            "delete_branch",
            Some("Delete a git branch".to_string()),
            json!({"type": "object", "properties": {"branch": {"type": "string"}}, "required": ["branch"]}),
            move |_ctx: ToolContext, args: Value| {
                let runs = runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Ok(ToolResult::new(json!({"deleted": args["branch"]})))
                }
            },
        )
        .with_approval_required(true),
    );
    let git: DynToolset = Arc::new(
        StaticToolset::new("git")
            .with_tool(approval)
            .with_tool(failing_tool("flaky_fetch", failures))
            .with_tool(never_available(
                "secret_vault",
                "Open the secret vault of documentation",
            )),
    );
    vec![docs, git]
}
