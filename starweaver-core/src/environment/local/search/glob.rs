//! Native glob: the parallel walk, matches kept in walk order.

use std::sync::{Mutex, PoisonError};

use super::cancel::Cancel;
use super::order::FirstInOrder;
use super::walk::WalkPlan;
use crate::environment::{
    relative_to, EntryKind, EnvironmentEntry, GlobOptions, GlobReport, PathPattern, SearchError,
};

/// What [`glob_blocking`] needs besides the plan.
pub(super) struct GlobJob {
    /// The walk.
    pub(super) plan: WalkPlan,
    /// The search root (root-relative).
    pub(super) root: String,
    /// The compiled pattern.
    pub(super) pattern: PathPattern,
    /// The caller's options.
    pub(super) options: GlobOptions,
}

/// Runs a glob on the calling (blocking) thread: the same matches, order
/// and truncation as the generic glob, with memory bounded by
/// `max_results`.
pub(super) fn glob_blocking(job: &GlobJob, cancel: &Cancel) -> Result<GlobReport, SearchError> {
    let first = Mutex::new(FirstInOrder::new(job.options.max_results));
    let unreadable = job.plan.run(cancel, &|visit| {
        if visit.kind == EntryKind::Directory && !job.options.include_dirs {
            return;
        }
        let Some(relative) = relative_to(&job.root, visit.path) else {
            return;
        };
        if !job.pattern.is_match(relative) {
            return;
        }
        let size = match visit.kind {
            EntryKind::File => visit.entry.metadata().map_or(0, |metadata| metadata.len()),
            _ => 0,
        };
        let entry = EnvironmentEntry::new(visit.path, visit.kind, size);
        first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .offer(visit.path.to_string(), entry);
    });
    let first = first.into_inner().unwrap_or_else(PoisonError::into_inner);
    let truncated = first.offered() > job.options.max_results;
    let (unreadable_dirs, unreadable_paths) =
        unreadable.settle(&job.plan.start, job.plan.start_depth)?;
    Ok(GlobReport {
        entries: first.into_sorted().into_iter().map(|o| o.value).collect(),
        truncated,
        unreadable_dirs,
        unreadable_paths,
    })
}
