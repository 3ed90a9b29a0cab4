//! Operating-system errors as environment errors. A resolution the
//! confined root refused becomes [`EnvironmentError::AccessDenied`]
//! naming the link that leads out; a file where a directory was expected
//! becomes [`EnvironmentError::NotADirectory`] naming that file, as the
//! in-memory provider names it.

use std::io;

use cap_std::fs::{Dir, Metadata};

use crate::bounds::echo;
use crate::environment::EnvironmentError;

/// Why a link leading out is refused, for every message that says so.
pub(super) const LINKS_STAY_INSIDE: &str =
    "only symbolic links whose target stays inside the environment root are followed";

/// True for the confined handle's refusal of a path that resolves
/// outside the root (an absolute link, or one climbing above the root).
/// The handle reports it as a permission error with no OS error code; a
/// refusal by the host's permissions always carries one.
pub(super) fn is_escape(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::PermissionDenied && error.raw_os_error().is_none()
}

/// The environment error for `error`, raised by an operation on the
/// normalized `path`. Escapes and files on the way are located with a
/// few more lookups through `dir`, so the message names the culprit.
pub(super) fn classify(dir: &Dir, path: &str, error: io::Error) -> EnvironmentError {
    if is_escape(&error) {
        return escape(dir, path);
    }
    let path_owned = || path.to_string();
    if error.raw_os_error() == Some(nix::libc::ENAMETOOLONG) {
        return EnvironmentError::InvalidPath {
            path: echo(path).into_owned(),
            reason: "a segment is longer than the host allows (255 bytes on most systems); use \
                     shorter names"
                .to_string(),
        };
    }
    match error.kind() {
        io::ErrorKind::NotFound => EnvironmentError::NotFound { path: path_owned() },
        io::ErrorKind::NotADirectory => EnvironmentError::NotADirectory {
            path: file_on_the_way(dir, path),
        },
        io::ErrorKind::IsADirectory => EnvironmentError::IsADirectory { path: path_owned() },
        io::ErrorKind::PermissionDenied => EnvironmentError::AccessDenied {
            path: path_owned(),
            reason: format!("the host's file permissions refuse it ({error})"),
        },
        _ => EnvironmentError::Io {
            path: path_owned(),
            source: error,
        },
    }
}

/// `AccessDenied` for `path`, naming the first link on the way that
/// leads outside the root.
fn escape(dir: &Dir, path: &str) -> EnvironmentError {
    let leads_out = |prefix: &&str| {
        dir.symlink_metadata(prefix)
            .is_ok_and(|metadata| metadata.is_symlink())
            && dir.metadata(prefix).is_err_and(|error| is_escape(&error))
    };
    let reason = match prefixes(path).find(leads_out) {
        Some(link) if link == path => {
            format!(
                "it is a symbolic link leading outside the environment root; {LINKS_STAY_INSIDE}"
            )
        }
        Some(link) => format!(
            "`{}` on the way is a symbolic link leading outside the environment root; \
             {LINKS_STAY_INSIDE}",
            echo(link)
        ),
        None => format!(
            "it resolves outside the environment root through a symbolic link; {LINKS_STAY_INSIDE}"
        ),
    };
    EnvironmentError::AccessDenied {
        path: path.to_string(),
        reason,
    }
}

/// The first prefix of `path` that exists and is not a directory (links
/// inside the root followed), or `path` itself.
fn file_on_the_way(dir: &Dir, path: &str) -> String {
    prefixes(path)
        .find(|prefix| {
            dir.metadata(prefix)
                .is_ok_and(|metadata| !metadata.is_dir())
        })
        .unwrap_or(path)
        .to_string()
}

/// `a`, `a/b`, `a/b/c` for `a/b/c` (nothing for the root).
pub(super) fn prefixes(path: &str) -> impl Iterator<Item = &str> {
    path.match_indices('/')
        .map(|(at, _)| &path[..at])
        .chain((!path.is_empty()).then_some(path))
}

/// `AccessDenied` for an entry that is neither a regular file, a
/// directory nor a link: nothing here reads, writes or lists those.
pub(super) fn special(path: &str) -> EnvironmentError {
    EnvironmentError::AccessDenied {
        path: path.to_string(),
        reason: "it is not a regular file, directory or symbolic link (a FIFO, socket or device); \
                 environments only use regular files and directories"
            .to_string(),
    }
}

/// Checks that `metadata` (of the file at `path`) is a regular file.
///
/// # Errors
/// `IsADirectory` for a directory, [`special`] for anything else.
pub(super) fn regular(path: &str, metadata: &Metadata) -> Result<(), EnvironmentError> {
    if metadata.is_file() {
        Ok(())
    } else if metadata.is_dir() {
        Err(EnvironmentError::IsADirectory {
            path: path.to_string(),
        })
    } else {
        Err(special(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_lead_from_the_root_to_the_path() {
        assert_eq!(prefixes("a/b/c").collect::<Vec<_>>(), ["a", "a/b", "a/b/c"]);
        assert_eq!(prefixes("a").collect::<Vec<_>>(), ["a"]);
        assert_eq!(prefixes("").count(), 0);
    }

    #[test]
    #[allow(clippy::unwrap_used)]
    fn host_errors_become_environment_errors_naming_the_culprit() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("a")).unwrap();
        std::fs::write(root.path().join("a/file"), "x").unwrap();
        std::os::unix::fs::symlink("/", root.path().join("a/out")).unwrap();
        let dir = Dir::open_ambient_dir(root.path(), cap_std::ambient_authority()).unwrap();
        let raw = io::Error::from_raw_os_error;
        let denied = classify(&dir, "a/x", raw(nix::libc::EACCES));
        assert!(
            matches!(&denied, EnvironmentError::AccessDenied { path, reason } if path == "a/x" && reason.contains("permissions")),
            "{denied:?}"
        );
        let not_dir = classify(&dir, "a/file/deeper/x", raw(nix::libc::ENOTDIR));
        assert!(
            matches!(&not_dir, EnvironmentError::NotADirectory { path } if path == "a/file"),
            "{not_dir:?}"
        );
        let escape = dir.open("a/out/etc/passwd").unwrap_err();
        assert!(is_escape(&escape), "{escape:?}");
        let escaped = classify(&dir, "a/out/etc/passwd", escape);
        assert!(
            matches!(&escaped, EnvironmentError::AccessDenied { reason, .. } if reason.starts_with("`a/out` on the way")),
            "{escaped:?}"
        );
        let long = classify(&dir, "n", raw(nix::libc::ENAMETOOLONG));
        assert!(matches!(long, EnvironmentError::InvalidPath { .. }));
        let other = classify(&dir, "a", raw(nix::libc::EIO));
        assert!(matches!(other, EnvironmentError::Io { path, .. } if path == "a"));
    }

    #[test]
    fn only_the_handles_own_refusal_counts_as_an_escape() {
        assert!(is_escape(&io::Error::new(
            io::ErrorKind::PermissionDenied,
            "a path led outside of the filesystem"
        )));
        assert!(!is_escape(&io::Error::from_raw_os_error(13)));
        assert!(!is_escape(&io::Error::from(io::ErrorKind::NotFound)));
    }
}
