//! Reads, listings, directories and removal through the confined root
//! handle. Each operation is a blocking function over the [`Dir`] and a
//! normalized path; [`LocalEnvironmentProvider`] runs them on tokio's
//! blocking pool.

use std::io::{self, Read};
use std::sync::Arc;

use cap_std::fs::{Dir, Metadata};

use super::errors::{classify, is_escape, prefixes, special};
use super::hooks::Hooks;
use super::ignore_rules::{IgnoreRules, Stamp};
use super::open::open_regular;
use super::LocalEnvironmentProvider;
use crate::environment::{
    file_name, join_path, parent_path, EntryKind, EnvironmentEntry, EnvironmentError,
};

impl LocalEnvironmentProvider {
    /// Runs `operation` over the root handle and the normalized `path` on
    /// the blocking pool; a panic or a runtime shutting down is an `Io`
    /// error naming the path.
    pub(super) async fn blocking<T, F>(
        &self,
        path: String,
        operation: F,
    ) -> Result<T, EnvironmentError>
    where
        T: Send + 'static,
        F: FnOnce(&Dir, &str) -> Result<T, EnvironmentError> + Send + 'static,
    {
        let dir = Arc::clone(&self.dir);
        let shown = path.clone();
        match tokio::task::spawn_blocking(move || operation(&dir, &path)).await {
            Ok(result) => result,
            Err(stopped) => Err(EnvironmentError::Io {
                path: shown,
                source: io::Error::other(format!(
                    "the file operation stopped before it finished ({stopped})"
                )),
            }),
        }
    }

    /// Reads a file, or its first `limit` bytes.
    pub(super) async fn read_file(
        &self,
        path: &str,
        limit: Option<u64>,
    ) -> Result<Vec<u8>, EnvironmentError> {
        let path = self.normalize(path)?;
        let hooks = self.hooks.clone();
        self.blocking(path, move |dir, path| read(dir, path, &hooks, limit))
            .await
    }

    pub(super) async fn stat_entry(
        &self,
        path: &str,
    ) -> Result<EnvironmentEntry, EnvironmentError> {
        let path = self.normalize(path)?;
        self.blocking(path, stat).await
    }

    pub(super) async fn list_entries(
        &self,
        path: &str,
    ) -> Result<Vec<EnvironmentEntry>, EnvironmentError> {
        let path = self.normalize(path)?;
        let (entries, stamps) = self.blocking(path.clone(), list).await?;
        self.ignores.refresh(&path, stamps);
        Ok(entries)
    }

    pub(super) async fn create_dirs(&self, path: &str) -> Result<(), EnvironmentError> {
        let path = self.normalize(path)?;
        self.blocking(path, |dir, path| create_dirs(dir, path, path))
            .await
    }

    pub(super) async fn remove_entry(&self, path: &str) -> Result<(), EnvironmentError> {
        let path = self.normalize(path)?;
        self.blocking(path.clone(), remove).await?;
        self.ignores.changed(&path);
        Ok(())
    }
}

/// The entry for `metadata` (from `lstat`, so a link is a link), or
/// `None` for a FIFO, socket or device.
pub(super) fn entry(path: &str, metadata: &Metadata) -> Option<EnvironmentEntry> {
    let (kind, size) = if metadata.is_symlink() {
        (EntryKind::Symlink, 0)
    } else if metadata.is_dir() {
        (EntryKind::Directory, 0)
    } else if metadata.is_file() {
        (EntryKind::File, metadata.len())
    } else {
        return None;
    };
    Some(EnvironmentEntry::new(path, kind, size))
}

fn read(
    dir: &Dir,
    path: &str,
    hooks: &Hooks,
    limit: Option<u64>,
) -> Result<Vec<u8>, EnvironmentError> {
    let file = open_regular(dir, path, hooks)?;
    let mut bytes = Vec::new();
    file.take(limit.unwrap_or(u64::MAX))
        .read_to_end(&mut bytes)
        .map_err(|error| classify(dir, path, error))?;
    Ok(bytes)
}

fn stat(dir: &Dir, path: &str) -> Result<EnvironmentEntry, EnvironmentError> {
    if path.is_empty() {
        return Ok(EnvironmentEntry::new("", EntryKind::Directory, 0));
    }
    let metadata = dir
        .symlink_metadata(path)
        .map_err(|error| classify(dir, path, error))?;
    entry(path, &metadata).ok_or_else(|| special(path))
}

