//! `glob`: paths below a search root that match a ripgrep-style pattern.

use serde::{Deserialize, Serialize};

use super::pattern::PathPattern;
use super::root::search_directory;
use super::{SearchError, WalkOptions, Walker};
use crate::environment::{
    join_path, normalize_path_with, EntryKind, EnvironmentEntry, EnvironmentError,
    EnvironmentProvider,
};

/// Default cap on glob results.
pub const DEFAULT_GLOB_MAX_RESULTS: usize = 1_000;

/// How [`glob`] searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobOptions {
    /// Directory the pattern is relative to (root-relative; `""` is the
    /// environment root).
    pub root: String,
    /// Include hidden paths (see [`WalkOptions::include_hidden`]).
    pub include_hidden: bool,
    /// Skip paths the provider ignores (default true).
    pub respect_ignore: bool,
    /// Match case-insensitively.
    pub case_insensitive: bool,
    /// Return matching directories too (files and symlinks always).
    pub include_dirs: bool,
    /// Stop after this many results; [`GlobReport::truncated`] says more
    /// exist.
    pub max_results: usize,
}

impl Default for GlobOptions {
    fn default() -> Self {
        Self {
            root: String::new(),
            include_hidden: false,
            respect_ignore: true,
            case_insensitive: false,
            include_dirs: false,
            max_results: DEFAULT_GLOB_MAX_RESULTS,
        }
    }
}

impl GlobOptions {
    /// Sets [`Self::root`].
    #[must_use]
    pub fn with_root(mut self, root: impl Into<String>) -> Self {
        self.root = root.into();
        self
    }

    /// Sets [`Self::include_hidden`].
    #[must_use]
    pub fn with_hidden(mut self, include_hidden: bool) -> Self {
        self.include_hidden = include_hidden;
        self
    }

    /// Sets [`Self::max_results`].
    #[must_use]
    pub fn with_max_results(mut self, max_results: usize) -> Self {
        self.max_results = max_results;
        self
    }

    fn walk_options(&self) -> WalkOptions {
        WalkOptions {
            include_hidden: self.include_hidden,
            respect_ignore: self.respect_ignore,
            max_depth: None,
            max_entries: None,
        }
    }
}

/// What [`glob`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobReport {
    /// Matches in walk order (depth-first, names sorted).
    pub entries: Vec<EnvironmentEntry>,
    /// True when more matches exist beyond `max_results`.
    pub truncated: bool,
    /// Subdirectories skipped because they could not be listed.
    pub unreadable_dirs: usize,
    /// The first few of those, so a caller can say where matches may be
    /// missing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable_paths: Vec<String>,
}

/// Paths below `options.root` matching `pattern`, ripgrep-style: bare
/// patterns (`*.rs`) match at any depth, scoped ones (`src/*.rs`) one
/// segment under `src`, `**/*.rs` root-level and nested files. Hidden
/// paths (except the root's direct `.agents/`) and ignored paths are
/// skipped unless the options say otherwise; directory symlinks are not
/// followed, and a symlink as the root is refused.
///
/// ```
/// use starweaver_core::environment::{glob, GlobOptions, VirtualEnvironmentProvider};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let env = VirtualEnvironmentProvider::new("t")
///     .with_file("main.rs", "")
///     .with_file("src/lib.rs", "")
///     .with_file("src/bin/cli.rs", "");
/// let found = |pattern: &'static str| {
///     let env = &env;
///     async move {
///         glob(env, pattern, &GlobOptions::default()).await.unwrap().entries.len()
///     }
/// };
/// assert_eq!(found("*.rs").await, 3);
/// assert_eq!(found("src/*.rs").await, 1);
/// assert_eq!(found("**/*.rs").await, 3);
/// # });
/// ```
///
/// # Errors
/// [`SearchError::InvalidGlob`] for a bad pattern;
/// [`SearchError::Environment`] when the root is invalid, missing or not
/// a directory; [`SearchError::SymlinkRoot`] when it is a symlink.
pub async fn glob(
    provider: &dyn EnvironmentProvider,
    pattern: &str,
    options: &GlobOptions,
) -> Result<GlobReport, SearchError> {
    if let Some(native) = provider.native_glob(pattern, options) {
        return native.await;
    }
    generic_glob(provider, pattern, options).await
}

/// [`glob`] over `list_dir` and `read_bytes`: what every provider
/// without a native search runs, and the reference native searches are
/// tested against.
pub(crate) async fn generic_glob(
    provider: &dyn EnvironmentProvider,
    pattern: &str,
    options: &GlobOptions,
) -> Result<GlobReport, SearchError> {
    let compiled = PathPattern::new(pattern, options.case_insensitive)?;
    let root = normalize_path_with(&options.root, &provider.path_limits())?;
    search_directory(provider, &root).await?;
    let mut matches = GlobWalk::new(provider, root, Some(compiled), options.walk_options()).await;
    let mut report = GlobReport::default();
    while let Some(entry) = matches.next_match().await? {
        if entry.is_dir() && !options.include_dirs {
            continue;
        }
        if report.entries.len() >= options.max_results {
            report.truncated = true;
            break;
        }
        report.entries.push(entry);
    }
    report.unreadable_dirs = matches.unreadable_dirs();
    report.unreadable_paths = matches.unreadable_paths().to_vec();
    Ok(report)
}

