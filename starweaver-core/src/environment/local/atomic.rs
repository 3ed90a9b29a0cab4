//! Atomic writes: the content goes to a new temporary file in the target's
//! folder, is synced, and is renamed over the target, so a reader sees
//! the old content or the new, never half of it, and a failed write
//! leaves the old content and no temporary file.

use std::io::{self, Write};

use cap_std::fs::{Dir, File, OpenOptions};

use super::errors::{classify, is_escape, special};
use super::files::{create_dirs, split};
use super::hooks::Hooks;
use super::LocalEnvironmentProvider;
use crate::environment::EnvironmentError;

/// Bytes written per call, so a fault can land between two chunks.
const CHUNK_BYTES: usize = 64 * 1024;

/// Bytes of the target's name kept in the temporary file's name, so the
/// temporary name stays under the host's 255-byte limit.
const TEMP_NAME_BYTES: usize = 64;

/// What marks a temporary file of an unfinished write.
pub(super) const TEMP_MARKER: &str = ".starweaver-tmp-";

impl LocalEnvironmentProvider {
    pub(super) async fn write_file(
        &self,
        path: &str,
        content: &[u8],
    ) -> Result<(), EnvironmentError> {
        let path = self.normalize(path)?;
        let hooks = self.hooks.clone();
        let content = content.to_vec();
        self.blocking(path.clone(), move |dir, path| {
            write(dir, path, &content, &hooks)
        })
        .await?;
        self.ignores.changed(&path);
        Ok(())
    }
}

