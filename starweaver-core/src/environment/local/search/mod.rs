//! Native glob and grep for the local provider: ripgrep's parallel
//! walker over the real tree, with the generic search's rules, order and
//! limits, and every file opened through the confined root.

mod cancel;
mod glob;
mod grep;
mod order;
#[cfg(test)]
mod tests;
mod walk;

use super::LocalEnvironmentProvider;
use crate::environment::{
    compile_grep, generic_grep, literal_start, normalize_path_with, search_directory, search_root,
    EntryKind, EnvironmentError, GlobOptions, GlobReport, GrepOptions, GrepReport, PathPattern,
    SearchError, WalkOptions,
};
use cancel::run_blocking;
use glob::{glob_blocking, GlobJob};
use grep::{grep_blocking, GrepJob};
use walk::WalkPlan;

pub(in crate::environment::local) use walk::IgnoreCheck;

impl LocalEnvironmentProvider {
    /// [`crate::environment::glob`] run natively.
    pub(super) async fn search_glob(
        &self,
        pattern: &str,
        options: &GlobOptions,
    ) -> Result<GlobReport, SearchError> {
        let compiled = PathPattern::new(pattern, options.case_insensitive)?;
        let root = normalize_path_with(&options.root, &self.path_limits)?;
        search_directory(self, &root).await?;
        let walk_options = walk_options(options.include_hidden, options.respect_ignore);
        let Some(plan) = self
            .plan(&root, Some(&compiled), &walk_options, compiled.depth())
            .await
        else {
            return Ok(GlobReport::default());
        };
        let job = GlobJob {
            plan,
            root,
            pattern: compiled,
            options: options.clone(),
        };
        run_blocking(move |cancel| glob_blocking(&job, &cancel))
            .await
            .map_err(|source| io_error(&options.root, source))?
    }

    /// [`crate::environment::grep`] run natively.
    pub(super) async fn search_grep(
        &self,
        pattern: &str,
        options: &GrepOptions,
    ) -> Result<GrepReport, SearchError> {
        let regex = compile_grep(pattern, options)?;
        let filter = match &options.glob {
            Some(glob) if !glob.trim().is_empty() => Some(PathPattern::new(glob, false)?),
            _ => None,
        };
        let root = normalize_path_with(&options.root, &self.path_limits)?;
        if search_root(self, &root).await?.kind != EntryKind::Directory {
            // One named file: the generic grep reads it the same way.
            return generic_grep(self, pattern, options).await;
        }
        let walk_options = walk_options(options.include_hidden, options.respect_ignore);
        let max_depth = filter.as_ref().and_then(PathPattern::depth);
        let Some(plan) = self
            .plan(&root, filter.as_ref(), &walk_options, max_depth)
            .await
        else {
            return Ok(GrepReport::default());
        };
        let job = GrepJob {
            plan,
            root,
            filter,
            dir: self.dir.clone(),
            options: options.clone(),
            regex,
        };
        run_blocking(move |cancel| grep_blocking(&job, &cancel))
            .await
            .map_err(|source| io_error(&options.root, source))?
    }

    /// The walk for a search below `root`, starting at the literal
    /// prefix of `pattern`; `None` when nothing can match.
    async fn plan(
        &self,
        root: &str,
        pattern: Option<&PathPattern>,
        options: &WalkOptions,
        max_depth: Option<usize>,
    ) -> Option<WalkPlan> {
        let (start, start_depth) = literal_start(self, root, pattern, options).await?;
        Some(WalkPlan {
            base: self.root.clone(),
            start,
            start_depth,
            max_depth,
            include_hidden: options.include_hidden,
            ignored: options.respect_ignore.then(|| self.ignore_check()),
            dir: self.dir.clone(),
        })
    }
}

fn walk_options(include_hidden: bool, respect_ignore: bool) -> WalkOptions {
    WalkOptions {
        include_hidden,
        respect_ignore,
        max_depth: None,
        max_entries: None,
    }
}

fn io_error(path: &str, source: std::io::Error) -> EnvironmentError {
    EnvironmentError::Io {
        path: path.to_string(),
        source,
    }
}
