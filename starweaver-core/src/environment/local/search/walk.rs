//! The parallel walk both native searches share: ripgrep's walker over
//! the real tree, with the generic walk's hidden, ignore and symlink
//! rules applied to every entry.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use cap_std::fs::Dir;
use ignore::{DirEntry, WalkBuilder, WalkState};

use super::super::files::leads_out;
use super::cancel::Cancel;
use super::order::FirstInOrder;
use crate::environment::{hides, EntryKind, EnvironmentError, NAMED_UNREADABLE};

/// The provider's ignore rules, callable from the walker's threads:
/// `(root-relative path, is_dir) -> ignored`.
pub(in crate::environment::local) type IgnoreCheck = Arc<dyn Fn(&str, bool) -> bool + Send + Sync>;

/// What to walk.
#[derive(Clone)]
pub(super) struct WalkPlan {
    /// The environment root on disk.
    pub(super) base: PathBuf,
    /// Where the walk starts (root-relative): the search root, or the
    /// deepest literal directory of a glob below it.
    pub(super) start: String,
    /// How deep below the search root the start's children are (1 when
    /// the walk starts at the search root).
    pub(super) start_depth: usize,
    /// The deepest level below the search root worth visiting.
    pub(super) max_depth: Option<usize>,
    /// Visit hidden entries.
    pub(super) include_hidden: bool,
    /// The ignore rules, when they apply.
    pub(super) ignored: Option<IgnoreCheck>,
    /// The confined root, to tell links leading out (never listed).
    pub(super) dir: Arc<Dir>,
}

/// One admitted entry.
pub(super) struct Visit<'e> {
    /// The walker's entry (for its metadata).
    pub(super) entry: &'e DirEntry,
    /// Root-relative path.
    pub(super) path: &'e str,
    /// File, directory or link (links are never followed).
    pub(super) kind: EntryKind,
}

/// Directories the walk could not list.
#[derive(Debug, Default)]
pub(super) struct Unreadable {
    /// How many.
    pub(super) count: usize,
    /// The first few in walk order.
    pub(super) paths: Vec<String>,
    /// The start directory itself could not be listed: the reason.
    pub(super) start_failed: Option<String>,
}

impl Unreadable {
    /// The count and the named paths. When the walk started at the
    /// search root (`start_depth` 1) and could not list it, the search
    /// fails, as the generic walk does; a start below the root counts
    /// like any subdirectory.
    ///
    /// # Errors
    /// An I/O error naming the search root.
    pub(super) fn settle(
        mut self,
        start: &str,
        start_depth: usize,
    ) -> Result<(usize, Vec<String>), EnvironmentError> {
        if let Some(reason) = self.start_failed.take() {
            if start_depth == 1 {
                return Err(EnvironmentError::Io {
                    path: start.to_string(),
                    source: std::io::Error::other(reason),
                });
            }
            self.count += 1;
            self.paths.push(start.to_string());
            self.paths.sort_by(|a, b| super::order::walk_order(a, b));
            self.paths.truncate(NAMED_UNREADABLE);
        }
        Ok((self.count, self.paths))
    }
}

impl WalkPlan {
    fn threads() -> usize {
        std::thread::available_parallelism().map_or(2, |n| n.get().min(8))
    }

    /// The search depth of a walker entry (the start itself is 0 to the
    /// walker).
    fn depth_of(&self, walker_depth: usize) -> usize {
        self.start_depth - 1 + walker_depth
    }

