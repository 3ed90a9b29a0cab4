//! `docs/manifest.md` is the generator's output (so it cannot drift from the types and the
//! schema), and every YAML example in it passes `check`, reads, and loads.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use starweaver::config::load::{load, LoadOptions};
use starweaver::config::reference::markdown;
use starweaver::config::validate::{check, check_manifest, CheckContext};
use starweaver::tools::DynTool;
use starweaver::{string_tool, StaticToolset, ToolResult};

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/manifest.md")
}

/// Regenerate with `UPDATE_DOCS=1 cargo test --test it manifest_reference`.
#[test]
fn the_committed_reference_is_the_generated_one() {
    let generated = markdown();
    let path = committed_path();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/manifest.md is stale: run UPDATE_DOCS=1 cargo test --test it manifest_reference"
    );
}

/// The fenced ```yaml blocks of a markdown text.
fn yaml_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim_end() == "```yaml" => current = Some(String::new()),
            Some(block) if line.trim_end() == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

/// The code tools the reference's examples name.
const EXAMPLE_TOOLS: [&str; 2] = ["lookup", "render_video"];

fn example_tool(name: &str) -> Option<DynTool> {
    EXAMPLE_TOOLS.contains(&name).then(|| {
        Arc::new(string_tool(
            name,
            Some(format!("The example tool {name}.")),
            json!({"type": "object", "properties": {}}),
            |_ctx, _args| async move { Ok(ToolResult::new(json!("ok"))) },
        )) as DynTool
    })
}

#[tokio::test]
async fn every_yaml_example_checks_clean_reads_and_loads() {
    let blocks = yaml_blocks(&markdown());
    assert!(
        blocks.len() >= 2,
        "expected the minimal and the full example"
    );
    let dir = tempfile::tempdir().unwrap();
    for block in &blocks {
        let context = CheckContext::new()
            .with_catalog(EXAMPLE_TOOLS)
            .with_base_dir(dir.path());
        let found = check(block.as_bytes(), &context);
        assert!(found.is_empty(), "{found:#?}\nin:\n{block}");
        let (_, checked) = check_manifest(block.as_bytes(), &context);
        let checked = checked.unwrap();
        // An MCP server's toolset is a stand-in by its name: loading starts no server.
        let options = LoadOptions::new()
            .with_tools(example_tool)
            .with_mcp(|spec, _| Ok(Arc::new(StaticToolset::new(spec.name.clone()))));
        let loaded = load(&checked, &options).await.unwrap();
        assert!(loaded.instructions.is_some() || checked.manifest().instructions.is_none());
    }
    let context = CheckContext::new()
        .with_catalog(EXAMPLE_TOOLS)
        .with_base_dir(dir.path());
    let (_, full) = check_manifest(blocks.last().unwrap().as_bytes(), &context);
    assert_eq!(
        full.unwrap().manifest().toolsets.len(),
        8,
        "the full example shows every toolset type"
    );
}

/// The README's manifest is real: it checks clean as if it sat in `agents/`.
#[test]
fn the_readme_manifest_checks_clean() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let blocks = yaml_blocks(&readme);
    assert!(!blocks.is_empty(), "the README shows a manifest");
    for block in &blocks {
        let context = CheckContext::new().with_base_dir(root.join("agents"));
        let found = check(block.as_bytes(), &context);
        assert!(found.is_empty(), "{found:#?}\nin:\n{block}");
    }
}