/// Writes `content` to the file at the normalized `path`, creating its
/// parents. The parent is opened once and everything after happens
/// through that handle, so a parent swapped for a link meanwhile changes
/// nothing outside the root. The target may be missing or a regular file;
/// a directory is `IsADirectory`, and a symbolic link is refused, inside
/// the root or not: replacing it would turn the link into a file, and
/// writing through it would change a file under another name.
fn write(dir: &Dir, path: &str, content: &[u8], hooks: &Hooks) -> Result<(), EnvironmentError> {
    let Some((parent, name)) = split(path) else {
        return Err(EnvironmentError::IsADirectory {
            path: String::new(),
        });
    };
    create_dirs(dir, parent, path)?;
    let folder = if parent.is_empty() {
        dir.try_clone()
    } else {
        dir.open_dir(parent)
    }
    .map_err(|error| {
        let at = if is_escape(&error) { path } else { parent };
        classify(dir, at, error)
    })?;
    hooks.after_parent();
    let permissions = match folder.symlink_metadata(name) {
        Ok(metadata) if metadata.is_dir() => {
            return Err(EnvironmentError::IsADirectory {
                path: path.to_string(),
            })
        }
        Ok(metadata) if metadata.is_symlink() => {
            return Err(EnvironmentError::AccessDenied {
                path: path.to_string(),
                reason: "it is a symbolic link, and writes never go through links; write to the \
                         file it points to instead"
                    .to_string(),
            })
        }
        Ok(metadata) if metadata.is_file() => Some(metadata.permissions()),
        Ok(_) => return Err(special(path)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(classify(dir, path, error)),
    };
    let temporary = temporary_name(name);
    let mut file = folder
        .open_with(&temporary, OpenOptions::new().write(true).create_new(true))
        .map_err(|error| classify(dir, path, error))?;
    let mut written = fill(&mut file, content, hooks);
    if let (Ok(()), Some(permissions)) = (&written, permissions) {
        written = file.set_permissions(permissions);
    }
    let written = written.and_then(|()| file.sync_all()).and_then(|()| {
        drop(file);
        folder.rename(&temporary, &folder, name)
    });
    if let Err(error) = written {
        // Best effort: the temporary name is ours alone (created new).
        let _ = folder.remove_file(&temporary);
        return Err(classify(dir, path, error));
    }
    // The rename is durable once the folder is synced; a failure here
    // cannot undo a write that already happened.
    if let Ok(handle) = folder.open(".") {
        let _ = handle.sync_all();
    }
    Ok(())
}

/// Writes `content` in chunks, asking the hooks after each.
fn fill(file: &mut File, content: &[u8], hooks: &Hooks) -> io::Result<()> {
    let mut written = 0;
    for chunk in content.chunks(CHUNK_BYTES) {
        file.write_all(chunk)?;
        written += chunk.len();
        hooks.after_chunk(written)?;
    }
    Ok(())
}

/// `.{name}.starweaver-tmp-{uuid}`: hidden, unique, and recognisably
/// a leftover should a crash strand it. Long names are shortened (at a
/// character boundary) to stay within the host's name limit.
pub(super) fn temporary_name(name: &str) -> String {
    let mut end = name.len().min(TEMP_NAME_BYTES);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        ".{}{TEMP_MARKER}{}",
        &name[..end],
        uuid::Uuid::now_v7().simple()
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::fs;
    use std::os::unix::fs::symlink;
    use std::path::Path;
    use std::sync::Arc;

    use super::*;
    use crate::environment::EnvironmentProvider;

    /// Every name in `folder`, hidden ones included.
    fn names(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[tokio::test]
    async fn a_write_failing_halfway_keeps_the_old_content_and_no_temporary_file() {
        let root = tempfile::tempdir().unwrap();
        fs::create_dir(root.path().join("dir")).unwrap();
        fs::write(root.path().join("dir/file.txt"), "old content").unwrap();
        let chunks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = Arc::clone(&chunks);
        let hooks = Hooks {
            after_chunk: Some(Arc::new(move |written| {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                assert_eq!(written, CHUNK_BYTES, "failed after the first chunk");
                Err(io::Error::other("the disk filled up"))
            })),
            ..Hooks::default()
        };
        let provider = LocalEnvironmentProvider::new(root.path())
            .unwrap()
            .with_hooks(hooks);
        let content = vec![b'x'; 3 * CHUNK_BYTES];
        let error = provider
            .write_bytes("dir/file.txt", &content)
            .await
            .unwrap_err();
        assert!(
            matches!(&error, EnvironmentError::Io { path, source } if path == "dir/file.txt" && source.to_string() == "the disk filled up"),
            "{error:?}"
        );
        assert_eq!(chunks.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert_eq!(
            fs::read_to_string(root.path().join("dir/file.txt")).unwrap(),
            "old content"
        );
        assert_eq!(names(&root.path().join("dir")), ["file.txt"]);
        // A new file that fails is not created at all.
        assert!(provider.write_bytes("dir/new.txt", &content).await.is_err());
        assert_eq!(names(&root.path().join("dir")), ["file.txt"]);
    }

    #[tokio::test]
    async fn writes_replace_by_rename_and_keep_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("run.sh");
        fs::write(&target, "old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o750)).unwrap();
        let before = std::os::unix::fs::MetadataExt::ino(&fs::metadata(&target).unwrap());
        let provider = LocalEnvironmentProvider::new(root.path()).unwrap();
        let content = vec![b'y'; 2 * CHUNK_BYTES + 7];
        provider.write_bytes("run.sh", &content).await.unwrap();
        let metadata = fs::metadata(&target).unwrap();
        assert_eq!(fs::read(&target).unwrap(), content);
        assert_eq!(metadata.permissions().mode() & 0o777, 0o750);
        // A new inode: the old file was replaced, never truncated in place.
        assert_ne!(std::os::unix::fs::MetadataExt::ino(&metadata), before);
        assert_eq!(names(root.path()), ["run.sh"]);
    }

    #[tokio::test]
    async fn a_parent_swapped_for_a_link_mid_write_changes_nothing_outside() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("file.txt"), "outside").unwrap();
        fs::create_dir(root.path().join("sub")).unwrap();
        let (swap_root, swap_outside) = (root.path().to_path_buf(), outside.path().to_path_buf());
        let hooks = Hooks {
            after_parent: Some(Arc::new(move || {
                fs::rename(swap_root.join("sub"), swap_root.join("moved")).unwrap();
                symlink(&swap_outside, swap_root.join("sub")).unwrap();
            })),
            ..Hooks::default()
        };
        let provider = LocalEnvironmentProvider::new(root.path())
            .unwrap()
            .with_hooks(hooks);
        // The write lands in the directory that was opened, wherever it
        // went, never through the link.
        provider.write_text("sub/file.txt", "inside").await.unwrap();
        assert_eq!(
            fs::read_to_string(outside.path().join("file.txt")).unwrap(),
            "outside"
        );
        assert_eq!(names(outside.path()), ["file.txt"]);
        assert_eq!(
            fs::read_to_string(root.path().join("moved/file.txt")).unwrap(),
            "inside"
        );
        // Now that `sub` is the link, a write through it is refused.
        let provider = LocalEnvironmentProvider::new(root.path()).unwrap();
        let error = provider
            .write_text("sub/file.txt", "again")
            .await
            .unwrap_err();
        assert!(
            matches!(&error, EnvironmentError::AccessDenied { path, reason } if path == "sub/file.txt" && reason.contains("`sub` on the way")),
            "{error:?}"
        );
        assert_eq!(
            fs::read_to_string(outside.path().join("file.txt")).unwrap(),
            "outside"
        );
    }

    #[test]
    fn temporary_names_are_hidden_unique_and_short() {
        let long = "é".repeat(200);
        let name = temporary_name(&long);
        assert!(name.starts_with('.') && name.contains(TEMP_MARKER));
        assert!(name.len() < 255, "{}", name.len());
        assert_ne!(temporary_name("a"), temporary_name("a"));
    }
}
