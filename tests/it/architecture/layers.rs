//! The workspace's crates depend only downwards, and so do the core's
//! layers (its top-level modules) on each other.

use std::collections::BTreeSet;
use std::path::Path;

use syn::visit::Visit;

use crate::common::cargo;
use crate::common::sources::rust_files;

/// The workspace's crates by layer, lowest first. A crate may depend (in
/// any way: normal, dev or build) only on crates of lower layers; crates
/// in one layer, like the core and the macros, stand beside each other
/// and depend on neither. Every workspace member is listed: a new crate
/// takes its place here.
const CRATE_LAYERS: &[&[&str]] = &[
    &["starweaver-names"],
    &["starweaver-core", "starweaver-macros"],
    &[
        "starweaver-providers",
        "starweaver-mcp",
        "starweaver-store",
        "starweaver-trace",
    ],
    &["starweaver-config"],
    &["starweaver-cli"],
    &["starweaver"],
    &["starweaver-renamed-dependency", "starweaver-macro-ui"],
];

fn crate_level(name: &str) -> Option<usize> {
    CRATE_LAYERS.iter().position(|layer| layer.contains(&name))
}

/// What is wrong with `edges` (crate, the workspace crate it depends on):
/// a crate without a layer, or an edge sideways or upwards.
fn crate_problems(members: &[String], edges: &[(String, String)]) -> Vec<String> {
    let mut problems: Vec<String> = members
        .iter()
        .filter(|member| crate_level(member).is_none())
        .map(|member| format!("`{member}` has no layer; add it to CRATE_LAYERS"))
        .collect();
    for (from, to) in edges {
        let (Some(own), Some(theirs)) = (crate_level(from), crate_level(to)) else {
            continue;
        };
        if theirs >= own {
            let place = if theirs == own { "its own" } else { "a higher" };
            problems.push(format!(
                "`{from}` depends on `{to}`, a crate of {place} layer"
            ));
        }
    }
    problems
}

#[test]
fn crates_depend_only_downwards() {
    let metadata = cargo::metadata(&["--no-deps"]);
    let ids = metadata["workspace_members"].as_array().unwrap();
    let packages: Vec<&serde_json::Value> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|package| ids.contains(&package["id"]))
        .collect();
    let members: Vec<String> = packages
        .iter()
        .map(|package| package["name"].as_str().unwrap().to_string())
        .collect();
    assert!(members.len() >= 5, "{members:?}");
    let mut edges = Vec::new();
    for package in &packages {
        for dependency in package["dependencies"].as_array().unwrap() {
            // `name` is the package's own name, also under a rename.
            let name = dependency["name"].as_str().unwrap();
            if members.iter().any(|member| member == name) {
                edges.push((
                    package["name"].as_str().unwrap().to_string(),
                    name.to_string(),
                ));
            }
        }
    }
    assert!(
        edges
            .iter()
            .any(|(from, to)| from == "starweaver" && to == "starweaver-core"),
        "{edges:?}"
    );
    let problems = crate_problems(&members, &edges);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// The check itself: an upward edge, a sideways one and an unlisted crate
// are each caught.
#[test]
fn the_crate_check_catches_upward_sideways_and_unlisted_crates() {
    let edge = |from: &str, to: &str| (from.to_string(), to.to_string());
    let members = [
        "starweaver-core",
        "starweaver-macros",
        "starweaver-providers",
    ]
    .map(String::from);
    assert!(
        crate_problems(&members, &[edge("starweaver-providers", "starweaver-core")]).is_empty()
    );
    for bad in [
        edge("starweaver-core", "starweaver-providers"),
        edge("starweaver-core", "starweaver-macros"),
        edge("starweaver-config", "starweaver"),
    ] {
        assert_eq!(
            crate_problems(&members, std::slice::from_ref(&bad)).len(),
            1,
            "{bad:?}"
        );
    }
    let unlisted = ["starweaver-elsewhere".to_string()];
    assert_eq!(crate_problems(&unlisted, &[]).len(), 1);
}

