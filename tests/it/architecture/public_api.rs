//! The public surface of every crate, as the facade shows it, in a
//! committed list (`tests/public_api.txt`): a change of surface is a
//! visible diff in review. The list is built from the source with `syn`
//! (rustdoc's JSON output needs a nightly compiler), following re-exports
//! and public modules into the core, the providers, the manifest crate
//! (`config`) and the command-line library (`cli`), item by item.
//! Regenerate it with
//! `UPDATE_PUBLIC_API=1 cargo test --test it public_api`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// A public item: its name where it is defined (a re-export under
/// another name keeps it, so a second name counts as a second path) and
/// what it is (a re-exported module also where it is, so the listing goes
/// on into it).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Item {
    name: String,
    kind: &'static str,
    module: Option<Vec<String>>,
    /// The module that defines the item (empty when not followed): two
    /// paths name one item when they lead to the same definition.
    origin: Vec<String>,
}

impl Item {
    fn new(name: String, kind: &'static str) -> Self {
        Self {
            name,
            kind,
            module: None,
            origin: Vec::new(),
        }
    }
}

/// The workspace crates the listing follows into, as code names them,
/// with their source folders. Other crates (the macros, serde) are listed
/// by name only.
const CRATES: &[(&str, &str)] = &[
    ("starweaver_core", "starweaver-core/src"),
    ("starweaver_providers", "starweaver-providers/src"),
    ("starweaver_mcp", "starweaver-mcp/src"),
    ("starweaver_store", "starweaver-store/src"),
    ("starweaver_trace", "starweaver-trace/src"),
    ("starweaver_config", "starweaver-config/src"),
    ("starweaver_cli", "starweaver-cli/src"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The file of a module, its crate first (`["starweaver_core", "tools"]`
/// is the core's `tools/mod.rs`); `None` in a crate the listing does not
/// follow.
fn module_file(module: &[String]) -> Option<PathBuf> {
    let (name, path) = module.split_first()?;
    let (_, folder) = CRATES.iter().find(|(known, _)| known == name)?;
    let src = root().join(folder);
    if path.is_empty() {
        return Some(src.join("lib.rs"));
    }
    let joined = path.join("/");
    let flat = src.join(format!("{joined}.rs"));
    Some(if flat.exists() {
        flat
    } else {
        src.join(joined).join("mod.rs")
    })
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
/// followed to where the item is defined. (Items re-exported from a crate
/// the listing does not follow, such as the macros, are listed as `item`.)
fn module_items(module: &[String], seen: &mut BTreeSet<Vec<String>>) -> Items {
    if let Some(items) = RESOLVED.with(|resolved| resolved.borrow().get(module).cloned()) {
        return items;
    }
    let mut items = BTreeMap::new();
    if !seen.insert(module.to_vec()) {
        return items;
    }
    // Another crate (the macros, serde): listed by name, not followed.
    let Some(Ok(text)) = module_file(module).map(std::fs::read_to_string) else {
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
            syn::Item::Mod(item) if is_pub(&item.vis) && !is_hidden(&item.attrs) => {
                let name = item.ident.to_string();
                let inner = [module.to_vec(), vec![name.clone()]].concat();
                items.insert(
                    name.clone(),
                    Item {
                        module: Some(inner),
                        origin: module.to_vec(),
                        ..Item::new(name, "mod")
                    },
                );
                continue;
            }
            _ => continue,
        };
        if is_pub(visibility) {
            let name = ident.to_string();
            items.insert(
                name.clone(),
                Item {
                    origin: module.to_vec(),
                    ..Item::new(name, kind)
                },
            );
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
            let item = match found.get(&name) {
                Some(item) => item.clone(),
                None => {
                    // A module of a followed crate (`pub use starweaver_providers::openai`).
                    let inner = [target, vec![name.clone()]].concat();
                    if module_file(&inner).is_some_and(|file| file.exists()) {
                        Item {
                            module: Some(inner.clone()),
                            origin: inner,
                            ..Item::new(name.clone(), "mod")
                        }
                    } else {
                        Item::new(name.clone(), "item")
                    }
                }
            };
            items.insert(name, item);
        }
        syn::UseTree::Rename(rename) => {
            let name = rename.rename.to_string();
            let original = rename.ident.to_string();
            // A whole crate under a name (`pub use starweaver_cli as cli`).
            if prefix.is_empty() && CRATES.iter().any(|(known, _)| *known == original) {
                let inner = vec![original];
                items.insert(
                    name.clone(),
                    Item {
                        module: Some(inner.clone()),
                        origin: inner,
                        ..Item::new(name, "mod")
                    },
                );
                return;
            }
            let target = resolve(module, prefix);
            let found = module_items(&target, &mut seen.clone());
            let item = found
                .get(&original)
                .cloned()
                .unwrap_or_else(|| Item::new(original, "item"));
            items.insert(name, item);
        }
        syn::UseTree::Glob(_) => {
            let target = resolve(module, prefix);
            items.extend(module_items(&target, seen));
        }
    }
}

/// A `use` path of `module` as an absolute module path, its crate first.
fn resolve(module: &[String], path: &[String]) -> Vec<String> {
    let mut absolute = module.to_vec();
    for (index, segment) in path.iter().enumerate() {
        match segment.as_str() {
            "crate" if index == 0 => absolute.truncate(1),
            known if index == 0 && CRATES.iter().any(|(name, _)| *name == known) => {
                absolute = vec![known.to_string()];
            }
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

/// `#[doc(hidden)]`: the macro expansion's support, not for users.
fn is_hidden(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|attr| attr.path().is_ident("doc") && quote_tokens(attr).contains("hidden"))
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
                let path = format!("{scope}{name}");
                if let Some(module) = &item.module {
                    module_paths(&path, module, &mut paths);
                }
                paths.push((path, item));
            }
        }
    };
    collect("starweaver::", &file.items);
    for item in &file.items {
        if let syn::Item::Mod(module) = item {
            // `__private` is the macro expansion's, hidden from users.
            if is_hidden(&module.attrs) {
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

/// `path::Name (kind)` for every public item of the re-exported `module`,
/// and of the modules it re-exports in turn.
fn module_paths(path: &str, module: &[String], paths: &mut Vec<(String, Item)>) {
    for (name, item) in module_items(module, &mut BTreeSet::new()) {
        let inner = format!("{path}::{name}");
        if let Some(module) = &item.module {
            module_paths(&inner, module, paths);
        }
        paths.push((inner, item));
    }
}

#[test]
fn the_public_api_matches_the_committed_list() {
    let paths = facade_paths();
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

/// Paths that give an item its second path outside its layer module, each
/// for a reason: `check_main` is the command line's, and catalog-linked
/// check binaries call it where manifests live.
const SECOND_HOMES: &[&str] = &["starweaver::config::check_main"];

/// Root items that have no layer module, each for a reason: the attribute
/// is spelled `#[starweaver::tool]`.
const ROOT_ONLY: &[&str] = &["starweaver::tool"];

/// Type aliases that only rename another item, each for a reason:
/// `TypedFunctionTool<A>` is the name typed tools are known by.
const SECOND_NAMES: &[&str] = &["TypedFunctionTool"];

#[test]
fn every_item_has_at_most_two_paths() {
    // One item is one definition: items of different modules that share
    // a name are different items (a followed crate's items know where
    // they are defined; others are told apart by name alone).
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, item) in facade_paths() {
        let key = format!("{} ({})", item.name, item.origin.join("::"));
        by_name.entry(key).or_default().push(path);
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
            .filter(|path| !SECOND_HOMES.contains(&path.as_str()))
            .filter_map(|path| path.strip_prefix("starweaver::")?.split_once("::"))
            .map(|(module, _)| module)
            .collect();
        assert!(
            modules.len() <= 1,
            "{name} is in several modules: {paths:?}"
        );
    }
}

/// The root holds a few names a first program types, each also in its
/// layer module: every item can be found in its module, and the root is
/// only a shortcut.
#[test]
fn every_root_item_is_also_in_its_layer_module() {
    let paths = facade_paths();
    let mut lonely = Vec::new();
    for (path, item) in &paths {
        let Some(name) = path.strip_prefix("starweaver::") else {
            continue;
        };
        if name.contains("::") || item.kind == "mod" || ROOT_ONLY.contains(&path.as_str()) {
            continue;
        }
        let in_module = paths.iter().any(|(other, found)| {
            other != path
                && found.name == item.name
                && found.origin == item.origin
                && other
                    .strip_prefix("starweaver::")
                    .is_some_and(|rest| rest.contains("::"))
        });
        if !in_module {
            lonely.push(path.clone());
        }
    }
    assert!(
        lonely.is_empty(),
        "root items in no layer module (re-export each from its module too):\n{}",
        lonely.join("\n")
    );
}

/// The source files of every crate the facade shows, the facade's own
/// `src/` and the tool-name crate.
fn public_sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let folders = CRATES
        .iter()
        .map(|(_, folder)| *folder)
        .chain(["src", "starweaver-names/src"]);
    for folder in folders {
        crate::common::sources::rust_files(&root().join(folder), &mut files);
    }
    files.sort();
    files
}

/// The names of a generic parameter list or argument list, in order
/// (`'a`, `T`); anything but a bare name shows as `_`.
fn parameter_names(generics: &syn::Generics) -> Vec<String> {
    generics
        .params
        .iter()
        .map(|param| match param {
            syn::GenericParam::Lifetime(lifetime) => lifetime.lifetime.to_string(),
            syn::GenericParam::Type(ty) => ty.ident.to_string(),
            syn::GenericParam::Const(constant) => constant.ident.to_string(),
        })
        .collect()
}

fn argument_names(arguments: &syn::PathArguments) -> Vec<String> {
    let syn::PathArguments::AngleBracketed(arguments) = arguments else {
        return Vec::new();
    };
    arguments
        .args
        .iter()
        .map(|argument| match argument {
            syn::GenericArgument::Lifetime(lifetime) => lifetime.to_string(),
            syn::GenericArgument::Type(syn::Type::Path(path))
                if path.qself.is_none() && path.path.get_ident().is_some() =>
            {
                path.path.segments[0].ident.to_string()
            }
            _ => "_".to_string(),
        })
        .collect()
}

/// Public second names in `items`: `pub use X as Y` (but a whole crate
/// as a module, `pub use starweaver_cli as cli`) and a `pub type` that
/// only renames a type with the same parameters (`pub type A<T> = B<T>`).
fn second_names(items: &[syn::Item], found: &mut Vec<String>) {
    fn renames(tree: &syn::UseTree, depth: usize, found: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(path) => renames(&path.tree, depth + 1, found),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    renames(tree, depth, found);
                }
            }
            syn::UseTree::Rename(rename) if rename.ident != rename.rename => {
                let original = rename.ident.to_string();
                let whole_crate = depth == 0 && CRATES.iter().any(|(name, _)| *name == original);
                if !whole_crate {
                    found.push(format!("`{original} as {}`", rename.rename));
                }
            }
            _ => {}
        }
    }
    for item in items {
        match item {
            syn::Item::Use(item) if is_pub(&item.vis) => renames(&item.tree, 0, found),
            syn::Item::Type(alias) if is_pub(&alias.vis) => {
                let syn::Type::Path(target) = &*alias.ty else {
                    continue;
                };
                let Some(last) = target.path.segments.last() else {
                    continue;
                };
                let name = alias.ident.to_string();
                if target.qself.is_none()
                    && argument_names(&last.arguments) == parameter_names(&alias.generics)
                    && !SECOND_NAMES.contains(&name.as_str())
                {
                    found.push(format!("`type {name}` for `{}`", last.ident));
                }
            }
            syn::Item::Mod(module) => {
                if let Some((_, items)) = &module.content {
                    second_names(items, found);
                }
            }
            _ => {}
        }
    }
}

/// One item, one name: a re-export under another name or an alias that
/// only renames a type gives users two names to look up and docs two names
/// to keep in step. (Aliases of a generic type's instances, such as
/// `RunId = Id<Run>`, name something the generic alone does not.)
#[test]
fn no_item_has_a_second_name() {
    let mut found = Vec::new();
    for file in public_sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        let parsed = syn::parse_file(&text).unwrap();
        let mut here = Vec::new();
        second_names(&parsed.items, &mut here);
        let shown = file
            .strip_prefix(root())
            .unwrap_or(&file)
            .display()
            .to_string();
        found.extend(here.into_iter().map(|name| format!("{shown}: {name}")));
    }
    assert!(
        found.is_empty(),
        "second names (use the item's own name, or make the alias name an instance):\n{}",
        found.join("\n")
    );
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
    // Every layer has its module; the root is a shortcut for a few names.
    assert!(has("starweaver::agent::AgentBuilder"));
    assert!(has("starweaver::context::RunId"));
    assert!(has("starweaver::schedule::RefreshReason"));
    assert!(!has("starweaver::AgentHitlUserInteraction"));
    assert!(!has("starweaver::tools::ToolCallPart"));
    // Every crate is followed: the manifest crate, the providers and the
    // command-line library, item by item.
    assert!(has("starweaver::config::validate::Checked"));
    assert!(has("starweaver::config::load::load"));
    assert!(has("starweaver::config::check_main"));
    assert!(has("starweaver::model::openai::OpenAiModel"));
    assert!(has("starweaver::cli::mask::Redactor"));
    let config = paths
        .iter()
        .filter(|(path, _)| path.starts_with("starweaver::config::"))
        .count();
    assert!(config > 20, "only {config} `config::` paths");
}
