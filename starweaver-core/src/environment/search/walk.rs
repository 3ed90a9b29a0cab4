//! Recursive listing over `list_dir`: the traversal glob and grep share.

use super::pace::Pace;
use super::root::search_directory;
use super::visibility::hides;
use super::SearchError;
use crate::environment::{normalize_path_with, EnvironmentEntry, EnvironmentProvider};

/// Unreadable directories a walk names (it counts them all).
pub(crate) const NAMED_UNREADABLE: usize = 10;

/// What a walk visits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkOptions {
    /// Visit hidden entries (names starting with a dot). When false (the
    /// default), hidden entries are skipped and not descended, except the
    /// search root's direct `.agents/` directory (see
    /// [`super::is_hidden_excluded`]).
    pub include_hidden: bool,
    /// Skip what [`EnvironmentProvider::is_ignored`] excludes (default
    /// true).
    pub respect_ignore: bool,
    /// Deepest level to visit; 1 lists the root's direct children only,
    /// and 0 visits nothing (the root itself is never yielded). `None`
    /// (the default) has no limit.
    pub max_depth: Option<usize>,
    /// Stop after this many entries (`None`, the default, visits all).
    pub max_entries: Option<usize>,
}

impl Default for WalkOptions {
    fn default() -> Self {
        Self {
            include_hidden: false,
            respect_ignore: true,
            max_depth: None,
            max_entries: None,
        }
    }
}

impl WalkOptions {
    /// Whether a walk with these options skips the entry `name` (at
    /// `path`, `depth` levels below the search root): hidden when hidden
    /// entries are excluded, or ignored by the provider when ignores are
    /// respected. Walks and glob's literal-prefix steps share this rule.
    pub(crate) fn skips(
        &self,
        provider: &dyn EnvironmentProvider,
        name: &str,
        path: &str,
        depth: usize,
        is_dir: bool,
    ) -> bool {
        (!self.include_hidden && hides(name, depth, is_dir))
            || (self.respect_ignore && provider.is_ignored(path, is_dir))
    }

    /// Sets [`Self::include_hidden`].
    #[must_use]
    pub fn with_hidden(mut self, include_hidden: bool) -> Self {
        self.include_hidden = include_hidden;
        self
    }

    /// Sets [`Self::max_depth`].
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = Some(max_depth);
        self
    }

    /// Sets [`Self::max_entries`].
    #[must_use]
    pub fn with_max_entries(mut self, max_entries: usize) -> Self {
        self.max_entries = Some(max_entries);
        self
    }
}

/// One directory level being visited.
#[derive(Debug)]
struct Level {
    entries: std::vec::IntoIter<EnvironmentEntry>,
    depth: usize,
}

/// A depth-first, pre-order walk yielding one entry at a time, children
/// in name order, so output is deterministic and a search can stop early
/// without listing the rest of a large tree. Directory symlinks are
/// reported but never followed, the root included. The walk yields to
/// the runtime every few dozen entries, so timeouts and cancellation act
/// on long walks.
#[derive(Debug)]
pub struct Walker<'a> {
    provider: &'a dyn EnvironmentProvider,
    options: WalkOptions,
    stack: Vec<Level>,
    pending: Option<(String, usize)>,
    /// True until the root was checked (false when the caller did).
    check_root: bool,
    /// True until the search root was listed (false when the walk starts
    /// below it): only that listing may fail the walk.
    listing_root: bool,
    unreadable_dirs: usize,
    unreadable_paths: Vec<String>,
    pace: Pace,
}

impl<'a> Walker<'a> {
    /// A walk of everything below `root` (the root itself is not
    /// yielded).
    ///
    /// # Errors
    /// [`crate::environment::EnvironmentError::PathEscape`] or
    /// [`crate::environment::EnvironmentError::InvalidPath`] for a bad
    /// root. A missing root, a file or a symlink as the root is reported
    /// by the first [`Self::next_entry`].
    pub fn new(
        provider: &'a dyn EnvironmentProvider,
        root: &str,
        options: &WalkOptions,
    ) -> Result<Self, SearchError> {
        let root = normalize_path_with(root, &provider.path_limits())?;
        let mut walker = Self::starting_at(provider, root, 1, options.clone());
        walker.check_root = true;
        Ok(walker)
    }

