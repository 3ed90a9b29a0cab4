//! `load_file`: a manifest file to an agent in one call, through the checker.

use std::path::Path;

use super::{load, LoadError, LoadOptions, LoadedAgent};
use crate::diagnostics::Diagnostic;
use crate::files::read_limited;
use crate::validate::{check_manifest, CheckContext};

/// Why [`load_file`] produced no agent: the file could not be read, did not check, or its
/// checked agent could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum LoadFileError {
    /// The file could not be read (missing, not a regular file, over the size limit).
    #[error("cannot read the manifest `{path}`: {reason}")]
    Read {
        /// The path as given.
        path: String,
        /// Why.
        reason: String,
    },
    /// The checker found errors: every diagnostic, warnings included, in source order, for a
    /// host to render (`starweaver check` shows the same).
    #[error("the manifest does not check: {} problem(s), the first: {}", .0.len(), .0.first().map_or("", |d| d.message.as_str()))]
    Check(Vec<Diagnostic>),
    /// The manifest checks, but its agent cannot be assembled here.
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// Reads the manifest file `path` once, checks it with `context` (in the file's folder, which
/// becomes the folder it loads from) and loads it with `options`: the agent and the checker's
/// warnings.
///
/// ```
/// use starweaver_config::load::{load_file, LoadFileError, LoadOptions};
/// use starweaver_config::validate::CheckContext;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("scout.yaml");
/// std::fs::write(&path, "version: 1\nname: scout\nmodel: {id: test}\n").unwrap();
/// let (loaded, warnings) = load_file(&path, &CheckContext::new(), &LoadOptions::new())
///     .await
///     .unwrap();
/// assert!(warnings.is_empty() && loaded.tool_names.is_empty());
///
/// std::fs::write(&path, "version: 1\nname: scout\nmodel: {id: tset}\n").unwrap();
/// let refused = load_file(&path, &CheckContext::new(), &LoadOptions::new()).await;
/// assert!(matches!(refused, Err(LoadFileError::Check(found)) if found[0].rule.as_str() == "unknown-model"));
/// # });
/// ```
///
/// # Errors
/// [`LoadFileError`]: the file unreadable, the checker's diagnostics when one is an error, or
/// the loader's [`LoadError`].
pub async fn load_file(
    path: impl AsRef<Path>,
    context: &CheckContext,
    options: &LoadOptions,
) -> Result<(LoadedAgent, Vec<Diagnostic>), LoadFileError> {
    let path = path.as_ref();
    let limit = context.budgets().max_document_bytes;
    let bytes = read_limited(path, u64::try_from(limit).unwrap_or(u64::MAX)).map_err(|error| {
        LoadFileError::Read {
            path: path.display().to_string(),
            reason: error.to_string(),
        }
    })?;
    let (found, checked) = check_manifest(&bytes, &context.clone().with_file(path));
    let Some(checked) = checked else {
        return Err(LoadFileError::Check(found));
    };
    let loaded = load(&checked, options).await?;
    Ok((loaded, found))
}