/// A walk that yields only entries matching a pattern (every entry when
/// there is none), starting below the pattern's literal prefix and
/// stopping at its depth. Grep reuses it for its glob filter.
#[derive(Debug)]
pub(crate) struct GlobWalk<'a> {
    root: String,
    pattern: Option<PathPattern>,
    walker: Option<Walker<'a>>,
}

impl<'a> GlobWalk<'a> {
    /// Resolves the pattern's literal prefix below `root`, which the
    /// caller has checked to be a directory (see
    /// [`super::root::search_directory`]).
    ///
    /// Only `root` may fail the search, as in a full walk: a prefix
    /// directory that cannot be examined or listed is counted in
    /// [`Self::unreadable_dirs`], never an error.
    pub(crate) async fn new(
        provider: &'a dyn EnvironmentProvider,
        root: String,
        pattern: Option<PathPattern>,
        mut options: WalkOptions,
    ) -> Self {
        options.max_depth = pattern.as_ref().and_then(PathPattern::depth);
        let start = literal_start(provider, &root, pattern.as_ref(), &options).await;
        // Below the root, `starting_at` counts a failure to list `start`
        // like any subdirectory's.
        let walker =
            start.map(|(start, depth)| Walker::starting_at(provider, start, depth, options));
        Self {
            root,
            pattern,
            walker,
        }
    }

    /// The next matching entry of any kind.
    ///
    /// # Errors
    /// When the search root cannot be listed.
    pub(crate) async fn next_match(&mut self) -> Result<Option<EnvironmentEntry>, SearchError> {
        let Some(walker) = self.walker.as_mut() else {
            return Ok(None);
        };
        while let Some(entry) = walker.next_entry().await? {
            let Some(relative) = relative_to(&self.root, &entry.path) else {
                continue;
            };
            if self
                .pattern
                .as_ref()
                .is_none_or(|pattern| pattern.is_match(relative))
            {
                return Ok(Some(entry));
            }
        }
        Ok(None)
    }

    /// See [`Walker::unreadable_dirs`].
    pub(crate) fn unreadable_dirs(&self) -> usize {
        self.walker.as_ref().map_or(0, Walker::unreadable_dirs)
    }

    /// See [`Walker::unreadable_paths`].
    pub(crate) fn unreadable_paths(&self) -> &[String] {
        self.walker.as_ref().map_or(&[], Walker::unreadable_paths)
    }
}

/// Where a walk for `pattern` below `root` (checked to be a directory)
/// starts: the deepest directory of the pattern's literal prefix that a
/// full walk would enter, with the depth its children have below
/// `root`. `None` when the prefix cannot hold matches (hidden, ignored,
/// missing, a file or a symlink), so nothing needs walking.
///
/// Each literal directory is stepped into under the rules a full walk
/// applies. One that cannot be examined is walked to from the directory
/// above, as a full walk would reach it, so the results (and what is
/// counted unreadable) stay those of a full walk.
pub(crate) async fn literal_start(
    provider: &dyn EnvironmentProvider,
    root: &str,
    pattern: Option<&PathPattern>,
    options: &WalkOptions,
) -> Option<(String, usize)> {
    let prefix = pattern.map_or(&[][..], PathPattern::prefix);
    let mut start = root.to_string();
    let mut depth = 1;
    for segment in prefix {
        let path = join_path(&start, segment);
        if options.skips(provider, segment, &path, depth, true) {
            return None;
        }
        match provider.stat(&path).await {
            Ok(entry) if entry.kind == EntryKind::Directory => {}
            Ok(_)
            | Err(EnvironmentError::NotFound { .. } | EnvironmentError::NotADirectory { .. }) => {
                return None
            }
            Err(_) => break,
        }
        start = path;
        depth += 1;
    }
    Some((start, depth))
}

