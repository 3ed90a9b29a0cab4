//! One configurable environment provider for the integration tests.
//!
//! [`TestEnvironment`] wraps a [`VirtualEnvironmentProvider`] and adds
//! what a real (local or remote) provider can do that the in-memory one
//! cannot: paths that cannot be listed or read, directory symlinks,
//! ignore rules, files that report a huge size, reads that suspend and a
//! write that lands but reports a failure. Each `with_*` method turns on
//! one behaviour; everything else is delegated to the wrapped provider.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use std::sync::Arc;

use serde_json::Value;
use starweaver::environment::{
    attach_environment, EntryKind, EnvironmentEntry, EnvironmentError, EnvironmentProvider,
    VirtualEnvironmentProvider,
};
use starweaver::model::{ToolCallPart, ToolReturnKind, ToolReturnPart};
use starweaver::tools::{ApprovalRequiredToolset, BoxFuture};
use starweaver::{filesystem_tools, AgentContext, DynToolset, ToolRegistry};

/// Runs one filesystem-bundle call with `provider` attached to the
/// ambient agent context.
pub async fn call_on(
    provider: Arc<dyn EnvironmentProvider>,
    name: &str,
    arguments: Value,
) -> ToolReturnPart {
    call_through(&filesystem_tools(), provider, name, arguments).await
}

/// Runs one call of `toolset` with `provider` attached to the ambient
/// agent context.
pub async fn call_through(
    toolset: &DynToolset,
    provider: Arc<dyn EnvironmentProvider>,
    name: &str,
    arguments: Value,
) -> ToolReturnPart {
    let mut context = AgentContext::default();
    attach_environment(&mut context, provider);
    ToolRegistry::new()
        .with_toolset(toolset)
        .execute_call(
            super::ambient(context),
            &ToolCallPart::new("call-1", name, arguments),
        )
        .await
}

/// [`call_on`] that must succeed; returns the content.
pub async fn ok_on(provider: Arc<dyn EnvironmentProvider>, name: &str, arguments: Value) -> Value {
    let part = call_on(provider, name, arguments.clone()).await;
    assert_eq!(
        part.kind,
        ToolReturnKind::Success,
        "{name}({arguments}) failed: {}",
        part.content
    );
    part.content
}

/// A registry with the filesystem bundle.
pub fn filesystem_registry() -> ToolRegistry {
    ToolRegistry::new().with_toolset(&filesystem_tools())
}

/// The filesystem bundle with `write_file` and `edit_file` gated behind
/// approval.
pub fn gated_writes() -> DynToolset {
    Arc::new(
        ApprovalRequiredToolset::new(filesystem_tools()).with_tools(["write_file", "edit_file"]),
    )
}

/// An agent context with `provider` attached as the environment.
pub fn context_with(provider: Arc<dyn EnvironmentProvider>) -> AgentContext {
    let mut context = AgentContext::default();
    attach_environment(&mut context, provider);
    context
}

