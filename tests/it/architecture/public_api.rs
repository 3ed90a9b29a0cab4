//! The facade's public surface, as a committed list (`tests/public_api.txt`):
//! a change of surface is a visible diff in review. The list is built from
//! the source with `syn` (rustdoc's JSON output needs a nightly compiler).
//! Regenerate it with
//! `UPDATE_PUBLIC_API=1 cargo test --test it public_api`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// A public item: its name and what it is.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Item {
    name: String,
    kind: &'static str,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The file of a core module (`["tools"]` is `tools/mod.rs`).
fn module_file(module: &[String]) -> PathBuf {
    let src = root().join("starweaver-core/src");
    if module.is_empty() {
        return src.join("lib.rs");
    }
    let joined = module.join("/");
    let flat = src.join(format!("{joined}.rs"));
    if flat.exists() {
        flat
    } else {
        src.join(joined).join("mod.rs")
    }
}

fn is_pub(visibility: &syn::Visibility) -> bool {
    matches!(visibility, syn::Visibility::Public(_))
}

type Items = BTreeMap<String, Item>;

thread_local! {
    /// Modules already resolved: each core file is parsed once.
    static RESOLVED: std::cell::RefCell<BTreeMap<Vec<String>, Items>> =
        const { std::cell::RefCell::new(BTreeMap::new()) };
}

/// Every public item a core module exposes, by name, with re-exports
/// followed to where the item is defined. (Items made by a macro, such
/// as the id types, are listed as `item`.)
fn module_items(module: &[String], seen: &mut BTreeSet<Vec<String>>) -> Items {
    if let Some(items) = RESOLVED.with(|resolved| resolved.borrow().get(module).cloned()) {
        return items;
    }
    let mut items = BTreeMap::new();
    if !seen.insert(module.to_vec()) {
        return items;
    }
    // Another crate (the macros, serde): listed by name, not followed.
    let Ok(text) = std::fs::read_to_string(module_file(module)) else {
        return items;
    };
    let file = syn::parse_file(&text).unwrap();
    for item in &file.items {
        let (visibility, ident, kind) = match item {
            syn::Item::Struct(item) => (&item.vis, &item.ident, "struct"),
            syn::Item::Enum(item) => (&item.vis, &item.ident, "enum"),
            syn::Item::Fn(item) => (&item.vis, &item.sig.ident, "fn"),
            syn::Item::Trait(item) => (&item.vis, &item.ident, "trait"),
            syn::Item::Type(item) => (&item.vis, &item.ident, "type"),
            syn::Item::Const(item) => (&item.vis, &item.ident, "const"),
            syn::Item::Static(item) => (&item.vis, &item.ident, "static"),
            syn::Item::Use(item) if is_pub(&item.vis) => {
                reexports(module, &item.tree, &mut Vec::new(), &mut items, seen);
                continue;
            }
            _ => continue,
        };
        if is_pub(visibility) {
            let name = ident.to_string();
            items.insert(name.clone(), Item { name, kind });
        }
    }
    RESOLVED.with(|resolved| resolved.borrow_mut().insert(module.to_vec(), items.clone()));
    items
}

/// Resolves one `pub use` tree of `module` into `items`.
fn reexports(
    module: &[String],
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    items: &mut BTreeMap<String, Item>,
    seen: &mut BTreeSet<Vec<String>>,
) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            reexports(module, &path.tree, prefix, items, seen);
            prefix.pop();
        }
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                reexports(module, tree, prefix, items, seen);
            }
        }
        syn::UseTree::Name(name) => {
            let target = resolve(module, prefix);
            let name = name.ident.to_string();
            let found = module_items(&target, &mut seen.clone());
            let kind = found.get(&name).map_or("item", |item| item.kind);
            items.insert(name.clone(), Item { name, kind });
        }
        syn::UseTree::Rename(rename) => {
            let target = resolve(module, prefix);
            let found = module_items(&target, &mut seen.clone());
            let kind = found
                .get(&rename.ident.to_string())
                .map_or("item", |item| item.kind);
            let name = rename.rename.to_string();
            items.insert(name.clone(), Item { name, kind });
        }
        syn::UseTree::Glob(_) => {
            let target = resolve(module, prefix);
            items.extend(module_items(&target, seen));
        }
    }
}

