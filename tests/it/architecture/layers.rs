//! The core's layers import only downwards.

use std::collections::BTreeSet;
use std::path::Path;

use syn::visit::Visit;

use crate::common::sources::rust_files;

/// Lowest first. A module may import from its own layer and those below.
const LAYERS: &[&[&str]] = &[
    &["bounds", "schedule"],
    &["model"],
    &["context"],
    &["tools"],
    &["toolsets"],
    &["catalog", "macro_support"],
    &["environment"],
    &["skills"],
    &["bundles"],
    &["agent"],
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
