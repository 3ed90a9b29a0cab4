//! Native grep: the parallel walk lists the files, readers search them
//! in parallel a chunk at a time, and the results are taken in walk
//! order, so matches, counters and truncation equal the generic grep's.

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};

use super::super::open::READ_FLAGS;
use regex::Regex;

use super::cancel::Cancel;
use super::order::walk_order;
use super::walk::WalkPlan;
use crate::environment::{
    into_text, relative_to, EntryKind, GrepOptions, GrepReport, GrepSearch, PathPattern,
    SearchError,
};

/// Files one grep considers at most; past it the report is truncated
/// (and which files were considered depends on the walk's threads).
/// Their paths are held in memory (about 100 bytes each).
pub(super) const MAX_GREP_FILES: usize = 1_000_000;
/// The most a read reserves up front (16 MiB); a larger file grows the
/// buffer as it is read.
const INITIAL_READ_RESERVE: u64 = 16 * 1024 * 1024;
/// Files read in parallel before their results are taken in order.
const CHUNK_FILES: usize = 1_024;
/// Text of matching files kept for the in-order pass (per chunk, and
/// for what the walk read); a matching file past it is read again when
/// its turn comes.
const RETAINED_BYTES: usize = 64 * 1024 * 1024;

/// What [`grep_blocking`] needs.
pub(super) struct GrepJob {
    /// The walk.
    pub(super) plan: WalkPlan,
    /// The search root (root-relative).
    pub(super) root: String,
    /// The `glob` filter, compiled.
    pub(super) filter: Option<PathPattern>,
    /// The confined root every file is opened through.
    pub(super) dir: Arc<Dir>,
    /// The caller's options.
    pub(super) options: GrepOptions,
    /// The compiled expression.
    pub(super) regex: Regex,
}

/// What reading one file found, before the in-order pass.
enum Outcome {
    Large,
    Unreadable,
    Binary,
    NoMatch,
    /// The text, or `None` when the retention budget was spent.
    Matched(Option<String>),
}

/// A file found by the walk, and what reading it found if it was read
/// during the walk.
type Found = (String, Option<Outcome>);

/// Runs a grep on the calling (blocking) thread.
///
/// The walker's threads read the files they find while they walk, as
/// ripgrep does, until they have seen as many matching files as the
/// grep can return or the retained text reaches its budget; after that
/// they only list. The files are then taken in walk order, and any not
/// read yet are read a chunk at a time, in parallel, up to where the
/// grep stops. So a rare pattern costs one overlapped pass, and a common
/// one stops early, as the generic grep does.
pub(super) fn grep_blocking(job: &GrepJob, cancel: &Cancel) -> Result<GrepReport, SearchError> {
    let found: Mutex<Vec<Found>> = Mutex::new(Vec::new());
    let counted = AtomicUsize::new(0);
    let matched_files = AtomicUsize::new(0);
    let retained = AtomicUsize::new(0);
    let unreadable = job.plan.run(cancel, &|visit| {
        if visit.kind != EntryKind::File {
            return;
        }
        let Some(relative) = relative_to(&job.root, visit.path) else {
            return;
        };
        if job
            .filter
            .as_ref()
            .is_some_and(|filter| !filter.is_match(relative))
        {
            return;
        }
        if counted.fetch_add(1, Ordering::Relaxed) >= MAX_GREP_FILES {
            return;
        }
        let speculate = matched_files.load(Ordering::Relaxed) < job.options.max_matches
            && retained.load(Ordering::Relaxed) < RETAINED_BYTES;
        let outcome = speculate.then(|| examine(job, visit.path, &retained));
        if matches!(outcome, Some(Outcome::Matched(_))) {
            matched_files.fetch_add(1, Ordering::Relaxed);
        }
        found
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((visit.path.to_string(), outcome));
    });
    let (unreadable_dirs, unreadable_paths) =
        unreadable.settle(&job.plan.start, job.plan.start_depth)?;
    let too_many = counted.into_inner() > MAX_GREP_FILES;
    let mut files = found.into_inner().unwrap_or_else(PoisonError::into_inner);
    files.sort_unstable_by(|a, b| walk_order(&a.0, &b.0));
    let mut search = GrepSearch::new(job.regex.clone(), &job.options);
    let mut stopped = false;
    for chunk in files.chunks_mut(CHUNK_FILES) {
        if cancel.is_cancelled() {
            break;
        }
        read_missing(job, chunk, cancel);
        for (path, outcome) in chunk.iter_mut() {
            if take(&mut search, job, path, outcome.take()) {
                stopped = true;
                break;
            }
        }
        if stopped {
            break;
        }
    }
    search.unreadable_dirs(unreadable_dirs, &unreadable_paths);
    let mut report = search.finish();
    report.truncated |= too_many && !stopped;
    Ok(report)
}

