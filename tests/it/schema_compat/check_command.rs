//! `starweaver check` reads tool definitions for `schema-compat` from `--catalog FILE` and,
//! for an application's own checker, from the tools linked into the binary.

use std::sync::Arc;

use serde_json::json;
use starweaver::cli::check::{run_check, CheckArgs};
use starweaver::config::diagnostics::{Diagnostic, Rule, Severity};
use starweaver::{catalog, string_tool, ToolResult};

const MANIFEST: &str = "version: 1\nname: picky\nmodel:\n  id: anthropic:claude-sonnet-4-5\ntoolsets:\n  - type: tools\n    name: app\n    tools: [TOOL]\n";

fn schema_compat(args: &CheckArgs) -> Vec<Diagnostic> {
    let outcome = run_check(args);
    assert!(outcome.stderr.is_empty(), "{}", outcome.stderr);
    outcome
        .reports
        .into_iter()
        .flat_map(|report| report.diagnostics)
        .filter(|diagnostic| diagnostic.rule == Rule::SchemaCompat)
        .collect()
}

#[test]
fn a_catalog_file_gives_the_check_its_tools_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("agent.yaml");
    std::fs::write(&manifest, MANIFEST.replace("TOOL", "pick")).unwrap();
    let catalog = dir.path().join("tools.json");
    std::fs::write(
        &catalog,
        json!({"version": 1, "tools": [{"name": "pick", "parameters": {"type": "array"}}]})
            .to_string(),
    )
    .unwrap();
    let found = schema_compat(&CheckArgs {
        paths: vec![manifest],
        catalog: Some(catalog),
        ..CheckArgs::default()
    });
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].severity, Severity::Error);
    assert_eq!(
        (found[0].span.start.line, found[0].span.start.column),
        (8, 13)
    );
    assert!(
        found[0]
            .message
            .starts_with("Anthropic cannot take tool `pick`, so the run would leave it out"),
        "{}",
        found[0].message
    );
    assert!(found[0]
        .help
        .as_deref()
        .unwrap()
        .contains("make the arguments a struct"));
}

#[test]
fn the_linked_catalog_gives_the_check_its_tools_schemas() {
    catalog::register(Arc::new(string_tool(
        "schema_compat_bare_string",
        None,
        json!({"type": "string"}),
        |_ctx, args| async move { Ok(ToolResult::new(args)) },
    )));
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("agent.yaml");
    std::fs::write(
        &manifest,
        MANIFEST.replace("TOOL", "schema_compat_bare_string"),
    )
    .unwrap();
    let linked = schema_compat(&CheckArgs {
        paths: vec![manifest.clone()],
        linked_catalog: true,
        ..CheckArgs::default()
    });
    assert_eq!(linked.len(), 1, "{linked:#?}");
    // Without a catalog the checker knows no code tool's schema, so it says nothing.
    let unknown = schema_compat(&CheckArgs {
        paths: vec![manifest],
        ..CheckArgs::default()
    });
    assert!(unknown.is_empty(), "{unknown:#?}");
}
