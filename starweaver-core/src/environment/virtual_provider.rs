//! An in-memory environment: tests, demos and sandboxes with no disk.

use std::collections::{btree_map, BTreeMap};
use std::sync::{PoisonError, RwLock};

use super::path::clamp_path;
use super::virtual_process::VirtualProcesses;
use super::{
    file_name, join_path, normalize_path_with, parent_path, EntryKind, EnvironmentEntry,
    EnvironmentError, EnvironmentProvider, PathLimits, ProcessOutput, ProgramCommand, ShellCommand,
};
use crate::BoxFuture;

/// Index of a node in [`Tree::slots`].
type NodeId = usize;

/// The root's slot; it always holds a directory.
const ROOT: NodeId = 0;

#[derive(Debug)]
enum Node {
    File(Vec<u8>),
    /// Children by segment name, never by full path, so a deep tree
    /// stores each name once.
    Directory(BTreeMap<String, NodeId>),
}

impl Node {
    fn empty_directory() -> Self {
        Self::Directory(BTreeMap::new())
    }
}

/// The segments of a normalized path, each with the byte offset where it
/// ends, so an error can name the path up to a segment.
fn segments(path: &str) -> impl Iterator<Item = (&str, usize)> {
    path.split('/')
        .scan(0, |start, segment| {
            let end = *start + segment.len();
            *start = end + 1;
            Some((segment, end))
        })
        .filter(|(segment, _)| !segment.is_empty())
}

/// Where a normalized path leads.
enum Found {
    /// The node at the path, and the directory holding it (`None` for
    /// the root).
    Node { parent: Option<NodeId>, id: NodeId },
    /// Nothing is there, and every ancestor that exists is a directory.
    Missing,
    /// An ancestor is a file: the path up to this byte offset.
    FileAt(usize),
}

/// Nodes in an arena rather than a map of full paths or nested maps:
/// memory is linear in the names and contents written, lookups walk the
/// segments from the root, and dropping a tree of any depth is a loop
/// over slots, not one recursion per level. Removed slots are reused.
#[derive(Debug)]
struct Tree {
    slots: Vec<Option<Node>>,
    free: Vec<NodeId>,
}

impl Tree {
    fn new() -> Self {
        Self {
            slots: vec![Some(Node::empty_directory())],
            free: Vec::new(),
        }
    }

    fn node(&self, id: NodeId) -> Option<&Node> {
        self.slots.get(id).and_then(Option::as_ref)
    }

    fn children(&self, id: NodeId) -> Option<&BTreeMap<String, NodeId>> {
        match self.node(id) {
            Some(Node::Directory(children)) => Some(children),
            _ => None,
        }
    }

    fn children_mut(&mut self, id: NodeId) -> Option<&mut BTreeMap<String, NodeId>> {
        match self.slots.get_mut(id).and_then(Option::as_mut) {
            Some(Node::Directory(children)) => Some(children),
            _ => None,
        }
    }

    fn child(&self, id: NodeId, name: &str) -> Option<NodeId> {
        self.children(id)?.get(name).copied()
    }

    fn is_dir(&self, id: NodeId) -> bool {
        self.children(id).is_some()
    }

    fn alloc(&mut self, node: Node) -> NodeId {
        match self.free.pop() {
            Some(id) => {
                if let Some(slot) = self.slots.get_mut(id) {
                    *slot = Some(node);
                }
                id
            }
            None => {
                self.slots.push(Some(node));
                self.slots.len() - 1
            }
        }
    }

    /// Puts `node` in slot `id`, releasing everything below what was
    /// there.
    fn replace(&mut self, id: NodeId, node: Node) {
        let old = self.slots.get_mut(id).and_then(|slot| slot.replace(node));
        if let Some(Node::Directory(children)) = old {
            self.release(children.into_values().collect());
        }
    }

    /// Frees the slots of `ids` and of everything below them, with a
    /// stack instead of recursion.
    fn release(&mut self, mut ids: Vec<NodeId>) {
        while let Some(id) = ids.pop() {
            if let Some(Node::Directory(children)) = self.slots.get_mut(id).and_then(Option::take) {
                ids.extend(children.into_values());
            }
            self.free.push(id);
        }
    }