/// Feeds one file's outcome to the in-order search; true once the
/// search is done.
fn take(search: &mut GrepSearch<'_>, job: &GrepJob, path: &str, outcome: Option<Outcome>) -> bool {
    match outcome.unwrap_or(Outcome::Unreadable) {
        Outcome::Large => search.skip_large(),
        Outcome::Binary => search.skip_binary(),
        Outcome::Unreadable => search.unreadable(path),
        Outcome::NoMatch => search.searched_without_match(),
        Outcome::Matched(Some(text)) => return search.text(path, &text),
        Outcome::Matched(None) => match read(job, path) {
            Ok(Some(text)) => return search.text(path, &text),
            Ok(None) => search.skip_binary(),
            Err(Outcome::Large) => search.skip_large(),
            Err(_) => search.unreadable(path),
        },
    }
    false
}

/// Reads, on parallel threads, the files of `chunk` the walk did not
/// read.
fn read_missing(job: &GrepJob, chunk: &mut [Found], cancel: &Cancel) {
    let missing: Vec<usize> = (0..chunk.len())
        .filter(|&index| {
            chunk
                .get(index)
                .is_some_and(|(_, outcome)| outcome.is_none())
        })
        .collect();
    if missing.is_empty() {
        return;
    }
    let paths: Vec<&str> = missing
        .iter()
        .filter_map(|&index| chunk.get(index).map(|(path, _)| path.as_str()))
        .collect();
    let outcomes = read_chunk(job, &paths, cancel);
    for (index, outcome) in missing.into_iter().zip(outcomes) {
        if let Some(slot) = chunk.get_mut(index) {
            slot.1 = Some(outcome);
        }
    }
}

/// Reads and pre-matches a chunk of files on parallel threads.
fn read_chunk(job: &GrepJob, chunk: &[&str], cancel: &Cancel) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let retained = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Outcome>>> = chunk.iter().map(|_| Mutex::new(None)).collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|scope| {
        for _ in 0..threads.min(chunk.len()) {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = chunk.get(index) else {
                    break;
                };
                if cancel.is_cancelled() {
                    break;
                }
                let outcome = examine(job, path, &retained);
                if let Some(slot) = slots.get(index) {
                    *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .unwrap_or(Outcome::Unreadable)
        })
        .collect()
}

/// One file: its size, its text, whether the expression matches it.
fn examine(job: &GrepJob, path: &str, retained: &AtomicUsize) -> Outcome {
    let text = match read(job, path) {
        Ok(Some(text)) => text,
        Ok(None) => return Outcome::Binary,
        Err(outcome) => return outcome,
    };
    if !job.regex.is_match(&text) {
        return Outcome::NoMatch;
    }
    let kept = retained.fetch_add(text.len(), Ordering::Relaxed) + text.len();
    Outcome::Matched((kept <= RETAINED_BYTES).then_some(text))
}

/// A file's text through the confined root: `Ok(None)` for binary,
/// `Err(Large)` past the size limit, `Err(Unreadable)` when it cannot be
/// opened or read (a link swapped in that leads out is refused here).
fn read(job: &GrepJob, path: &str) -> Result<Option<String>, Outcome> {
    // Non-blocking, and checked through the handle: a FIFO or device
    // swapped in after the walk is neither waited on nor read.
    let file = job
        .dir
        .open_with(path, OpenOptions::new().read(true).custom_flags(READ_FLAGS))
        .map_err(|_| Outcome::Unreadable)?;
    let metadata = file.metadata().map_err(|_| Outcome::Unreadable)?;
    if !metadata.is_file() {
        return Err(Outcome::Unreadable);
    }
    let size = metadata.len();
    if size > job.options.max_file_bytes {
        return Err(Outcome::Large);
    }
    let limit = job.options.max_file_bytes.saturating_add(1);
    // Sized from the handle, so a file is read in one call plus the one
    // that sees its end.
    // Capped, so a limit raised near `u64::MAX` cannot reserve it at once.
    let reserve = size.saturating_add(1).min(INITIAL_READ_RESERVE);
    let mut bytes = Vec::with_capacity(usize::try_from(reserve).unwrap_or(0));
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|_| Outcome::Unreadable)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > job.options.max_file_bytes {
        return Err(Outcome::Large);
    }
    Ok(into_text(bytes))
}