    /// Walks in parallel, calling `visit` (from any thread, in no order)
    /// for every entry the rules admit, until done or cancelled.
    pub(super) fn run(&self, cancel: &Cancel, visit: &(dyn Fn(Visit<'_>) + Sync)) -> Unreadable {
        let walker_max = match self.max_depth {
            Some(max) if max + 1 < self.start_depth => return Unreadable::default(),
            Some(max) => Some(max + 1 - self.start_depth),
            None => None,
        };
        let mut builder = WalkBuilder::new(self.base.join(&self.start));
        builder
            .standard_filters(false)
            .follow_links(false)
            .threads(Self::threads())
            .max_depth(walker_max);
        let filter = self.clone();
        builder.filter_entry(move |entry| filter.admits(entry));
        let failures = Mutex::new((0usize, FirstInOrder::new(NAMED_UNREADABLE), None));
        builder.build_parallel().run(|| {
            Box::new(|result| {
                if cancel.is_cancelled() {
                    return WalkState::Quit;
                }
                match result {
                    Ok(entry) => {
                        if entry.depth() == 0 {
                            return WalkState::Continue;
                        }
                        if let (Some(path), Some(kind)) =
                            (self.relative(entry.path()), kind(&entry))
                        {
                            visit(Visit {
                                entry: &entry,
                                path,
                                kind,
                            });
                        }
                    }
                    Err(error) => {
                        let path = error_path(&error).and_then(|path| self.relative(path));
                        let path = path.map_or_else(|| self.start.clone(), str::to_string);
                        let mut failures = failures.lock().unwrap_or_else(PoisonError::into_inner);
                        if path == self.start {
                            failures.2 = Some(error.to_string());
                        } else {
                            failures.0 += 1;
                            failures.1.offer(path, ());
                        }
                    }
                }
                WalkState::Continue
            })
        });
        let (count, first, start_failed) = failures
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        Unreadable {
            count,
            paths: first.into_sorted().into_iter().map(|o| o.path).collect(),
            start_failed,
        }
    }

    /// The generic walk's rules for one entry: hidden entries (except the
    /// search root's direct `.agents/`), ignored ones, links leading out
    /// of the root, and names that are not UTF-8 (they have no
    /// root-relative path) are left out, as the provider's listings
    /// leave them out.
    fn admits(&self, entry: &DirEntry) -> bool {
        if entry.depth() == 0 {
            return true;
        }
        let Some(path) = self.relative(entry.path()) else {
            return false;
        };
        let kind = kind(entry);
        if kind == Some(EntryKind::Symlink) && leads_out(&self.dir, path) {
            return false;
        }
        let is_dir = kind == Some(EntryKind::Directory);
        let name = crate::environment::file_name(path);
        let depth = self.depth_of(entry.depth());
        if !self.include_hidden && hides(name, depth, is_dir) {
            return false;
        }
        !self
            .ignored
            .as_ref()
            .is_some_and(|ignored| ignored(path, is_dir))
    }

    /// The root-relative form of a path below the base, borrowed from
    /// it. The walker builds every path by joining names onto the base,
    /// so the base is a byte prefix: cutting it off is exact, and far
    /// cheaper than comparing component by component, twice per entry.
    fn relative<'p>(&self, path: &'p Path) -> Option<&'p str> {
        let base = self.base.as_os_str().as_encoded_bytes();
        let rest = path.as_os_str().as_encoded_bytes().strip_prefix(base)?;
        let rest = match rest {
            [] => rest,
            [b'/', rest @ ..] => rest,
            _ if base.ends_with(b"/") => rest,
            _ => return None,
        };
        std::str::from_utf8(rest).ok()
    }
}

/// The entry's kind, not following links; `None` for anything that is
/// not a file, a directory or a link.
fn kind(entry: &DirEntry) -> Option<EntryKind> {
    let file_type = entry.file_type()?;
    if file_type.is_symlink() {
        Some(EntryKind::Symlink)
    } else if file_type.is_dir() {
        Some(EntryKind::Directory)
    } else if file_type.is_file() {
        Some(EntryKind::File)
    } else {
        // Sockets, FIFOs and devices: reading one could block or never
        // end, so searches leave them out.
        None
    }
}

/// The path a walker error names, looking through its wrappers.
fn error_path(error: &ignore::Error) -> Option<&Path> {
    let mut error = error;
    loop {
        match error {
            ignore::Error::WithPath { path, .. } => return Some(path),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                error = err;
            }
            _ => return None,
        }
    }
}