/// The paths of a grep result's matches.
pub fn match_paths(content: &Value) -> Vec<String> {
    content["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|found| found["path"].as_str().unwrap().to_string())
        .collect()
}

/// The text of the file at `path`.
pub async fn text_of(provider: &Arc<VirtualEnvironmentProvider>, path: &str) -> String {
    provider.read_text(path).await.unwrap()
}

// ---------------------------------------------------------------------------
// Trees
// ---------------------------------------------------------------------------

/// A small source tree: root-level and nested Rust files, docs.
pub fn project() -> VirtualEnvironmentProvider {
    VirtualEnvironmentProvider::new("project")
        .with_file("main.rs", "fn main() {}\n")
        .with_file("src/lib.rs", "pub mod cli;\n// FOLLOWUP: docs\n")
        .with_file("src/bin/cli.rs", "fn run() {\n    followup!()\n}\n")
        .with_file("docs/guide.md", "# Guide\nSee FOLLOWUP list.\n")
}

/// Hidden paths, and `.agents` at the root and deeper down.
pub fn hidden_tree() -> VirtualEnvironmentProvider {
    VirtualEnvironmentProvider::new("hidden")
        .with_file(
            ".agents/skills/research/SKILL.md",
            "needle: research skill\n",
        )
        .with_file(".agents/.cache/state.md", "needle: cache\n")
        .with_file(".git/config", "needle: git\n")
        .with_file(".env", "needle: secret\n")
        .with_file("a/.agents/skills/x/SKILL.md", "needle: nested skill\n")
        .with_file("src/lib.rs", "needle: source\n")
}

/// A provider holding `notes.txt` ("one\n").
pub fn notes() -> Arc<VirtualEnvironmentProvider> {
    Arc::new(VirtualEnvironmentProvider::new("ws").with_file("notes.txt", "one\n"))
}

// ---------------------------------------------------------------------------
// A provider with knobs
// ---------------------------------------------------------------------------

/// An ignore rule: true when the root-relative path (a directory when
/// the flag is set) is excluded from walks and searches.
pub type IgnoreRule = fn(&str, bool) -> bool;

/// A virtual provider with knobs (see the module docs). Paths given to
/// the `with_*` methods are compared with the path a caller passes, as
/// is (root-relative, no leading `/`).
#[derive(Debug)]
pub struct TestEnvironment {
    inner: VirtualEnvironmentProvider,
    unlistable: Vec<String>,
    unreadable: Vec<String>,
    /// Directory symlinks: link path -> target directory.
    symlinks: BTreeMap<String, String>,
    ignore: Option<IgnoreRule>,
    /// Sizes `stat` reports instead of the real ones.
    sizes: BTreeMap<String, u64>,
    yield_after_read: bool,
    fail_next_write: AtomicBool,
    /// Called with the path before each read (to act at a known point of
    /// a long search, without sleeping).
    on_read: Option<ReadHook>,
}

/// See [`TestEnvironment::with_read_hook`].
pub struct ReadHook(Box<dyn Fn(&str) + Send + Sync>);

impl std::fmt::Debug for ReadHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadHook")
    }
}

impl TestEnvironment {
    /// `inner` with no knobs turned on: behaves exactly like it.
    pub fn new(inner: VirtualEnvironmentProvider) -> Self {
        Self {
            inner,
            unlistable: Vec::new(),
            unreadable: Vec::new(),
            symlinks: BTreeMap::new(),
            ignore: None,
            sizes: BTreeMap::new(),
            yield_after_read: false,
            fail_next_write: AtomicBool::new(false),
            on_read: None,
        }
    }

    /// The wrapped provider, to check what was really written.
    pub fn inner(&self) -> &VirtualEnvironmentProvider {
        &self.inner
    }

    /// `list_dir(path)` fails with a permission-denied I/O error.
    pub fn with_unlistable_dir(mut self, path: &str) -> Self {
        self.unlistable.push(path.to_string());
        self
    }

    /// `read_bytes(path)` fails with a permission-denied I/O error.
    pub fn with_unreadable_file(mut self, path: &str) -> Self {
        self.unreadable.push(path.to_string());
        self
    }

    /// `link` is a symlink to the directory `target`, as on disk: `stat`
    /// and the listing of its parent report it as a symlink (its size is
    /// the length of the target path), listing it shows `target`'s
    /// children under `link/`, and reading it fails as reading a
    /// directory does.
    pub fn with_dir_symlink(mut self, link: &str, target: &str) -> Self {
        self.symlinks.insert(link.to_string(), target.to_string());
        self
    }

    /// `is_ignored` answers with `rule`.
    pub fn with_ignore_rule(mut self, rule: IgnoreRule) -> Self {
        self.ignore = Some(rule);
        self
    }

    /// `stat` reports `size` bytes for the file at `path`.
    pub fn with_reported_size(mut self, path: &str, size: u64) -> Self {
        self.sizes.insert(path.to_string(), size);
        self
    }

