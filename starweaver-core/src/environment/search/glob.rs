//! `glob`: paths below a search root that match a ripgrep-style pattern.

use serde::{Deserialize, Serialize};

use super::pattern::PathPattern;
use super::root::search_directory;
use super::{SearchError, WalkOptions, Walker};
use crate::environment::{
    join_path, normalize_path, EntryKind, EnvironmentEntry, EnvironmentError, EnvironmentProvider,
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
    let compiled = PathPattern::new(pattern, options.case_insensitive)?;
    let root = normalize_path(&options.root)?;
    search_directory(provider, &root).await?;
    let mut matches = GlobWalk::new(provider, root, Some(compiled), options.walk_options()).await?;
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
    /// # Errors
    /// When a prefix directory cannot be examined.
    pub(crate) async fn new(
        provider: &'a dyn EnvironmentProvider,
        root: String,
        pattern: Option<PathPattern>,
        mut options: WalkOptions,
    ) -> Result<Self, SearchError> {
        options.max_depth = pattern.as_ref().and_then(PathPattern::depth);
        let prefix = pattern.as_ref().map_or(&[][..], PathPattern::prefix);
        let mut start = root.clone();
        let mut depth = 1;
        let mut reachable = true;
        // Step straight into each literal directory, applying the rules a
        // full walk would: hidden, ignored, and symlinks (which `stat`
        // reports as such, like `list_dir`) are not entered.
        for segment in prefix {
            let path = join_path(&start, segment);
            let hidden = !options.include_hidden && super::visibility::hides(segment, depth, true);
            if hidden || (options.respect_ignore && provider.is_ignored(&path, true)) {
                reachable = false;
                break;
            }
            match provider.stat(&path).await {
                Ok(entry) if entry.kind == EntryKind::Directory => {}
                Ok(_)
                | Err(EnvironmentError::NotFound { .. } | EnvironmentError::NotADirectory { .. }) =>
                {
                    reachable = false;
                    break;
                }
                Err(error) => return Err(error.into()),
            }
            start = path;
            depth += 1;
        }
        let walker = reachable.then(|| Walker::starting_at(provider, start, depth, options));
        Ok(Self {
            root,
            pattern,
            walker,
        })
    }

    /// The next matching entry of any kind.
    ///
    /// # Errors
    /// When the first directory cannot be listed.
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

/// `path` relative to the search root `root`.
pub(crate) fn relative_to<'p>(root: &str, path: &'p str) -> Option<&'p str> {
    if root.is_empty() {
        Some(path)
    } else {
        path.strip_prefix(root)?.strip_prefix('/')
    }
}