/// True when the link at `path` resolves outside the root: such links
/// are never listed (so never searched or walked into either); `stat`
/// still reports one named directly.
pub(super) fn leads_out(dir: &Dir, path: &str) -> bool {
    dir.metadata(path).is_err_and(|error| is_escape(&error))
}

/// The children of the directory at `path`, sorted by name, and the
/// stamps of its ignore files (so cached rules can be checked). Names
/// that are not UTF-8 cannot be spelled as environment paths, and
/// FIFOs, sockets and devices cannot be used: both are left out, as is
/// an entry removed while the directory is read, and a link leading out
/// of the root.
fn list(
    dir: &Dir,
    path: &str,
) -> Result<(Vec<EnvironmentEntry>, [Option<Stamp>; 2]), EnvironmentError> {
    let located = |error| classify(dir, path, error);
    let read = if path.is_empty() {
        dir.entries()
    } else {
        dir.read_dir(path)
    };
    let mut entries = Vec::new();
    let mut stamps = [None; 2];
    for child in read.map_err(located)? {
        let child = child.map_err(located)?;
        let Ok(name) = child.file_name().into_string() else {
            continue;
        };
        let Ok(metadata) = child.metadata() else {
            continue;
        };
        if let Some(slot) = IgnoreRules::file_slot(&name) {
            stamps[slot] = Some(Stamp::of(&metadata));
        }
        let child_path = join_path(path, &name);
        if metadata.is_symlink() && leads_out(dir, &child_path) {
            continue;
        }
        entries.extend(entry(&child_path, &metadata));
    }
    entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    Ok((entries, stamps))
}

/// Creates the directory at `path` and its missing parents. Every
/// existing prefix is checked before anything is created (once one is
/// missing, all below it are), so a refusal creates nothing. A file on
/// the way is named itself; a link leading out is refused naming
/// `requested` (the path the caller was given) and the link.
pub(super) fn create_dirs(dir: &Dir, path: &str, requested: &str) -> Result<(), EnvironmentError> {
    let located = |at: &str, error: io::Error| {
        if is_escape(&error) {
            classify(dir, requested, error)
        } else {
            classify(dir, at, error)
        }
    };
    let not_a_directory = |at: &str| EnvironmentError::NotADirectory {
        path: at.to_string(),
    };
    if path.is_empty() {
        return Ok(());
    }
    match dir.metadata(path) {
        Ok(metadata) if metadata.is_dir() => return Ok(()),
        Ok(_) => return Err(not_a_directory(path)),
        Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(located(path, error)),
        Err(_) => {}
    }
    for prefix in prefixes(path) {
        match dir.create_dir(prefix) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                match dir.metadata(prefix) {
                    Ok(metadata) if metadata.is_dir() => {}
                    Ok(_) => return Err(not_a_directory(prefix)),
                    Err(error) => return Err(located(prefix, error)),
                }
            }
            Err(error) => return Err(located(prefix, error)),
        }
    }
    Ok(())
}

/// Removes the file, link or empty directory at `path`. A link is
/// removed itself, never what it points to.
fn remove(dir: &Dir, path: &str) -> Result<(), EnvironmentError> {
    if path.is_empty() {
        return Err(EnvironmentError::InvalidPath {
            path: "/".to_string(),
            reason: "the environment root cannot be removed".to_string(),
        });
    }
    let metadata = dir
        .symlink_metadata(path)
        .map_err(|error| classify(dir, path, error))?;
    let removed = if metadata.is_dir() {
        dir.remove_dir(path)
    } else {
        dir.remove_file(path)
    };
    removed.map_err(|error| {
        if error.kind() == io::ErrorKind::DirectoryNotEmpty {
            EnvironmentError::InvalidPath {
                path: path.to_string(),
                reason: "the directory is not empty; remove its entries first".to_string(),
            }
        } else {
            classify(dir, path, error)
        }
    })
}

