//! The loader repeats no rule of the checker: every way loading can fail is something only
//! loading meets, and says so in words of its own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use starweaver_core::tools::{string_tool, DynTool, ToolResult};

use super::{load, LoadError, LoadOptions};
use crate::diagnostics::Rule;
use crate::validate::{check_manifest, CheckContext, Checked};

/// Names every variant, so a new one cannot be added without a sample below.
fn variant(error: &LoadError) -> &'static str {
    match error {
        LoadError::ProviderNotBuilt { .. } => "provider-not-built",
        LoadError::ModelNotGiven { .. } => "model-not-given",
        LoadError::Template { .. } => "template",
        LoadError::Environment { .. } => "environment",
        LoadError::ToolNotResolved { .. } => "tool-not-resolved",
        LoadError::Skills { .. } => "skills",
        LoadError::McpNotBuilt { .. } => "mcp-not-built",
        LoadError::HostVariable { .. } => "host-variable",
        LoadError::McpTransport { .. } => "mcp-transport",
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn checked(text: &str, context: &CheckContext) -> Checked {
    let (found, checked) = check_manifest(text.as_bytes(), context);
    checked.unwrap_or_else(|| panic!("does not check: {found:?}\n{text}"))
}

fn refused(checked: &Checked, options: &LoadOptions) -> LoadError {
    runtime()
        .block_on(load(checked, options))
        .expect_err("loads")
}

fn tool(name: &str) -> DynTool {
    Arc::new(string_tool(
        name,
        None,
        json!({"type": "object"}),
        |_, _| async { Ok(ToolResult::new(json!(null))) },
    ))
}

/// One error of every variant, each from a real load where loading can meet it.
fn every_variant(dir: &Path) -> Vec<LoadError> {
    let here = CheckContext::new().with_base_dir(dir);
    let head = "version: 1\nname: a\nmodel: {id: test}\n";
    // A host model id the check accepted, and no model given.
    let host = checked(
        "version: 1\nname: a\nmodel: {id: house}\n",
        &here.clone().with_model_ids(["house"]),
    );
    // A variable value the run gives that the template cannot use.
    let template = checked(
        &format!("{head}vars: {{n: 3}}\ninstructions: '{{{{ vars.n + 1 }}}}'\n"),
        &here,
    );
    // Folders that were there for the check and are gone when loading.
    std::fs::create_dir_all(dir.join("work/skills")).unwrap();
    let environment = checked(
        &format!("{head}environment: {{type: local, root: work}}\n"),
        &here,
    );
    let skills = checked(
        &format!(
            "{head}environment: {{type: local}}\nskills: {{scopes: [{{path: work/skills}}]}}\n"
        ),
        &here,
    );
    // A catalog tool the loader's resolver does not have.
    let tools = checked(
        &format!("{head}toolsets: [{{type: tools, name: g, tools: [lookup]}}]\n"),
        &here.clone().with_catalog(["lookup"]),
    );
    // An MCP server in a build without the client.
    #[cfg(not(feature = "mcp"))]
    let mcp = checked(
        &format!(
            "{head}toolsets: [{{type: mcp, name: everything, command: mcp-server-everything}}]\n"
        ),
        &here,
    );
    let found = vec![
        refused(&host, &LoadOptions::new()),
        #[cfg(not(feature = "mcp"))]
        refused(&mcp, &LoadOptions::new()),
        // With the client built, an MCP server always builds; made here.
        #[cfg(feature = "mcp")]
        LoadError::McpNotBuilt {
            name: "everything".to_string(),
        },
        // The checker refuses an entry with neither transport; a host building entries
        // itself meets it, in a build with the client (without it, every MCP entry is the
        // `McpNotBuilt` sampled above).
        #[cfg(feature = "mcp")]
        match super::mcp_toolset(
            &crate::manifest::McpToolsetSpec {
                name: "neither".into(),
                ..crate::manifest::McpToolsetSpec::default()
            },
            dir,
        ) {
            Err(error) => error,
            Ok(_) => panic!("an MCP toolset with no transport was built"),
        },
        // The client reads `env_from` when it builds the toolset; made here through the reader.
        super::host_values("everything", [("GITHUB_TOKEN", "GITHUB_TOKEN")], |_| None).unwrap_err(),
        refused(&template, &LoadOptions::new().with_var("n", "x")),
        refused(&tools, &LoadOptions::new().with_tools(|_| None)),
        {
            std::fs::remove_dir_all(dir.join("work/skills")).unwrap();
            refused(&skills, &LoadOptions::new())
        },
        {
            std::fs::remove_dir_all(dir.join("work")).unwrap();
            refused(&environment, &LoadOptions::new())
        },
        // Unreachable through the checker in one build (it refuses the id first), so made here.
        LoadError::ProviderNotBuilt {
            id: "openai:gpt-4o".to_string(),
            feature: "openai".to_string(),
        },
    ];
    // A code tool loads once the resolver has it: the failure is the resolver's, not a rule's.
    let loaded = runtime().block_on(load(
        &tools,
        &LoadOptions::new().with_tools(|n| Some(tool(n))),
    ));
    assert!(loaded.is_ok());
    found
}

/// An MCP toolset needs no environment, and a host that must start no server builds a stand-in
/// by its name, which a search and a proxy wrap like any toolset.
#[test]
fn mcp_toolsets_load_through_the_hosts_builder_and_sit_behind_search_and_proxy() {
    use starweaver_core::toolsets::StaticToolset;

    let dir = tempfile::tempdir().unwrap();
    let text = "version: 1\nname: a\nmodel: {id: test}\ntoolsets:
  - {type: mcp, name: ev, command: mcp-server-everything, cwd: sub, prefix: ev}
  - {type: mcp, name: time, command: mcp-server-time}
  - {type: mcp, name: docs, url: 'http://127.0.0.1:3001/mcp'}
  - {type: search, name: find, toolsets: [time]}
  - {type: proxy, name: remote, toolsets: [docs]}
";
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let checked = checked(text, &CheckContext::new().with_base_dir(dir.path()));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let options = LoadOptions::new().with_mcp(move |spec, base| {
        record
            .lock()
            .unwrap()
            .push((spec.name.clone(), spec.cwd_in(base)));
        Ok(Arc::new(StaticToolset::new(spec.name.clone())))
    });
    let loaded = runtime().block_on(load(&checked, &options)).unwrap();
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [
            ("ev".to_string(), dir.path().join("sub")),
            ("time".to_string(), dir.path().join(".")),
            ("docs".to_string(), dir.path().join(".")),
        ]
    );
    let kinds: Vec<(&str, &str, String)> = loaded
        .toolsets
        .iter()
        .map(|summary| {
            (
                summary.name.as_str(),
                summary.kind,
                format!("{:?}", summary.reach),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("ev", "mcp", "Direct".to_string()),
            ("time", "mcp", "Search(\"find\")".to_string()),
            ("docs", "mcp", "Proxy(\"remote\")".to_string()),
            ("find", "search", "Direct".to_string()),
            ("remote", "proxy", "Direct".to_string()),
        ]
    );
    assert!(loaded.environment_root.is_none());
}

/// Every message and help the checker gives for the manifests its corpus refuses.
fn checker_texts(dir: &Path) -> Vec<String> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut texts = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() > 50, "{}", files.len());
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let context = CheckContext::new()
            .with_file(&file)
            .with_catalog(["lookup"]);
        let (found, _) = check_manifest(&bytes, &context);
        for diagnostic in found {
            texts.push(diagnostic.message);
            texts.extend(diagnostic.help);
        }
    }
    // And for the settings loading once refused on its own.
    for body in [
        "model: {id: test, stream: false}",
        "model: {id: test, script: a.yaml}",
        "model: {id: script}",
        "environment: {type: virtual, root: x}",
        "toolsets: [{type: shell}]",
        "toolsets: [{type: proxy, name: p, toolsets: [ghost]}]",
    ] {
        let text = format!("version: 1\nname: a\n{body}\n");
        let text = if body.starts_with("model:") {
            text
        } else {
            text.replace("name: a\n", "name: a\nmodel: {id: test}\n")
        };
        let (found, checked) =
            check_manifest(text.as_bytes(), &CheckContext::new().with_base_dir(dir));
        assert!(checked.is_none(), "{text}");
        for diagnostic in found {
            texts.push(diagnostic.message);
            texts.extend(diagnostic.help);
        }
    }
    texts
}

#[test]
fn no_loader_error_carries_a_rule_message() {
    let dir = tempfile::tempdir().unwrap();
    let texts = checker_texts(dir.path());
    assert!(texts.len() > 100, "{}", texts.len());
    let errors = every_variant(dir.path());
    let mut seen: Vec<&str> = errors.iter().map(variant).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), errors.len(), "one sample per variant: {seen:?}");
    for error in &errors {
        let shown = error.to_string();
        for rule in Rule::ALL {
            let name = rule.as_str();
            for marked in [
                format!("[{name}]"),
                format!("`{name}`"),
                format!("rule {name}"),
            ] {
                assert!(
                    !shown.contains(&marked),
                    "{} names the rule `{name}`: {shown}",
                    variant(error)
                );
            }
        }
        for text in texts.iter().filter(|text| text.len() >= 16) {
            assert!(
                !shown.contains(text.as_str()) && !text.contains(shown.as_str()),
                "{} repeats the checker's `{text}`: {shown}",
                variant(error)
            );
        }
    }
}
