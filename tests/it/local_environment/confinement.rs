//! Confinement against hostile trees: nothing outside the root is read,
//! written or listed, whether the path climbs with `..`, a link points
//! to `/etc` or to a file outside, or a parent directory is a link.

use std::fs;

use starweaver::environment::{EntryKind, EnvironmentError, EnvironmentProvider};

use super::{folder, link, local, names};

/// The reason of an `AccessDenied` naming `path`, or a panic saying what
/// came instead.
fn denied<T: std::fmt::Debug>(result: Result<T, EnvironmentError>, path: &str) -> String {
    match result {
        Err(EnvironmentError::AccessDenied {
            path: named,
            reason,
        }) if named == path => reason,
        other => panic!("expected AccessDenied at {path}, got {other:?}"),
    }
}

#[tokio::test]
async fn a_link_to_etc_is_reported_but_never_followed() {
    let root = folder(&[("ok.txt", "fine")]);
    link(root.path(), "etc", "/etc");
    let env = local(&root);
    // Through the link, and the link itself.
    let reason = denied(env.read_text("etc/passwd").await, "etc/passwd");
    assert!(
        reason.contains("`etc` on the way is a symbolic link leading outside"),
        "{reason}"
    );
    let reason = denied(env.read_text("etc").await, "etc");
    assert!(
        reason.contains("it is a symbolic link leading outside"),
        "{reason}"
    );
    denied(env.list_dir("etc").await, "etc");
    denied(env.stat("etc/passwd").await, "etc/passwd");
    denied(env.exists("etc/hostname").await, "etc/hostname");
    // Stat'ed as what it is, a link of size 0; never listed, since it
    // leads out of the root.
    let entry = env.stat("etc").await.unwrap();
    assert_eq!((entry.kind, entry.size), (EntryKind::Symlink, 0));
    let kinds: Vec<(String, EntryKind)> = env
        .list_dir("")
        .await
        .unwrap()
        .into_iter()
        .map(|entry| (entry.path, entry.kind))
        .collect();
    assert_eq!(kinds, [("ok.txt".to_string(), EntryKind::File)]);
    // The message says what was refused, where, and why.
    let message = env.read_text("etc/passwd").await.unwrap_err().to_string();
    assert!(
        message.starts_with("access to `etc/passwd` is denied"),
        "{message}"
    );
    assert!(
        message.contains("only symbolic links whose target stays inside"),
        "{message}"
    );
}

#[tokio::test]
async fn nothing_is_written_through_a_parent_that_leads_out() {
    let root = folder(&[]);
    let outside = folder(&[("existing.txt", "outside")]);
    link(root.path(), "out", outside.path());
    let env = local(&root);
    for result in [
        env.write_text("out/new.txt", "x").await,
        env.write_text("out/existing.txt", "overwritten").await,
        env.write_text("out/deeper/new.txt", "x").await,
        env.create_dir_all("out/made").await,
        env.remove("out/existing.txt").await,
    ] {
        let reason = match result {
            Err(EnvironmentError::AccessDenied { path, reason }) if path.starts_with("out/") => {
                reason
            }
            other => panic!("expected AccessDenied below out/, got {other:?}"),
        };
        assert!(reason.contains("`out` on the way"), "{reason}");
    }
    assert_eq!(names(outside.path()), ["existing.txt"]);
    assert_eq!(
        fs::read_to_string(outside.path().join("existing.txt")).unwrap(),
        "outside"
    );
}

#[tokio::test]
async fn a_link_to_a_file_outside_is_neither_read_nor_written_but_can_be_removed() {
    let root = folder(&[]);
    let outside = folder(&[("secret.txt", "outside secret")]);
    link(root.path(), "secret", outside.path().join("secret.txt"));
    let env = local(&root);
    denied(env.read_bytes("secret").await, "secret");
    denied(env.write_text("secret", "overwritten").await, "secret");
    assert_eq!(env.stat("secret").await.unwrap().kind, EntryKind::Symlink);
    // Removing the link removes the link, not what it points to.
    env.remove("secret").await.unwrap();
    assert!(!root.path().join("secret").exists());
    assert_eq!(
        fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "outside secret"
    );
}

#[tokio::test]
async fn links_climbing_out_are_refused_even_when_they_come_back() {
    let root = folder(&[("inside.txt", "inside")]);
    let name = root
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    link(root.path(), "up", "..");
    link(root.path(), "round-trip", format!("../{name}/inside.txt"));
    link(root.path(), "absolute", root.path().join("inside.txt"));
    let env = local(&root);
    denied(env.list_dir("up").await, "up");
    denied(
        env.read_text(&format!("up/{name}/inside.txt")).await,
        &format!("up/{name}/inside.txt"),
    );
    // A target above the root is refused even on its way back in, and an
    // absolute target always is: neither is checked by where it lands.
    denied(env.read_text("round-trip").await, "round-trip");
    denied(env.read_text("absolute").await, "absolute");
}

#[tokio::test]
async fn links_inside_the_root_are_followed_by_reads_but_never_written_through() {
    let root = folder(&[("real/file.txt", "real content"), ("top.txt", "top")]);
    link(root.path(), "alias", "real");
    link(root.path(), "real/up-link", "../top.txt");
    link(root.path(), "file-alias", "top.txt");
    link(root.path(), "dangling", "nowhere");
    let env = local(&root);
    assert_eq!(
        env.read_text("alias/file.txt").await.unwrap(),
        "real content"
    );
    assert_eq!(env.read_text("real/up-link").await.unwrap(), "top");
    assert_eq!(env.read_text("file-alias").await.unwrap(), "top");
    assert_eq!(env.list_dir("alias").await.unwrap().len(), 2);
    assert_eq!(
        env.list_dir("alias").await.unwrap()[0].path,
        "alias/file.txt"
    );
    assert_eq!(env.stat("alias").await.unwrap().kind, EntryKind::Symlink);
    // A parent that is a link inside the root is a way to the directory.
    env.write_text("alias/new.txt", "via the alias")
        .await
        .unwrap();
    assert_eq!(
        fs::read_to_string(root.path().join("real/new.txt")).unwrap(),
        "via the alias"
    );
    // The link itself is never written through, nor replaced.
    let reason = denied(env.write_text("file-alias", "changed").await, "file-alias");
    assert!(reason.contains("writes never go through links"), "{reason}");
    assert_eq!(
        fs::read_to_string(root.path().join("top.txt")).unwrap(),
        "top"
    );
    assert!(fs::symlink_metadata(root.path().join("file-alias"))
        .unwrap()
        .file_type()
        .is_symlink());
    // A link to nothing: there is nothing to read.
    assert!(matches!(
        env.read_text("dangling").await,
        Err(EnvironmentError::NotFound { .. })
    ));
}

#[tokio::test]
async fn a_loop_of_links_is_an_error_not_a_hang() {
    let root = folder(&[]);
    link(root.path(), "one", "two");
    link(root.path(), "two", "one");
    let env = local(&root);
    let result = tokio::time::timeout(std::time::Duration::from_secs(60), env.read_text("one/x"))
        .await
        .expect("the read finished");
    assert!(result.is_err(), "{result:?}");
    assert!(env.create_dir_all("one/x").await.is_err());
    assert_eq!(names(root.path()), ["one", "two"]);
}
