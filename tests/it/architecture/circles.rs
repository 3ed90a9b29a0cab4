//! No two sibling files import each other. When `a.rs` uses `b.rs` and
//! `b.rs` uses `a.rs`, neither can be read, tested or moved alone; the
//! piece they share belongs in a file of its own (or in the lower one).
//!
//! Every crate's `src/` in the workspace is read with `syn`. An edge runs
//! from a file to a sibling file (`x.rs`, or `x/mod.rs` for a folder) that
//! one of its paths names: `use super::x::..`, `use crate::a::b::x::..`,
//! or `super::x::f()` in code, tests included. Names the parent
//! re-exports (`use super::Name`) count as the parent's, a file inside a
//! folder is a sibling only of the files next to it, and paths inside
//! macro invocations are not seen.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

use crate::common::sources::rust_files;

/// Circles being dissolved on another branch, the only exceptions. Each
/// entry must still be found: the test fails once it is gone, so the
/// entry is deleted in the merge that dissolves the circle.
const KNOWN_CIRCLES_PENDING_REMOVAL: &[&str] = &[];

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `src/` folder of a crate in the workspace: the root package and
/// each folder (one or two levels down) holding a `Cargo.toml` and `src/`.
fn crate_sources(root: &Path) -> Vec<PathBuf> {
    let mut sources = vec![root.join("src")];
    let mut folders = vec![root.to_path_buf()];
    for depth in 0..2 {
        let mut next = Vec::new();
        for folder in &folders {
            for entry in std::fs::read_dir(folder).unwrap() {
                let path = entry.unwrap().path();
                let name = path
                    .file_name()
                    .and_then(|name| name.to_str())
                    .unwrap_or("");
                if !path.is_dir() || name.starts_with('.') || name == "target" {
                    continue;
                }
                if path.join("Cargo.toml").is_file() && path.join("src").is_dir() {
                    sources.push(path.join("src"));
                }
                if depth == 0 {
                    next.push(path);
                }
            }
        }
        folders = next;
    }
    sources.sort();
    sources.dedup();
    sources
}

/// The module path of a file under `src`: `a/b.rs` and `a/b/mod.rs` are
/// `[a, b]`; `lib.rs` and `main.rs` are the crate root.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap();
    let mut segments: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = segments.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    let is_root_file = segments.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !is_root_file {
        segments.push(stem.to_string());
    }
    segments
}

/// The folder holding a module's children.
fn folder_of(src: &Path, module: &[String]) -> PathBuf {
    module
        .iter()
        .fold(src.to_path_buf(), |dir, part| dir.join(part))
}

/// The child modules of `module`: its folder's `x.rs` files and `x/`
/// folders (the crate root's `lib.rs` and `main.rs` are not children).
fn children(src: &Path, module: &[String]) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(folder_of(src, module)) else {
        return found;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            found.insert(name);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            let root_file = module.is_empty() && (stem == "lib" || stem == "main");
            if stem != "mod" && !root_file {
                found.insert(stem.to_string());
            }
        }
    }
    found
}

/// Each path a `use` tree names, without its leaf's rename (a glob ends
/// the path), with the name it brings in (`None` for a glob).
fn flatten(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            flatten(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) => {
            let mut full = prefix.clone();
            full.push(name.ident.to_string());
            out.push((full, Some(name.ident.to_string())));
        }
        syn::UseTree::Rename(rename) => {
            let mut full = prefix.clone();
            full.push(rename.ident.to_string());
            out.push((full, Some(rename.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), None)),
        syn::UseTree::Group(group) => {
            for item in &group.items {
                flatten(item, prefix, out);
            }
        }
    }
}

/// Every crate-internal path one file names, made absolute (from the crate
/// root). `super` and `self` count from the inline module they are
/// written in, so a `mod tests { use super::*; }` names its own file.
struct Paths {
    /// The file's module and the inline modules around the current item.
    scope: Vec<String>,
    found: Vec<Vec<String>>,
}