/// A `use` path of `module` as an absolute core module path.
fn resolve(module: &[String], path: &[String]) -> Vec<String> {
    let mut absolute = module.to_vec();
    for (index, segment) in path.iter().enumerate() {
        match segment.as_str() {
            "crate" if index == 0 => absolute.clear(),
            "starweaver_core" if index == 0 => absolute.clear(),
            "super" => {
                absolute.pop();
            }
            "self" => {}
            other => absolute.push(other.to_string()),
        }
    }
    absolute
}

fn quote_tokens(attr: &syn::Attribute) -> String {
    match &attr.meta {
        syn::Meta::List(list) => list.tokens.to_string(),
        _ => String::new(),
    }
}

/// `starweaver::path::Name (kind)` for every public path of the facade.
fn facade_paths() -> Vec<(String, Item)> {
    let text = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let file = syn::parse_file(&text).unwrap();
    let mut paths = Vec::new();
    let mut collect = |scope: &str, items: &[syn::Item]| {
        for item in items {
            let syn::Item::Use(item) = item else { continue };
            if !is_pub(&item.vis) {
                continue;
            }
            let mut found = BTreeMap::new();
            reexports(
                &[],
                &item.tree,
                &mut Vec::new(),
                &mut found,
                &mut BTreeSet::new(),
            );
            for (name, item) in found {
                paths.push((format!("{scope}{name}"), item));
            }
        }
    };
    collect("starweaver::", &file.items);
    for item in &file.items {
        if let syn::Item::Mod(module) = item {
            // `__private` is the macro expansion's, hidden from users.
            let hidden = module
                .attrs
                .iter()
                .any(|attr| attr.path().is_ident("doc") && quote_tokens(attr).contains("hidden"));
            if hidden {
                continue;
            }
            if let (true, Some((_, items))) = (is_pub(&module.vis), &module.content) {
                collect(&format!("starweaver::{}::", module.ident), items);
            }
        }
    }
    paths.sort();
    paths
}

#[test]
fn the_public_api_matches_the_committed_list() {
    let paths = facade_paths();
    // The manifest crate is re-exported whole as `config` (a placeholder
    // today); it is not part of the core's surface.
    let paths: Vec<_> = paths
        .into_iter()
        .filter(|(path, _)| path != "starweaver::config")
        .collect();
    let listing: String = paths
        .iter()
        .map(|(path, item)| format!("{path} ({})\n", item.kind))
        .collect();
    let committed = root().join("tests/public_api.txt");
    if std::env::var_os("UPDATE_PUBLIC_API").is_some() {
        std::fs::write(&committed, &listing).unwrap();
    }
    let expected = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(
        listing == expected,
        "the facade's public API changed; review the difference and run \
         `UPDATE_PUBLIC_API=1 cargo test --test it public_api` to accept it.\n{}",
        diff(&expected, &listing)
    );
}

#[test]
fn every_item_has_at_most_two_paths() {
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, item) in facade_paths() {
        by_name.entry(item.name).or_default().push(path);
    }
    let crowded: Vec<String> = by_name
        .iter()
        .filter(|(_, paths)| paths.len() > 2)
        .map(|(name, paths)| format!("{name}: {}", paths.join(", ")))
        .collect();
    assert!(
        crowded.is_empty(),
        "items with more than two paths:\n{}",
        crowded.join("\n")
    );
    // The second path, when there is one, is the item's layer module.
    for (name, paths) in &by_name {
        let modules: BTreeSet<&str> = paths
            .iter()
            .filter_map(|path| path.strip_prefix("starweaver::")?.split_once("::"))
            .map(|(module, _)| module)
            .collect();
        assert!(
            modules.len() <= 1,
            "{name} is in several modules: {paths:?}"
        );
    }
}

/// Lines only in one of the two listings.
fn diff(expected: &str, actual: &str) -> String {
    let old: BTreeSet<&str> = expected.lines().collect();
    let new: BTreeSet<&str> = actual.lines().collect();
    let removed = old.difference(&new).map(|line| format!("- {line}"));
    let added = new.difference(&old).map(|line| format!("+ {line}"));
    removed.chain(added).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_listing_finds_known_items() {
    let paths = facade_paths();
    let has = |path: &str| paths.iter().any(|(known, _)| known == path);
    assert!(has("starweaver::ToolRegistry"));
    assert!(has("starweaver::tools::ToolRegistry"));
    assert!(has("starweaver::model::ToolCallPart"));
    assert!(has("starweaver::environment::VirtualEnvironmentProvider"));
    assert!(has("starweaver::attach_environment"));
    assert!(!has("starweaver::tools::ToolCallPart"));
}
