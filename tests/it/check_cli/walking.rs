//! Folders are searched recursively for `*.yaml` and `*.yml` files, in sorted order.

use super::{folder, run, stdout, BROKEN, CLEAN};

#[test]
fn folders_are_walked_recursively_in_sorted_order() {
    let dir = folder(&[
        ("agents/b.yaml", BROKEN.as_bytes()),
        ("agents/a.yml", BROKEN.as_bytes()),
        ("agents/nested/c.yaml", CLEAN.as_bytes()),
        ("agents/notes.txt", b"not a manifest"),
        ("agents/.hidden/d.yaml", b"{{{"),
    ]);
    let output = run(dir.path(), &["check", "--format", "github"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let summaries: Vec<&str> = text.lines().filter(|l| !l.starts_with("::")).collect();
    assert_eq!(
        summaries,
        [
            "agents/a.yml: 2 errors, 0 warnings",
            "agents/b.yaml: 2 errors, 0 warnings",
            "agents/nested/c.yaml: 0 errors, 0 warnings",
        ]
    );
    let human = stdout(&run(dir.path(), &["check", "agents"]));
    assert!(
        human.ends_with("4 errors, 0 warnings in 3 files\n"),
        "{human}"
    );
}