/// The directory holding `path` and the name in it (`None` for the
/// root).
pub(super) fn split(path: &str) -> Option<(&str, &str)> {
    parent_path(path).map(|parent| (parent, file_name(path)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::fs;
    use std::os::unix::fs::symlink;
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;
    use crate::environment::EnvironmentProvider;

    /// A provider whose reads swap `swapped` (a path under the root) for a
    /// link to `target` just before the file is opened.
    fn swapping(
        root: &std::path::Path,
        swapped: &str,
        target: PathBuf,
    ) -> LocalEnvironmentProvider {
        let at = root.join(swapped);
        let aside = root.join("aside");
        let hooks = Hooks {
            before_open: Some(Arc::new(move || {
                if !aside.exists() {
                    fs::rename(&at, &aside).unwrap();
                    symlink(&target, &at).unwrap();
                }
            })),
            ..Hooks::default()
        };
        LocalEnvironmentProvider::new(root)
            .unwrap()
            .with_hooks(hooks)
    }

    #[tokio::test]
    async fn a_file_swapped_for_a_link_after_the_check_is_not_read() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "outside secret").unwrap();
        fs::write(root.path().join("notes.txt"), "inside").unwrap();
        let provider = swapping(root.path(), "notes.txt", outside.path().join("secret"));
        let result = provider.read_text("notes.txt").await;
        assert!(
            matches!(&result, Err(EnvironmentError::AccessDenied { path, .. }) if path == "notes.txt"),
            "{result:?}"
        );
    }

    #[tokio::test]
    async fn a_parent_swapped_for_a_link_after_the_check_is_not_read() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("notes.txt"), "outside secret").unwrap();
        fs::create_dir(root.path().join("sub")).unwrap();
        fs::write(root.path().join("sub/notes.txt"), "inside").unwrap();
        let provider = swapping(root.path(), "sub", outside.path().to_path_buf());
        let result = provider.read_text("sub/notes.txt").await;
        assert!(
            matches!(&result, Err(EnvironmentError::AccessDenied { path, reason }) if path == "sub/notes.txt" && reason.contains("`sub` on the way")),
            "{result:?}"
        );
    }

    #[tokio::test]
    async fn fifos_are_neither_listed_nor_opened() {
        let root = tempfile::tempdir().unwrap();
        let fifo = root.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|status| status.success()) {
            return; // no mkfifo on this host
        }
        fs::write(root.path().join("file"), "x").unwrap();
        let provider = LocalEnvironmentProvider::new(root.path()).unwrap();
        let names: Vec<String> = provider
            .list_dir("")
            .await
            .unwrap()
            .into_iter()
            .map(|entry| entry.name)
            .collect();
        assert_eq!(names, ["file"]);
        // Reading a FIFO would block until a writer came; it is refused.
        for result in [
            provider.read_bytes("pipe").await.map(|_| ()),
            provider.stat("pipe").await.map(|_| ()),
            provider.write_bytes("pipe", b"x").await,
        ] {
            assert!(
                matches!(&result, Err(EnvironmentError::AccessDenied { reason, .. }) if reason.contains("FIFO")),
                "{result:?}"
            );
        }
        // Swapped in after the check, it does not block the open either.
        let hooks = Hooks {
            before_open: Some(Arc::new({
                let (file, fifo) = (root.path().join("file"), fifo.clone());
                move || fs::rename(&fifo, &file).unwrap()
            })),
            ..Hooks::default()
        };
        let provider = LocalEnvironmentProvider::new(root.path())
            .unwrap()
            .with_hooks(hooks);
        let result = tokio::time::timeout(
            std::time::Duration::from_secs(30),
            provider.read_bytes("file"),
        )
        .await;
        assert!(
            matches!(&result, Ok(Err(EnvironmentError::AccessDenied { .. }))),
            "{result:?}"
        );
    }

    #[tokio::test]
    async fn names_that_are_not_utf8_are_left_out_of_listings() {
        use std::os::unix::ffi::OsStrExt;
        let root = tempfile::tempdir().unwrap();
        let name = std::ffi::OsStr::from_bytes(b"bad-\xff");
        if fs::write(root.path().join(name), "x").is_err() {
            return; // the filesystem refuses such names
        }
        fs::write(root.path().join("good"), "x").unwrap();
        let provider = LocalEnvironmentProvider::new(root.path()).unwrap();
        let entries = provider.list_dir("").await.unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].path, "good");
    }
}
