//! An in-memory environment: tests, demos and sandboxes with no disk.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::{PoisonError, RwLock};

use super::path::clamp_path;
use super::{
    normalize_path, parent_path, EntryKind, EnvironmentEntry, EnvironmentError, EnvironmentProvider,
};
use crate::BoxFuture;

/// The ancestors of a root-relative path, nearest first, ending with the
/// root (`""`).
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(parent_path(path), |directory| parent_path(directory))
}

#[derive(Clone, Debug)]
enum Node {
    File(Vec<u8>),
    Directory,
}

/// An environment held in memory. Every ancestor of a file is a
/// directory; the root always exists. Cheap to build in tests:
///
/// ```
/// use starweaver_core::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let env = VirtualEnvironmentProvider::new("docs").with_file("guide/intro.md", "# Intro");
/// assert_eq!(env.read_text("guide/intro.md").await.unwrap(), "# Intro");
/// assert_eq!(env.list_dir("guide").await.unwrap()[0].name, "intro.md");
/// # });
/// ```
#[derive(Debug)]
pub struct VirtualEnvironmentProvider {
    name: String,
    nodes: RwLock<BTreeMap<String, Node>>,
}

impl VirtualEnvironmentProvider {
    /// An empty environment called `name`.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        let mut nodes = BTreeMap::new();
        nodes.insert(String::new(), Node::Directory);
        Self {
            name: name.into(),
            nodes: RwLock::new(nodes),
        }
    }

    /// Adds a text file. The path is taken relative to the root; `..`
    /// never climbs above it (as `/..` on POSIX). Seeding wins over what
    /// was there: a file at a parent's place becomes a directory, and a
    /// directory at the file's place is replaced with its contents.
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

    /// Adds an empty directory (see [`Self::with_file`]).
    #[must_use]
    pub fn with_dir(self, path: &str) -> Self {
        self.seed(path, Node::Directory);
        self
    }

    /// Paths of every file, sorted.
    #[must_use]
    pub fn file_paths(&self) -> Vec<String> {
        self.read_nodes(|nodes| {
            nodes
                .iter()
                .filter(|(_, node)| matches!(node, Node::File(_)))
                .map(|(path, _)| path.clone())
                .collect()
        })
    }

    fn seed(&self, path: &str, node: Node) {
        let path = clamp_path(path);
        self.write_nodes(|nodes| {
            for directory in ancestors(&path) {
                nodes.insert(directory.to_string(), Node::Directory);
            }
            if path.is_empty() {
                return;
            }
            if matches!(node, Node::File(_)) {
                // A file replaces a directory of the same name with all
                // it held, so every ancestor stays a directory.
                let prefix = format!("{path}/");
                nodes.retain(|key, _| !key.starts_with(&prefix));
            }
            nodes.insert(path, node);
        });
    }

    fn read_nodes<T>(&self, read: impl FnOnce(&BTreeMap<String, Node>) -> T) -> T {
        read(&self.nodes.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn write_nodes<T>(&self, write: impl FnOnce(&mut BTreeMap<String, Node>) -> T) -> T {
        write(&mut self.nodes.write().unwrap_or_else(PoisonError::into_inner))
    }

    fn entry(path: &str, node: &Node) -> EnvironmentEntry {
        match node {
            Node::File(bytes) => EnvironmentEntry::new(path, EntryKind::File, bytes.len() as u64),
            Node::Directory => EnvironmentEntry::new(path, EntryKind::Directory, 0),
        }
    }

    /// Checks that every ancestor of `path` is a directory or missing.
    fn check_parents(nodes: &BTreeMap<String, Node>, path: &str) -> Result<(), EnvironmentError> {
        for directory in ancestors(path) {
            if let Some(Node::File(_)) = nodes.get(directory) {
                return Err(EnvironmentError::NotADirectory {
                    path: directory.to_string(),
                });
            }
        }
        Ok(())
    }

    fn insert_parents(nodes: &mut BTreeMap<String, Node>, path: &str) {
        for directory in ancestors(path) {
            nodes
                .entry(directory.to_string())
                .or_insert(Node::Directory);
        }
    }

    fn read_sync(&self, path: &str) -> Result<Vec<u8>, EnvironmentError> {
        let path = normalize_path(path)?;
        self.read_nodes(|nodes| match nodes.get(&path) {
            Some(Node::File(bytes)) => Ok(bytes.clone()),
            Some(Node::Directory) => Err(EnvironmentError::IsADirectory { path: path.clone() }),
            None => Err(Self::missing(nodes, &path)),
        })
    }

    /// NotFound, or NotADirectory when a parent is a file.
    fn missing(nodes: &BTreeMap<String, Node>, path: &str) -> EnvironmentError {
        Self::check_parents(nodes, path)
            .err()
            .unwrap_or_else(|| EnvironmentError::NotFound {
                path: path.to_string(),
            })
    }

    fn write_sync(&self, path: &str, content: &[u8]) -> Result<(), EnvironmentError> {
        let path = normalize_path(path)?;
        self.write_nodes(|nodes| {
            if path.is_empty() || matches!(nodes.get(&path), Some(Node::Directory)) {
                return Err(EnvironmentError::IsADirectory { path: path.clone() });
            }
            Self::check_parents(nodes, &path)?;
            Self::insert_parents(nodes, &path);
            nodes.insert(path, Node::File(content.to_vec()));
            Ok(())
        })
    }

    fn stat_sync(&self, path: &str) -> Result<EnvironmentEntry, EnvironmentError> {
        let path = normalize_path(path)?;
        self.read_nodes(|nodes| match nodes.get(&path) {
            Some(node) => Ok(Self::entry(&path, node)),
            None => Err(Self::missing(nodes, &path)),
        })
    }

    fn list_sync(&self, path: &str) -> Result<Vec<EnvironmentEntry>, EnvironmentError> {
        let path = normalize_path(path)?;
        self.read_nodes(|nodes| {
            match nodes.get(&path) {
                Some(Node::Directory) => {}
                Some(Node::File(_)) => return Err(EnvironmentError::NotADirectory { path }),
                None => return Err(Self::missing(nodes, &path)),
            }
            let prefix = if path.is_empty() {
                String::new()
            } else {
                format!("{path}/")
            };
            Ok(Self::children(nodes, &prefix))
        })
    }

    /// The direct children of the directory whose keys start with
    /// `prefix` (`""` for the root). Keys under `prefix` are contiguous in
    /// the sorted map, and so is each child directory's subtree: on
    /// meeting a descendant `prefix + name + "/..."`, the scan jumps past
    /// the whole subtree (to `prefix + name + "0"`, `0` following `/`),
    /// so listing costs the children, not every file below them.
    fn children(nodes: &BTreeMap<String, Node>, prefix: &str) -> Vec<EnvironmentEntry> {
        let mut children = Vec::new();
        let mut from = Bound::Included(prefix.to_string());
        'scan: loop {
            for (key, node) in nodes.range::<String, _>((from, Bound::Unbounded)) {
                let Some(rest) = key.strip_prefix(prefix) else {
                    break 'scan;
                };
                if rest.is_empty() {
                    // The root's own key: `""` sorts first.
                    continue;
                }
                match rest.find('/') {
                    None => children.push(Self::entry(key, node)),
                    Some(slash) => {
                        from = Bound::Included(format!("{prefix}{}0", &rest[..slash]));
                        continue 'scan;
                    }
                }
            }
            break;
        }
        children
    }

    fn create_dir_sync(&self, path: &str) -> Result<(), EnvironmentError> {
        let path = normalize_path(path)?;
        self.write_nodes(|nodes| {
            if let Some(Node::File(_)) = nodes.get(&path) {
                return Err(EnvironmentError::NotADirectory { path: path.clone() });
            }
            Self::check_parents(nodes, &path)?;
            Self::insert_parents(nodes, &path);
            nodes.insert(path, Node::Directory);
            Ok(())
        })
    }

    fn remove_sync(&self, path: &str) -> Result<(), EnvironmentError> {
        let path = normalize_path(path)?;
        self.write_nodes(|nodes| match nodes.get(&path) {
            None => Err(Self::missing(nodes, &path)),
            Some(Node::Directory) if path.is_empty() => Err(EnvironmentError::InvalidPath {
                path: "/".to_string(),
                reason: "the environment root cannot be removed".to_string(),
            }),
            Some(Node::Directory) => {
                let prefix = format!("{path}/");
                if nodes
                    .range(prefix.clone()..)
                    .next()
                    .is_some_and(|(key, _)| key.starts_with(&prefix))
                {
                    return Err(EnvironmentError::InvalidPath {
                        path: path.clone(),
                        reason: "the directory is not empty; remove its entries first".to_string(),
                    });
                }
                nodes.remove(&path);
                Ok(())
            }
            Some(Node::File(_)) => {
                nodes.remove(&path);
                Ok(())
            }
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
}