    /// A walk that starts listing `start` (already normalized and checked
    /// to be a directory), whose children sit at `depth` below the search
    /// root. Glob uses it to skip a pattern's literal prefix it has
    /// already checked.
    ///
    /// A `depth` of 1 makes `start` the search root, which fails the walk
    /// when it cannot be listed. A deeper `start` is a subdirectory a walk
    /// from the root would have reached, so a failure to list it is
    /// counted in [`Self::unreadable_dirs`] as that walk would count it.
    pub(crate) fn starting_at(
        provider: &'a dyn EnvironmentProvider,
        start: String,
        depth: usize,
        options: WalkOptions,
    ) -> Self {
        Self {
            provider,
            options,
            stack: Vec::new(),
            pending: Some((start, depth)),
            check_root: false,
            listing_root: depth == 1,
            unreadable_dirs: 0,
            unreadable_paths: Vec::new(),
            pace: Pace::default(),
        }
    }

    /// The next entry, or `None` when the walk is done.
    ///
    /// # Errors
    /// Only the search root fails the walk (not found, not a directory, a
    /// symlink, ...). A subdirectory that cannot be listed (removed
    /// meanwhile, permission denied) is skipped and counted in
    /// [`Self::unreadable_dirs`].
    pub async fn next_entry(&mut self) -> Result<Option<EnvironmentEntry>, SearchError> {
        loop {
            self.pace.step(0).await;
            if let Some((directory, depth)) = self.pending.take() {
                if std::mem::take(&mut self.check_root) {
                    search_directory(self.provider, &directory).await?;
                }
                if self.options.max_depth.is_none_or(|max| depth <= max) {
                    self.list(directory, depth).await?;
                }
                self.listing_root = false;
            }
            let Some(level) = self.stack.last_mut() else {
                return Ok(None);
            };
            let depth = level.depth;
            let Some(entry) = level.entries.next() else {
                self.stack.pop();
                continue;
            };
            if !self.admits(&entry, depth) {
                continue;
            }
            if entry.is_dir() && self.options.max_depth.is_none_or(|max| depth < max) {
                self.pending = Some((entry.path.clone(), depth + 1));
            }
            return Ok(Some(entry));
        }
    }

    /// Subdirectories skipped because they could not be listed.
    #[must_use]
    pub fn unreadable_dirs(&self) -> usize {
        self.unreadable_dirs
    }

    /// The first few of [`Self::unreadable_dirs`], so a caller can say
    /// where results may be missing.
    #[must_use]
    pub fn unreadable_paths(&self) -> &[String] {
        &self.unreadable_paths
    }

    /// Pushes the children of `directory`; a failure fails the walk only
    /// for the search root.
    async fn list(&mut self, directory: String, depth: usize) -> Result<(), SearchError> {
        match self.provider.list_dir(&directory).await {
            Ok(mut entries) => {
                // Providers promise name order; sorting sorted input is
                // linear and keeps output stable anyway.
                entries.sort_by(|a, b| a.name.cmp(&b.name));
                self.stack.push(Level {
                    entries: entries.into_iter(),
                    depth,
                });
            }
            Err(error) if self.listing_root => return Err(error.into()),
            Err(_) => {
                self.unreadable_dirs += 1;
                if self.unreadable_paths.len() < NAMED_UNREADABLE {
                    self.unreadable_paths.push(directory);
                }
            }
        }
        Ok(())
    }

    fn admits(&self, entry: &EnvironmentEntry, depth: usize) -> bool {
        !self.options.skips(
            self.provider,
            &entry.name,
            &entry.path,
            depth,
            entry.is_dir(),
        )
    }
}

/// Every entry below `root`, depth-first with children in name order,
/// applying the hidden and ignore rules of `options` and stopping after
/// `options.max_entries` (or at once with a `max_depth` of 0).
///
/// ```
/// use starweaver_core::environment::{walk, VirtualEnvironmentProvider, WalkOptions};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let env = VirtualEnvironmentProvider::new("t")
///     .with_file("src/lib.rs", "")
///     .with_file(".git/HEAD", "");
/// let paths: Vec<String> = walk(&env, "", &WalkOptions::default())
///     .await
///     .unwrap()
///     .into_iter()
///     .map(|entry| entry.path)
///     .collect();
/// assert_eq!(paths, ["src", "src/lib.rs"]);
/// # });
/// ```
///
/// # Errors
/// When `root` is invalid, missing, not a directory or a symlink
/// ([`SearchError::SymlinkRoot`]).
pub async fn walk(
    provider: &dyn EnvironmentProvider,
    root: &str,
    options: &WalkOptions,
) -> Result<Vec<EnvironmentEntry>, SearchError> {
    let mut walker = Walker::new(provider, root, options)?;
    let mut entries = Vec::new();
    while options.max_entries.is_none_or(|max| entries.len() < max) {
        match walker.next_entry().await? {
            Some(entry) => entries.push(entry),
            None => break,
        }
    }
    Ok(entries)
}