/// Lowest first. A module may import from its own layer and those below.
const LAYERS: &[&[&str]] = &[
    &["bounds", "schedule", "telemetry"],
    &["model"],
    &["context"],
    &["tools"],
    &["toolsets"],
    &["catalog", "macro_support"],
    &["environment"],
    &["skills"],
    &["bundles"],
    &["agent", "runs"],
];

/// Items defined in the crate root itself (`lib.rs`).
const ROOT_ITEMS: &[&str] = &["BoxFuture", "JsonMap"];

fn level(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// Every `crate::first_segment` a file names, in `use` trees and paths.
#[derive(Default)]
struct CratePaths {
    first_segments: BTreeSet<String>,
}

impl CratePaths {
    fn use_tree(&mut self, tree: &syn::UseTree, after_crate: bool) {
        match tree {
            syn::UseTree::Path(path) if !after_crate && path.ident == "crate" => {
                self.use_tree(&path.tree, true);
            }
            syn::UseTree::Path(path) if after_crate => {
                self.first_segments.insert(path.ident.to_string());
            }
            syn::UseTree::Name(name) if after_crate => {
                self.first_segments.insert(name.ident.to_string());
            }
            syn::UseTree::Rename(rename) if after_crate => {
                self.first_segments.insert(rename.ident.to_string());
            }
            syn::UseTree::Group(group) => {
                for item in &group.items {
                    self.use_tree(item, after_crate);
                }
            }
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for CratePaths {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&item.tree, false);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let mut segments = path.segments.iter();
        if segments.next().is_some_and(|first| first.ident == "crate") {
            if let Some(second) = segments.next() {
                self.first_segments.insert(second.ident.to_string());
            }
        }
        syn::visit::visit_path(self, path);
    }
}

/// What is wrong with the imports of one file of `module`.
fn problems_in(file: &str, module: &str, text: &str) -> Vec<String> {
    let Some(own) = level(module) else {
        return vec![format!("{file}: module `{module}` has no layer")];
    };
    let syntax = syn::parse_file(text).unwrap();
    let mut paths = CratePaths::default();
    paths.visit_file(&syntax);
    let mut problems = Vec::new();
    for target in paths.first_segments {
        if ROOT_ITEMS.contains(&target.as_str()) {
            continue;
        }
        match level(&target) {
            None => problems.push(format!(
                "{file}: `crate::{target}` goes through the crate root; import it from the module that owns it"
            )),
            Some(theirs) if theirs > own => problems.push(format!(
                "{file}: layer `{module}` imports `crate::{target}`, a layer above it"
            )),
            Some(_) => {}
        }
    }
    problems
}

#[test]
fn core_layers_import_only_downwards() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("starweaver-core/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let module = relative
            .components()
            .next()
            .and_then(|first| first.as_os_str().to_str())
            .map(|first| first.trim_end_matches(".rs").to_string())
            .unwrap();
        if module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        problems.extend(problems_in(&relative.display().to_string(), &module, &text));
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// The check itself: each of the edges the layering removed is caught again.
#[test]
fn the_check_catches_upward_and_root_imports() {
    let cases = [
        ("toolsets", "use crate::agent::HITL_ARGUMENTS_METADATA_KEY;"),
        ("model", "use crate::tools::ToolDefinition;"),
        (
            "tools",
            "use crate::toolsets::{DynToolset, IntoDynToolset};",
        ),
        ("context", "fn f(_: crate::tools::ToolContext) {}"),
        ("agent", "use crate::{AgentContext, ToolContext};"),
    ];
    for (module, text) in cases {
        assert_eq!(
            problems_in("x.rs", module, text).len().min(1),
            1,
            "{module}: {text}"
        );
    }
    assert!(problems_in(
        "x.rs",
        "agent",
        "use crate::tools::ToolContext; use crate::JsonMap; use std::fmt;"
    )
    .is_empty());
}
