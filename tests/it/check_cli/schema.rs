//! `starweaver schema`: the committed schema matches the generated one, and a catalog
//! restricts tool names.

use std::path::Path;

use starweaver::config::check::{manifest_schema, SCHEMA_DIALECT};

use super::{folder, run, stdout};

fn committed_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/agent.schema.json")
}

/// Regenerate with `UPDATE_SCHEMA=1 cargo test --test it check_cli::schema`.
#[test]
fn the_committed_schema_is_the_generated_one() {
    let dir = folder(&[]);
    let output = run(dir.path(), &["schema"]);
    assert_eq!(output.status.code(), Some(0));
    let generated = stdout(&output);
    let parsed: serde_json::Value = serde_json::from_str(&generated).unwrap();
    assert_eq!(parsed, manifest_schema(None));
    assert_eq!(parsed["$schema"], SCHEMA_DIALECT);
    assert!(parsed["properties"]["toolsets"].is_object());
    let path = committed_path();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "schema/agent.schema.json is stale: run UPDATE_SCHEMA=1 cargo test --test it check_cli::schema"
    );
}

#[test]
fn a_catalog_adds_its_tool_names_as_an_enum() {
    let dir = folder(&[(
        "catalog.json",
        br#"{"version": 1, "tools": [{"name": "weather"}, {"name": "lookup"}], "conflicts": []}"#,
    )]);
    let output = run(dir.path(), &["schema", "--catalog", "catalog.json"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let variants = schema["properties"]["toolsets"]["items"]["oneOf"]
        .as_array()
        .or_else(|| schema["properties"]["toolsets"]["items"]["anyOf"].as_array())
        .unwrap();
    let mut restricted = Vec::new();
    for variant in variants {
        if let Some(names) = variant["properties"]["tools"]["items"].get("enum") {
            let kind = variant["properties"]["type"]["const"].clone();
            let names = names.as_array().unwrap();
            assert_eq!(
                names[..2],
                [serde_json::json!("lookup"), serde_json::json!("weather")]
            );
            // A deferred set may name first-party tools as well.
            let first_party = names.contains(&serde_json::json!("edit_file"));
            assert_eq!(first_party, kind == "deferred", "{kind}: {names:?}");
            restricted.push(kind);
        }
    }
    assert_eq!(
        restricted,
        [serde_json::json!("tools"), serde_json::json!("deferred")]
    );
    let output = run(dir.path(), &["schema", "--catalog", "missing.json"]);
    assert_eq!(output.status.code(), Some(2));
}
