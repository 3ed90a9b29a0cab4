//! Command lines that cannot work are refused before anything runs, with status 2 and a message
//! that names the problem (found by review: each of these used to run, or ran out of memory).

use super::{assert_status, folder, run, stderr};

/// No tools: nothing a refused run could have done.
const ECHO: &str = "version: 1\nname: echo\nmodel: {id: test}\n";

#[test]
fn result_without_resume_is_refused() {
    let dir = folder(&[("echo.yaml", ECHO)]);
    let output = run(
        dir.path(),
        &["run", "echo.yaml", "-p", "x", "--result", "a=1"],
    );
    assert_status(&output, 2);
    assert!(
        stderr(&output).contains("use it with --resume"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_save_path_that_cannot_work_is_refused_before_the_run() {
    let dir = folder(&[("echo.yaml", ECHO)]);
    std::fs::create_dir(dir.path().join("out")).unwrap();
    for (save, says) in [
        ("out", "it is a folder"),
        ("missing/run.json", "does not exist"),
        ("echo.yaml", "that is the manifest being run"),
    ] {
        let output = run(dir.path(), &["run", "echo.yaml", "-p", "x", "--save", save]);
        assert_status(&output, 2);
        assert!(
            stderr(&output).contains(says),
            "{save}: {}",
            stderr(&output)
        );
    }
    // The manifest is untouched.
    let kept = std::fs::read_to_string(dir.path().join("echo.yaml")).unwrap();
    assert_eq!(kept, ECHO);
}

#[test]
fn devices_and_pipes_are_refused_not_read() {
    let dir = folder(&[]);
    let manifest = run(dir.path(), &["run", "/dev/zero", "-p", "x"]);
    assert_status(&manifest, 2);
    assert!(
        stderr(&manifest).contains("not a regular file"),
        "{}",
        stderr(&manifest)
    );
    let saved = run(dir.path(), &["run", "--resume", "/dev/zero"]);
    assert_status(&saved, 2);
    assert!(
        stderr(&saved).contains("not a regular file"),
        "{}",
        stderr(&saved)
    );
}