    /// Adds `node` as `name` under the directory `parent`.
    fn insert(&mut self, parent: NodeId, name: &str, node: Node) -> NodeId {
        let id = self.alloc(node);
        if let Some(children) = self.children_mut(parent) {
            children.insert(name.to_string(), id);
        }
        id
    }

    fn find(&self, path: &str) -> Found {
        let (mut parent, mut id, mut walked) = (None, ROOT, 0);
        for (segment, end) in segments(path) {
            let Some(children) = self.children(id) else {
                return Found::FileAt(walked);
            };
            let Some(&child) = children.get(segment) else {
                return Found::Missing;
            };
            (parent, id, walked) = (Some(id), child, end);
        }
        Found::Node { parent, id }
    }

    /// The directory at the normalized `path`, creating what is missing.
    /// A file on the way (or at `path`) is refused before anything is
    /// created (every ancestor of a missing node is missing or a
    /// directory): `Err` holds the byte offset where its path ends.
    fn make_dirs(&mut self, path: &str) -> Result<NodeId, usize> {
        let mut id = ROOT;
        for (segment, end) in segments(path) {
            id = match self.child(id, segment) {
                Some(child) if self.is_dir(child) => child,
                Some(_) => return Err(end),
                None => self.insert(id, segment, Node::empty_directory()),
            };
        }
        Ok(id)
    }

    /// Puts `node` at the clamped `path`, whatever was there: a file at
    /// a parent's place becomes a directory, and a directory at `path`
    /// is replaced with all it held (unless `node` is a directory, which
    /// keeps it).
    fn seed(&mut self, path: &str, node: Node) {
        let Some(parent) = parent_path(path) else {
            return;
        };
        let mut id = ROOT;
        for (segment, _) in segments(parent) {
            id = match self.child(id, segment) {
                Some(child) if self.is_dir(child) => child,
                Some(child) => {
                    self.replace(child, Node::empty_directory());
                    child
                }
                None => self.insert(id, segment, Node::empty_directory()),
            };
        }
        let name = file_name(path);
        match self.child(id, name) {
            Some(existing) if matches!(node, Node::Directory(_)) && self.is_dir(existing) => {}
            Some(existing) => self.replace(existing, node),
            None => {
                self.insert(id, name, node);
            }
        }
    }