    /// Every read suspends once between reading the file and returning
    /// its bytes, as any async I/O may.
    pub fn with_yield_after_read(mut self) -> Self {
        self.yield_after_read = true;
        self
    }

    /// Calls `hook` with the path before every read.
    pub fn with_read_hook(mut self, hook: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_read = Some(ReadHook(Box::new(hook)));
        self
    }

    /// The next write is applied and then reports an I/O error (a remote
    /// sandbox whose response timed out after the write); later writes
    /// succeed.
    pub fn with_next_write_failing(self) -> Self {
        self.fail_next_write.store(true, Ordering::SeqCst);
        self
    }

    fn symlink_entry(link: &str, target: &str) -> EnvironmentEntry {
        EnvironmentEntry::new(link, EntryKind::Symlink, target.len() as u64)
    }
}

fn permission_denied(path: &str) -> EnvironmentError {
    EnvironmentError::Io {
        path: path.to_string(),
        source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied"),
    }
}

/// The parent of a root-relative path (`""` for a top-level one).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}

impl EnvironmentProvider for TestEnvironment {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn kind(&self) -> &'static str {
        "test"
    }

    fn read_bytes<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<Vec<u8>, EnvironmentError>> {
        Box::pin(async move {
            if let Some(hook) = &self.on_read {
                (hook.0)(path);
            }
            if self.unreadable.iter().any(|denied| denied == path) {
                return Err(permission_denied(path));
            }
            if self.symlinks.contains_key(path) {
                return Err(EnvironmentError::IsADirectory {
                    path: path.to_string(),
                });
            }
            let bytes = self.inner.read_bytes(path).await;
            if self.yield_after_read {
                tokio::task::yield_now().await;
            }
            bytes
        })
    }

    fn write_bytes<'a>(
        &'a self,
        path: &'a str,
        content: &'a [u8],
    ) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        Box::pin(async move {
            self.inner.write_bytes(path, content).await?;
            if self.fail_next_write.swap(false, Ordering::SeqCst) {
                return Err(EnvironmentError::Io {
                    path: path.to_string(),
                    source: std::io::Error::new(std::io::ErrorKind::TimedOut, "response timed out"),
                });
            }
            Ok(())
        })
    }

    fn stat<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<EnvironmentEntry, EnvironmentError>> {
        Box::pin(async move {
            if let Some(target) = self.symlinks.get(path) {
                return Ok(Self::symlink_entry(path, target));
            }
            let mut entry = self.inner.stat(path).await?;
            if let Some(size) = self.sizes.get(&entry.path) {
                entry.size = *size;
            }
            Ok(entry)
        })
    }

    fn list_dir<'a>(
        &'a self,
        path: &'a str,
    ) -> BoxFuture<'a, Result<Vec<EnvironmentEntry>, EnvironmentError>> {
        Box::pin(async move {
            if self.unlistable.iter().any(|denied| denied == path) {
                return Err(permission_denied(path));
            }
            if let Some(target) = self.symlinks.get(path) {
                let children = self.inner.list_dir(target).await?;
                return Ok(children
                    .into_iter()
                    .map(|child| {
                        EnvironmentEntry::new(
                            format!("{path}/{}", child.name),
                            child.kind,
                            child.size,
                        )
                    })
                    .collect());
            }
            let mut children = self.inner.list_dir(path).await?;
            let links: Vec<_> = self
                .symlinks
                .iter()
                .filter(|(link, _)| parent(link) == path)
                .collect();
            if !links.is_empty() {
                for (link, target) in links {
                    children.push(Self::symlink_entry(link, target));
                }
                children.sort_by(|a, b| a.name.cmp(&b.name));
            }
            Ok(children)
        })
    }

    fn create_dir_all<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        self.inner.create_dir_all(path)
    }

    fn remove<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>> {
        self.inner.remove(path)
    }

    fn is_ignored(&self, path: &str, is_dir: bool) -> bool {
        self.ignore.is_some_and(|rule| rule(path, is_dir))
    }
}
