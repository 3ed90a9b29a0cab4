//! The search root: checked once, before a walk lists it or grep reads
//! it, so every search refuses the same roots.

use super::SearchError;
use crate::environment::{EntryKind, EnvironmentEntry, EnvironmentError, EnvironmentProvider};

/// The entry at the normalized `root`.
///
/// A symlink is refused: walks never follow links, and a link given as
/// the root would otherwise be listed or read through (on a local
/// provider it may point outside the environment). The environment root
/// itself (`""`) is the host's choice and counts as a directory whatever
/// the provider reports.
///
/// # Errors
/// [`SearchError::SymlinkRoot`] for a link; the provider's error when
/// `stat` fails (missing root, parent not a directory, ...).
pub(crate) async fn search_root(
    provider: &dyn EnvironmentProvider,
    root: &str,
) -> Result<EnvironmentEntry, SearchError> {
    let mut entry = provider.stat(root).await?;
    if entry.kind == EntryKind::Symlink {
        if !root.is_empty() {
            return Err(SearchError::SymlinkRoot {
                path: root.to_string(),
            });
        }
        entry.kind = EntryKind::Directory;
    }
    Ok(entry)
}

/// [`search_root`] for searches that need a directory (walks, globs).
///
/// # Errors
/// As [`search_root`], and [`EnvironmentError::NotADirectory`] for a
/// file.
pub(crate) async fn search_directory(
    provider: &dyn EnvironmentProvider,
    root: &str,
) -> Result<(), SearchError> {
    if search_root(provider, root).await?.is_dir() {
        Ok(())
    } else {
        Err(EnvironmentError::NotADirectory {
            path: root.to_string(),
        }
        .into())
    }
}