impl Paths {
    fn resolve(&mut self, segments: &[String]) {
        let Some(first) = segments.first() else {
            return;
        };
        let absolute = match first.as_str() {
            "crate" => segments[1..].to_vec(),
            "self" => [&self.scope[..], &segments[1..]].concat(),
            "super" => {
                let mut base = self.scope.clone();
                let mut rest = segments;
                while rest.first().is_some_and(|part| part == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                [&base[..], rest].concat()
            }
            _ => return,
        };
        self.found.push(absolute);
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if item.leading_colon.is_some() {
            return;
        }
        let mut flat = Vec::new();
        flatten(&item.tree, &mut Vec::new(), &mut flat);
        for (path, _) in flat {
            self.resolve(&path);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_some() {
            self.scope.push(item.ident.to_string());
            syn::visit::visit_item_mod(self, item);
            self.scope.pop();
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let segments: Vec<String> = path
                .segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect();
            self.resolve(&segments);
        }
        syn::visit::visit_path(self, path);
    }

    // `pub(super)` and `pub(in crate::a)` say who may see an item, not
    // what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
}

/// The circles between sibling files of one crate's `src`, each as
/// `a <-> b` with the two files' paths from the workspace root.
fn circles_in(workspace: &Path, src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut children_of: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    let mut kids = |module: &[String]| {
        children_of
            .entry(module.to_vec())
            .or_insert_with(|| children(src, module))
            .clone()
    };
    // (parent module, from file, to file), the files by module name.
    let mut edges: BTreeSet<(Vec<String>, String, String)> = BTreeSet::new();
    for file in &files {
        let module = module_of(src, file);
        let Some((own, parent)) = module.split_last() else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let syntax = syn::parse_file(&text).unwrap();
        let mut paths = Paths {
            scope: module.clone(),
            found: Vec::new(),
        };
        paths.visit_file(&syntax);
        let siblings = kids(parent);
        for target in paths.found {
            let Some(rest) = target.strip_prefix(parent) else {
                continue;
            };
            let Some(sibling) = rest.first() else {
                continue;
            };
            if sibling == own || !siblings.contains(sibling) {
                continue;
            }
            // `super::x::y::..` with `y` a file inside folder `x` reaches
            // that file, not a sibling.
            let sibling_module = [parent, std::slice::from_ref(sibling)].concat();
            if rest
                .get(1)
                .is_some_and(|next| kids(&sibling_module).contains(next))
            {
                continue;
            }
            edges.insert((parent.to_vec(), own.clone(), sibling.clone()));
        }
    }
    let shown = |parent: &[String], name: &str| {
        let folder = folder_of(src, parent);
        let flat = folder.join(format!("{name}.rs"));
        let path = if flat.is_file() {
            flat
        } else {
            folder.join(name).join("mod.rs")
        };
        let relative = path.strip_prefix(workspace).unwrap_or(&path);
        relative.display().to_string().replace('\\', "/")
    };
    edges
        .iter()
        .filter(|(parent, from, to)| {
            from < to && edges.contains(&(parent.clone(), to.clone(), from.clone()))
        })
        .map(|(parent, from, to)| format!("{} <-> {}", shown(parent, from), shown(parent, to)))
        .collect()
}

#[test]
fn no_two_sibling_modules_import_each_other() {
    let root = workspace_root();
    let sources = crate_sources(&root);
    assert!(
        sources
            .iter()
            .any(|src| src.ends_with("starweaver-core/src")),
        "{sources:?}"
    );
    let found: BTreeSet<String> = sources
        .iter()
        .flat_map(|src| circles_in(&root, src))
        .collect();
    let unexpected: Vec<&String> = found
        .iter()
        .filter(|circle| !KNOWN_CIRCLES_PENDING_REMOVAL.contains(&circle.as_str()))
        .collect();
    assert!(
        unexpected.is_empty(),
        "sibling modules that import each other (move what they share into a file of its own, \
         or into the lower one):\n{}",
        unexpected
            .iter()
            .map(|circle| circle.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    for known in KNOWN_CIRCLES_PENDING_REMOVAL {
        assert!(
            found.contains(*known),
            "`{known}` is dissolved: delete it from KNOWN_CIRCLES_PENDING_REMOVAL"
        );
    }
}

/// A crate written out in a temporary folder: `(path under src, text)`.
fn circles_of(files: &[(&str, &str)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    for (path, text) in files {
        let file = src.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    circles_in(dir.path(), &src)
}

// The check itself: each way of naming a sibling closes a circle, and
// one-way imports, items of the parent and a file's own tests do not.
#[test]
fn the_check_finds_each_kind_of_circle() {
    let lib = "mod m;";
    let parent = "mod a; mod b; mod c; pub struct Own;";
    let cases: [(&str, &str); 4] = [
        ("use super::b::Thing;", "use super::a::Other;"),
        (
            "use crate::m::b::Thing;",
            "fn f() { crate::m::a::other(); }",
        ),
        ("fn f() { super::b::thing(); }", "use super::{a, c};"),
        (
            "fn f(_: super::b::Thing) {}",
            "#[cfg(test)] mod tests { use super::super::a; }",
        ),
    ];
    for (a, b) in cases {
        assert_eq!(
            circles_of(&[
                ("lib.rs", lib),
                ("m/mod.rs", parent),
                ("m/a.rs", a),
                ("m/b.rs", b)
            ]),
            vec!["src/m/a.rs <-> src/m/b.rs".to_string()],
            "{a} / {b}"
        );
    }
    // A folder's `mod.rs` is the file of its module; the files inside it
    // are not siblings of the folder's neighbours.
    assert_eq!(
        circles_of(&[
            ("lib.rs", "mod a; mod b;"),
            ("a.rs", "use crate::b::Thing;"),
            ("b/mod.rs", "mod x; use super::a::Other;"),
            ("b/x.rs", ""),
        ]),
        vec!["src/a.rs <-> src/b/mod.rs".to_string()]
    );
    assert!(circles_of(&[
        ("lib.rs", "mod a; mod b;"),
        ("a.rs", "use crate::b::x::Thing;"),
        ("b/mod.rs", "mod x;"),
        ("b/x.rs", "use super::super::a::Other;"),
    ])
    .is_empty());
    let one_way = [
        ("use super::b::Thing;", "use super::Own; use super::c::X;"),
        (
            "use super::b::Thing; pub(super) fn f() {}",
            "#[cfg(test)] mod tests { use super::*; use self::inner::X; mod inner {} }",
        ),
    ];
    for (a, b) in one_way {
        assert!(
            circles_of(&[
                ("lib.rs", lib),
                ("m/mod.rs", parent),
                ("m/a.rs", a),
                ("m/b.rs", b)
            ])
            .is_empty(),
            "{a} / {b}"
        );
    }
}