    /// Every file path, sorted. One path buffer grows and shrinks along
    /// the walk, so a deep tree costs its file paths, not a copy of the
    /// path per level.
    fn file_paths(&self) -> Vec<String> {
        let mut paths = Vec::new();
        let mut path = String::new();
        let mut stack: Vec<(btree_map::Iter<'_, String, NodeId>, usize)> = Vec::new();
        stack.extend(self.children(ROOT).map(|children| (children.iter(), 0)));
        while let Some((children, length)) = stack.last_mut() {
            let length = *length;
            let Some((name, &id)) = children.next() else {
                stack.pop();
                continue;
            };
            path.truncate(length);
            if length > 0 {
                path.push('/');
            }
            path.push_str(name);
            match self.node(id) {
                Some(Node::File(_)) => paths.push(path.clone()),
                Some(Node::Directory(children)) => stack.push((children.iter(), path.len())),
                None => {}
            }
        }
        paths.sort_unstable();
        paths
    }

    /// Bytes of names and contents held, to check storage stays linear.
    #[cfg(test)]
    fn stored_bytes(&self) -> usize {
        self.slots
            .iter()
            .flatten()
            .map(|node| match node {
                Node::File(bytes) => bytes.len(),
                Node::Directory(children) => children.keys().map(String::len).sum(),
            })
            .sum()
    }
}

/// An environment held in memory. Every ancestor of a file is a
/// directory; the root always exists. Runtime paths are normalized under
/// the provider's [`PathLimits`] (the defaults unless
/// [`Self::with_path_limits`] says otherwise). Cheap to build in tests:
///
/// ```
/// use starweaver_core::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let env = VirtualEnvironmentProvider::new("docs").with_file("guide/intro.md", "# Intro");
/// assert_eq!(env.read_text("guide/intro.md").await.unwrap(), "# Intro");
/// assert_eq!(env.list_dir("guide").await.unwrap()[0].name, "intro.md");
/// # });
/// ```
///
/// It also runs a few builtin commands (`echo`, `true`, `false`, `exit`,
/// `sleep`, `cat`, `pwd`, `env`) deterministically on a virtual clock,
/// in the foreground and in the background, under a [`super::ShellPolicy`]
/// (see [`Self::with_shell_policy`]): the shell tools can be tested and
/// shown without touching the host.
#[derive(Debug)]
pub struct VirtualEnvironmentProvider {
    name: String,
    limits: PathLimits,
    tree: RwLock<Tree>,
    /// Policy, limits and background processes of the command
    /// simulation.
    pub(super) processes: VirtualProcesses,
}

impl VirtualEnvironmentProvider {
    /// An empty environment called `name`.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            limits: PathLimits::default(),
            tree: RwLock::new(Tree::new()),
            processes: VirtualProcesses::default(),
        }
    }

    /// Sets the limits runtime paths must keep (see
    /// [`EnvironmentProvider::path_limits`]); raise them for trees that
    /// nest deeper than the defaults allow. Seeding with
    /// [`Self::with_file`] is not limited.
    #[must_use]
    pub fn with_path_limits(mut self, limits: PathLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Adds a text file. The path is taken relative to the root; `..`
    /// never climbs above it (as `/..` on POSIX). Seeding wins over what
    /// was there: a file at a parent's place becomes a directory, and a
    /// directory at the file's place is replaced with its contents. Costs
    /// the length of the path, whatever the tree holds.
    #[must_use]
    pub fn with_file(self, path: &str, content: impl Into<String>) -> Self {
        self.seed(path, Node::File(content.into().into_bytes()));
        self
    }

    /// Adds a binary file (see [`Self::with_file`]).
    #[must_use]
    pub fn with_bytes(self, path: &str, content: impl Into<Vec<u8>>) -> Self {
        self.seed(path, Node::File(content.into()));
        self
    }

    /// Adds an empty directory (see [`Self::with_file`]); a directory
    /// already there keeps its contents.
    #[must_use]
    pub fn with_dir(self, path: &str) -> Self {
        self.seed(path, Node::empty_directory());
        self
    }

    /// Paths of every file, sorted.
    #[must_use]
    pub fn file_paths(&self) -> Vec<String> {
        self.read_tree(Tree::file_paths)
    }

    fn seed(&self, path: &str, node: Node) {
        let path = clamp_path(path);
        self.write_tree(|tree| tree.seed(&path, node));
    }

    fn read_tree<T>(&self, read: impl FnOnce(&Tree) -> T) -> T {
        read(&self.tree.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn write_tree<T>(&self, write: impl FnOnce(&mut Tree) -> T) -> T {
        write(&mut self.tree.write().unwrap_or_else(PoisonError::into_inner))
    }

    fn normalize(&self, path: &str) -> Result<String, EnvironmentError> {
        normalize_path_with(path, &self.limits)
    }

    fn entry(path: &str, node: Option<&Node>) -> EnvironmentEntry {
        match node {
            Some(Node::File(bytes)) => {
                EnvironmentEntry::new(path, EntryKind::File, bytes.len() as u64)
            }
            _ => EnvironmentEntry::new(path, EntryKind::Directory, 0),
        }
    }

    /// The error for a path that [`Tree::find`] did not resolve to a
    /// node.
    fn unresolved(path: &str, found: &Found) -> EnvironmentError {
        match found {
            Found::FileAt(end) => EnvironmentError::NotADirectory {
                path: path.get(..*end).unwrap_or(path).to_string(),
            },
            _ => EnvironmentError::NotFound {
                path: path.to_string(),
            },
        }
    }

    fn read_sync(&self, path: &str) -> Result<Vec<u8>, EnvironmentError> {
        let path = self.normalize(path)?;
        self.read_tree(|tree| match tree.find(&path) {
            Found::Node { id, .. } => match tree.node(id) {
                Some(Node::File(bytes)) => Ok(bytes.clone()),
                _ => Err(EnvironmentError::IsADirectory { path: path.clone() }),
            },
            found => Err(Self::unresolved(&path, &found)),
        })
    }

    fn write_sync(&self, path: &str, content: &[u8]) -> Result<(), EnvironmentError> {
        let path = self.normalize(path)?;
        let Some(parent) = parent_path(&path) else {
            return Err(EnvironmentError::IsADirectory { path });
        };
        self.write_tree(|tree| {
            let directory =
                tree.make_dirs(parent)
                    .map_err(|end| EnvironmentError::NotADirectory {
                        path: path.get(..end).unwrap_or(&path).to_string(),
                    })?;
            let name = file_name(&path);
            match tree.child(directory, name) {
                Some(existing) if tree.is_dir(existing) => {
                    Err(EnvironmentError::IsADirectory { path: path.clone() })
                }
                Some(existing) => {
                    tree.replace(existing, Node::File(content.to_vec()));
                    Ok(())
                }
                None => {
                    tree.insert(directory, name, Node::File(content.to_vec()));
                    Ok(())
                }
            }
        })
    }

    fn stat_sync(&self, path: &str) -> Result<EnvironmentEntry, EnvironmentError> {
        let path = self.normalize(path)?;
        self.read_tree(|tree| match tree.find(&path) {
            Found::Node { id, .. } => Ok(Self::entry(&path, tree.node(id))),
            found => Err(Self::unresolved(&path, &found)),
        })
    }

    /// Costs the directory's children, not what lies below them.
    fn list_sync(&self, path: &str) -> Result<Vec<EnvironmentEntry>, EnvironmentError> {
        let path = self.normalize(path)?;
        self.read_tree(|tree| match tree.find(&path) {
            Found::Node { id, .. } => match tree.children(id) {
                Some(children) => Ok(children
                    .iter()
                    .map(|(name, &child)| Self::entry(&join_path(&path, name), tree.node(child)))
                    .collect()),
                None => Err(EnvironmentError::NotADirectory { path: path.clone() }),
            },
            found => Err(Self::unresolved(&path, &found)),
        })
    }

    fn create_dir_sync(&self, path: &str) -> Result<(), EnvironmentError> {
        let path = self.normalize(path)?;
        self.write_tree(|tree| {
            tree.make_dirs(&path)
                .map(|_| ())
                .map_err(|end| EnvironmentError::NotADirectory {
                    path: path.get(..end).unwrap_or(&path).to_string(),
                })
        })
    }

    fn remove_sync(&self, path: &str) -> Result<(), EnvironmentError> {
        let path = self.normalize(path)?;
        self.write_tree(|tree| match tree.find(&path) {
            Found::Node { parent: None, .. } => Err(EnvironmentError::InvalidPath {
                path: "/".to_string(),
                reason: "the environment root cannot be removed".to_string(),
            }),
            Found::Node {
                parent: Some(parent),
                id,
            } => {
                if tree
                    .children(id)
                    .is_some_and(|children| !children.is_empty())
                {
                    return Err(EnvironmentError::InvalidPath {
                        path: path.clone(),
                        reason: "the directory is not empty; remove its entries first".to_string(),
                    });
                }
                if let Some(children) = tree.children_mut(parent) {
                    children.remove(file_name(&path));
                }
                tree.release(vec![id]);
                Ok(())
            }
            found => Err(Self::unresolved(&path, &found)),
        })
    }
}

impl EnvironmentProvider for VirtualEnvironmentProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> &'static str {
        "virtual"
    }

    fn path_limits(&self) -> PathLimits {
        self.limits
    }

    fn read_bytes<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<Vec<u8>, EnvironmentError>> {
        Box::pin(async move { self.read_sync(path) })
    }

    fn write_bytes<'a>(
        &'a self,
        path: &'a str,
        content: &'a [u8],
    ) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        Box::pin(async move { self.write_sync(path, content) })
    }

    fn stat<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<EnvironmentEntry, EnvironmentError>> {
        Box::pin(async move { self.stat_sync(path) })
    }

    fn list_dir<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Vec<EnvironmentEntry>, EnvironmentError>> {
        Box::pin(async move { self.list_sync(path) })
    }

    fn create_dir_all<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        Box::pin(async move { self.create_dir_sync(path) })
    }

    fn remove<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        Box::pin(async move { self.remove_sync(path) })
    }

    fn run_shell<'a>(
        &'a self,
        command: &'a ShellCommand,
    ) -> BoxFuture<'a, Result<ProcessOutput, EnvironmentError>> {
        Box::pin(self.run_virtual(command.clone().into()))
    }

    fn run_program<'a>(
        &'a self,
        command: &'a ProgramCommand,
    ) -> BoxFuture<'a, Result<ProcessOutput, EnvironmentError>> {
        Box::pin(self.run_virtual(command.clone().into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn seeds_reads_and_lists() {
        let env = VirtualEnvironmentProvider::new("t")
            .with_file("b.txt", "b")
            .with_file("a/x.rs", "x")
            .with_file("a/y/z.rs", "z")
            .with_file("../../escape.txt", "clamped")
            .with_dir("empty");
        {
            assert_eq!(env.read_text("a/x.rs").await.unwrap_or_default(), "x");
            assert_eq!(
                env.read_text("/escape.txt").await.unwrap_or_default(),
                "clamped"
            );
            let root: Vec<String> = env
                .list_dir("")
                .await
                .unwrap_or_default()
                .into_iter()
                .map(|entry| entry.path)
                .collect();
            assert_eq!(root, vec!["a", "b.txt", "empty", "escape.txt"]);
            let nested: Vec<(String, EntryKind)> = env
                .list_dir("a")
                .await
                .unwrap_or_default()
                .into_iter()
                .map(|entry| (entry.path, entry.kind))
                .collect();
            assert_eq!(
                nested,
                vec![
                    ("a/x.rs".to_string(), EntryKind::File),
                    ("a/y".to_string(), EntryKind::Directory)
                ]
            );
            assert!(env.list_dir("empty").await.unwrap_or_default().is_empty());
        }
    }

    #[tokio::test]
    async fn listing_skips_subtrees_without_losing_siblings() {
        // `a-b`, `a.rs` sort between `a` and `a/...`; `a0` after them.
        let env = VirtualEnvironmentProvider::new("t")
            .with_file("a/x.rs", "")
            .with_file("a/y/deep/z.rs", "")
            .with_file("a-b", "")
            .with_file("a.rs", "")
            .with_file("a0/q", "")
            .with_file("b", "");
        let names = |path: &'static str| {
            let env = &env;
            async move {
                env.list_dir(path)
                    .await
                    .unwrap_or_default()
                    .into_iter()
                    .map(|entry| entry.path)
                    .collect::<Vec<_>>()
            }
        };
        assert_eq!(names("").await, ["a", "a-b", "a.rs", "a0", "b"]);
        assert_eq!(names("a").await, ["a/x.rs", "a/y"]);
        assert_eq!(names("a/y").await, ["a/y/deep"]);
        assert_eq!(names("a0").await, ["a0/q"]);
    }

    #[tokio::test]
    async fn errors_name_the_problem() {
        let env = VirtualEnvironmentProvider::new("t").with_file("a/file.txt", "x");
        {
            assert!(matches!(
                env.read_text("missing").await,
                Err(EnvironmentError::NotFound { .. })
            ));
            assert!(matches!(
                env.read_text("a").await,
                Err(EnvironmentError::IsADirectory { .. })
            ));
            assert!(matches!(
                env.read_text("a/file.txt/inner").await,
                Err(EnvironmentError::NotADirectory { path }) if path == "a/file.txt"
            ));
            assert!(matches!(
                env.write_text("a/file.txt/inner", "x").await,
                Err(EnvironmentError::NotADirectory { .. })
            ));
            assert!(matches!(
                env.write_text("../x", "x").await,
                Err(EnvironmentError::PathEscape { .. })
            ));
            assert!(matches!(
                env.list_dir("a/file.txt").await,
                Err(EnvironmentError::NotADirectory { .. })
            ));
            assert!(matches!(
                env.remove("a").await,
                Err(EnvironmentError::InvalidPath { .. })
            ));
            assert!(matches!(
                env.remove("").await,
                Err(EnvironmentError::InvalidPath { .. })
            ));
        }
    }

    #[tokio::test]
    async fn writes_create_parents_and_remove_works() {
        let env = VirtualEnvironmentProvider::new("t");
        {
            env.write_text("deep/er/file.md", "hi")
                .await
                .unwrap_or_default();
            assert!(env.stat("deep/er").await.is_ok_and(|entry| entry.is_dir()));
            assert_eq!(
                env.stat("deep/er/file.md")
                    .await
                    .map(|e| e.size)
                    .unwrap_or_default(),
                2
            );
            env.remove("deep/er/file.md").await.unwrap_or_default();
            assert!(!env.exists("deep/er/file.md").await.unwrap_or(true));
            env.remove("deep/er").await.unwrap_or_default();
            assert!(!env.exists("deep/er").await.unwrap_or(true));
            let bytes = VirtualEnvironmentProvider::new("b").with_bytes("bin", vec![0xff, 0xfe]);
            assert!(matches!(
                bytes.read_text("bin").await,
                Err(EnvironmentError::NotText { .. })
            ));
        }
    }

    fn stored(env: &VirtualEnvironmentProvider) -> usize {
        env.read_tree(Tree::stored_bytes)
    }

    fn slots(env: &VirtualEnvironmentProvider) -> usize {
        env.read_tree(|tree| tree.slots.len())
    }

    #[test]
    fn seeding_wins_over_what_was_there() {
        let env = VirtualEnvironmentProvider::new("t")
            .with_file("a/b/c.txt", "c")
            .with_file("a/b/d.txt", "d")
            .with_file("f", "file")
            // A file at a parent's place becomes a directory.
            .with_file("f/inner.txt", "inner")
            // A directory at the file's place is replaced with its contents.
            .with_file("a/b", "now a file")
            .with_file("kept/x", "x")
            // A directory seeded over a directory keeps its contents.
            .with_dir("kept")
            .with_file("a-b", "")
            .with_file("a.rs", "");
        assert_eq!(
            env.file_paths(),
            ["a-b", "a.rs", "a/b", "f/inner.txt", "kept/x"]
        );
        // What the replaced directory held is released, not just hidden.
        let names = ["a", "f", "kept", "a-b", "a.rs", "b", "inner.txt", "x"];
        let contents = ["now a file", "inner", "x"];
        let bytes = |texts: &[&str]| texts.iter().map(|text| text.len()).sum::<usize>();
        assert_eq!(stored(&env), bytes(&names) + bytes(&contents));
        let env = env.with_dir("a/b/c").with_file("", "ignored").with_dir("");
        assert_eq!(env.file_paths(), ["a-b", "a.rs", "f/inner.txt", "kept/x"]);
    }

    #[test]
    fn storage_is_linear_in_what_was_written() {
        // Every ancestor used to be stored under its full path: a path of
        // n segments stored n(n+1)/2 names.
        let names: Vec<String> = (0..256).map(|i| format!("segment-{i:03}")).collect();
        let path = names.join("/");
        let env = VirtualEnvironmentProvider::new("t").with_file(&path, "content");
        let name_bytes: usize = names.iter().map(String::len).sum();
        assert_eq!(stored(&env), name_bytes + "content".len());
        assert_eq!(slots(&env), 257);
        // Many files in one directory: each name once.
        let mut env = VirtualEnvironmentProvider::new("t");
        for i in 0..1_000 {
            env = env.with_file(&format!("dir/file-{i:04}.txt"), "x");
        }
        assert_eq!(
            stored(&env),
            "dir".len() + 1_000 * ("file-0000.txt".len() + 1)
        );
    }

    #[tokio::test]
    async fn removed_slots_are_reused() {
        let env = VirtualEnvironmentProvider::new("t");
        for round in 0..50 {
            env.write_text("a/b/c.txt", &round.to_string())
                .await
                .unwrap_or_default();
            env.remove("a/b/c.txt").await.unwrap_or_default();
            env.remove("a/b").await.unwrap_or_default();
        }
        assert_eq!(slots(&env), 4);
        assert_eq!(stored(&env), 1);
        // Two freed slots and two new ones; then three freed below `x`,
        // which `p/q/r` takes.
        let env = env.with_file("x/y/z/w", "");
        assert_eq!(slots(&env), 6);
        let env = env.with_file("x", "").with_file("p/q/r", "");
        assert_eq!(slots(&env), 6);
        assert_eq!(env.file_paths(), ["p/q/r", "x"]);
    }

    #[test]
    fn a_deep_seeded_tree_costs_its_length_and_no_recursion() {
        // Seeding a 100k-level path stored every ancestor's full path
        // (10 GB); a nested-map tree would overflow the stack on drop.
        let run = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let path = "d/".repeat(100_000) + "f";
                let env = VirtualEnvironmentProvider::new("t").with_file(&path, "x");
                let stored = stored(&env);
                let files = env.file_paths();
                let env = env.with_file("d", "replaced the whole chain");
                (stored, files == [path], env.file_paths(), slots(&env))
            });
        let result = run.ok().and_then(|handle| handle.join().ok());
        assert_eq!(
            result,
            Some((100_001 + 1, true, vec!["d".to_string()], 100_002))
        );
    }

    #[tokio::test]
    async fn runtime_paths_keep_the_providers_limits() {
        let env = VirtualEnvironmentProvider::new("t")
            .with_path_limits(PathLimits::default().with_max_segments(3));
        assert_eq!(env.path_limits().max_segments, 3);
        assert!(env.write_text("a/b/c", "x").await.is_ok());
        assert!(matches!(
            env.write_text("a/b/c/d", "x").await,
            Err(EnvironmentError::InvalidPath { reason, .. }) if reason.contains("more than the 3 allowed")
        ));
        let deep = vec!["d"; 1_000].join("/");
        let raised = VirtualEnvironmentProvider::new("t")
            .with_path_limits(PathLimits::default().with_max_segments(1_000));
        assert!(raised.write_text(&deep, "deep").await.is_ok());
        assert_eq!(raised.read_text(&deep).await.unwrap_or_default(), "deep");
        assert!(VirtualEnvironmentProvider::new("t")
            .write_text(&deep, "deep")
            .await
            .is_err());
        // Seeding is not limited; reaching past the limits at runtime is.
        let seeded = VirtualEnvironmentProvider::new("t").with_file(&deep, "seeded");
        assert!(matches!(
            seeded.read_text(&deep).await,
            Err(EnvironmentError::InvalidPath { .. })
        ));
        assert!(seeded.stat(&vec!["d"; 256].join("/")).await.is_ok());
    }

    #[tokio::test]
    async fn parents_that_are_files_are_named() {
        let env = VirtualEnvironmentProvider::new("t").with_file("a/file.txt", "x");
        for result in [
            env.create_dir_all("a/file.txt/b/c").await,
            env.write_text("a/file.txt/b/c", "x").await,
            env.remove("a/file.txt/b").await,
            env.stat("a/file.txt/b").await.map(|_| ()),
            env.list_dir("a/file.txt/b").await.map(|_| ()),
        ] {
            assert!(
                matches!(&result, Err(EnvironmentError::NotADirectory { path }) if path == "a/file.txt"),
                "{result:?}"
            );
        }
        assert!(matches!(
            env.create_dir_all("a/file.txt").await,
            Err(EnvironmentError::NotADirectory { path }) if path == "a/file.txt"
        ));
        // Nothing was created on the way to a refusal.
        assert_eq!(slots(&env), 3);
        assert!(matches!(
            env.write_text("a", "x").await,
            Err(EnvironmentError::IsADirectory { path }) if path == "a"
        ));
        assert!(matches!(
            env.write_text("/", "x").await,
            Err(EnvironmentError::IsADirectory { path }) if path.is_empty()
        ));
        env.write_text("a/file.txt", "rewritten")
            .await
            .unwrap_or_default();
        assert_eq!(
            env.read_text("a/file.txt").await.unwrap_or_default(),
            "rewritten"
        );
        assert!(env.stat("").await.is_ok_and(|entry| entry.is_dir()));
    }
}