/// `path` relative to the search root `root`.
pub(crate) fn relative_to<'p>(root: &str, path: &'p str) -> Option<&'p str> {
    if root.is_empty() {
        Some(path)
    } else {
        path.strip_prefix(root)?.strip_prefix('/')
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::environment::VirtualEnvironmentProvider;
    use crate::BoxFuture;

    /// Over a virtual tree, `stat` and `list_dir` fail for the listed
    /// paths (permission denied).
    #[derive(Debug)]
    struct Denied {
        inner: VirtualEnvironmentProvider,
        stat: &'static [&'static str],
        list: &'static [&'static str],
    }

    fn denied(path: &str) -> EnvironmentError {
        EnvironmentError::Io {
            path: path.to_string(),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied"),
        }
    }

    impl EnvironmentProvider for Denied {
        fn name(&self) -> &str {
            "denied"
        }

        fn kind(&self) -> &'static str {
            "test"
        }

        fn read_bytes<'a>(
            &'a self,
            path: &'a str,
        ) -> BoxFuture<'a, Result<Vec<u8>, EnvironmentError>> {
            self.inner.read_bytes(path)
        }

        fn write_bytes<'a>(
            &'a self,
            path: &'a str,
            content: &'a [u8],
        ) -> BoxFuture<'a, Result<(), EnvironmentError>> {
            self.inner.write_bytes(path, content)
        }

        fn stat<'a>(
            &'a self,
            path: &'a str,
        ) -> BoxFuture<'a, Result<EnvironmentEntry, EnvironmentError>> {
            if self.stat.contains(&path) {
                return Box::pin(async move { Err(denied(path)) });
            }
            self.inner.stat(path)
        }

        fn list_dir<'a>(
            &'a self,
            path: &'a str,
        ) -> BoxFuture<'a, Result<Vec<EnvironmentEntry>, EnvironmentError>> {
            if self.list.contains(&path) {
                return Box::pin(async move { Err(denied(path)) });
            }
            self.inner.list_dir(path)
        }

        fn create_dir_all<'a>(
            &'a self,
            path: &'a str,
        ) -> BoxFuture<'a, Result<(), EnvironmentError>> {
            self.inner.create_dir_all(path)
        }

        fn remove<'a>(&'a self, path: &'a str) -> BoxFuture<'a, Result<(), EnvironmentError>> {
            self.inner.remove(path)
        }
    }

    fn tree(stat: &'static [&'static str], list: &'static [&'static str]) -> Denied {
        Denied {
            inner: VirtualEnvironmentProvider::new("t")
                .with_file("a/b/c/x.txt", "")
                .with_file("a/b/y.txt", "")
                .with_file("a/z.txt", ""),
            stat,
            list,
        }
    }

    async fn found(provider: &Denied, pattern: &str, root: &str) -> (Vec<String>, Vec<String>) {
        let options = GlobOptions::default().with_root(root);
        let report = glob(provider, pattern, &options).await.unwrap_or_default();
        assert_eq!(report.unreadable_dirs, report.unreadable_paths.len());
        let paths = report.entries.into_iter().map(|e| e.path).collect();
        (paths, report.unreadable_paths)
    }

    #[tokio::test]
    async fn a_prefix_directory_that_cannot_be_listed_is_counted() {
        let provider = tree(&[], &["a/b"]);
        for pattern in ["a/b/*.txt", "{a}/b/*.txt", "**/*.txt"] {
            let (_, unreadable) = found(&provider, pattern, "").await;
            assert_eq!(unreadable, ["a/b"], "{pattern}");
        }
        let (paths, unreadable) = found(&provider, "b/*.txt", "a").await;
        assert!(paths.is_empty());
        assert_eq!(unreadable, ["a/b"]);
        // A directory that can be examined but not listed is stepped
        // through (`stat` of what lies below it works).
        assert_eq!(
            found(&provider, "a/b/c/*.txt", "").await,
            (vec!["a/b/c/x.txt".to_string()], Vec::new())
        );
    }

    #[tokio::test]
    async fn a_prefix_directory_that_cannot_be_examined_is_walked_to() {
        // `stat` fails but listing works: the walk from above finds it.
        let provider = tree(&["a/b"], &[]);
        assert_eq!(
            found(&provider, "a/b/c/*.txt", "").await,
            (vec!["a/b/c/x.txt".to_string()], Vec::new())
        );
        // Both fail: counted as the full walk counts it.
        let provider = tree(&["a/b"], &["a/b"]);
        for pattern in ["a/b/c/*.txt", "**/*.txt"] {
            let (_, unreadable) = found(&provider, pattern, "").await;
            assert_eq!(unreadable, ["a/b"], "{pattern}");
        }
    }

    #[tokio::test]
    async fn only_the_search_root_fails_the_walk() {
        let provider = tree(&[], &["a"]);
        let options = GlobOptions::default().with_root("a");
        assert!(glob(&provider, "*.txt", &options).await.is_err());
        let (paths, unreadable) = found(&provider, "a/*.txt", "").await;
        assert!(paths.is_empty());
        assert_eq!(unreadable, ["a"]);
        // Failing `stat` right below the root walks from the root, whose
        // listing may fail the walk, as it would without the prefix.
        let provider = tree(&["a"], &[""]);
        assert!(glob(&provider, "a/*.txt", &GlobOptions::default())
            .await
            .is_err());
        let provider = tree(&["a"], &["a"]);
        assert_eq!(found(&provider, "a/b/*.txt", "").await.1, ["a"]);
    }
}
