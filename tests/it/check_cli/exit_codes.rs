//! Exit statuses: 0 clean, 1 problems, 2 bad usage or unreadable input.

use super::{folder, run, stderr, stdout, BROKEN, CLEAN};

#[test]
fn a_clean_manifest_exits_zero_with_a_summary() {
    let dir = folder(&[("scout.yaml", CLEAN.as_bytes())]);
    let output = run(dir.path(), &["check", "scout.yaml", "--deny-warnings"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "0 errors, 0 warnings in 1 file\n");
}

#[test]
fn errors_exit_one() {
    let dir = folder(&[("scout.yaml", BROKEN.as_bytes())]);
    assert_eq!(
        run(dir.path(), &["check", "scout.yaml"]).status.code(),
        Some(1)
    );
}

#[test]
fn a_missing_file_exits_two_and_names_it_but_the_others_are_still_checked() {
    let dir = folder(&[("scout.yaml", BROKEN.as_bytes())]);
    let output = run(
        dir.path(),
        &["check", "gone.yaml", "scout.yaml", "--format", "json"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("`gone.yaml`"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).contains("unknown-field"));
}

#[test]
fn a_missing_default_folder_exits_two() {
    let dir = folder(&[]);
    let output = run(dir.path(), &["check"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("`agents`"), "{}", stderr(&output));
}

#[test]
fn a_bad_flag_exits_two() {
    let dir = folder(&[]);
    let output = run(dir.path(), &["check", "--no-such-flag"]);
    assert_eq!(output.status.code(), Some(2));
    let output = run(dir.path(), &["check", "--format", "xml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("sarif"), "{}", stderr(&output));
}

#[test]
fn invalid_utf8_is_a_diagnostic_not_a_read_failure() {
    let dir = folder(&[("scout.yaml", b"version: 1\nname: \xff\n")]);
    let output = run(dir.path(), &["check", "scout.yaml"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("error[syntax]"), "{text}");
    assert!(text.contains("--> scout.yaml:"), "{text}");
}

#[test]
fn a_bad_catalog_exits_two_and_a_good_one_is_accepted() {
    let dir = folder(&[
        ("scout.yaml", CLEAN.as_bytes()),
        ("bad.json", b"{\"tools\": 3}"),
        (
            "catalog.json",
            br#"{"version": 1, "tools": [{"name": "lookup"}], "conflicts": []}"#,
        ),
    ]);
    let output = run(
        dir.path(),
        &["check", "scout.yaml", "--catalog", "bad.json"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("`bad.json`"),
        "{}",
        stderr(&output)
    );
    let output = run(
        dir.path(),
        &["check", "scout.yaml", "--catalog", "catalog.json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = run(
        dir.path(),
        &["check", "scout.yaml", "--catalog", "none.json"],
    );
    assert_eq!(output.status.code(), Some(2));
}

/// Regression: `--catalog` was read and then dropped, so an unknown code
/// tool passed the check.
#[test]
fn the_catalog_decides_which_code_tools_exist() {
    let manifest = "version: 1\nname: scout\nmodel: {id: test}\ntoolsets:\n  - {type: tools, name: glossary, tools: [lookup, lokup]}\n";
    let dir = folder(&[
        ("scout.yaml", manifest.as_bytes()),
        (
            "catalog.json",
            br#"{"version": 1, "tools": [{"name": "lookup"}], "conflicts": []}"#,
        ),
    ]);
    let output = run(
        dir.path(),
        &[
            "check",
            "scout.yaml",
            "--catalog",
            "catalog.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let found: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let found = found.as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["rule"], "unknown-tool");
    assert_eq!(found[0]["line"], 5);
    // Without a catalog, code tools are not verified: one warning, exit 0.
    let output = run(dir.path(), &["check", "scout.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("warning[unknown-tool]"),
        "{}",
        stdout(&output)
    );
}

// A FIFO named as a manifest or a catalog hung the checker forever (the open waits for a
// writer); it is refused as not a regular file.
#[test]
fn a_fifo_is_refused_not_waited_on() {
    let dir = folder(&[("scout.yaml", CLEAN.as_bytes())]);
    let fifo = dir.path().join("pipe.yaml");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    for args in [
        vec!["check", "pipe.yaml"],
        vec!["check", "--catalog", "pipe.yaml", "scout.yaml"],
    ] {
        let mut child = crate::common::starweaver_binary()
            .current_dir(dir.path())
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Generous: only guards against the hang this test is about.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("`starweaver {}` waited on the FIFO", args.join(" "));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains("not a regular file"),
            "{}",
            stderr(&output)
        );
    }
}

/// Regression: `check /nonexistent.yaml` printed "0 errors, 0 warnings in 0 files" beside its
/// error, in every format a report that read as "nothing wrong".
#[test]
fn a_missing_path_prints_its_error_and_no_report_in_every_format() {
    let dir = folder(&[]);
    for format in ["human", "json", "github", "sarif"] {
        let output = run(dir.path(), &["check", "gone.yaml", "--format", format]);
        assert_eq!(output.status.code(), Some(2), "{format}");
        assert_eq!(stdout(&output), "", "{format}");
        assert!(
            stderr(&output).contains("cannot read `gone.yaml`"),
            "{format}: {}",
            stderr(&output)
        );
        assert!(!stderr(&output).contains("0 files"), "{format}");
    }
}

/// Regression: `check emptydir` printed "0 errors, 0 warnings in 0 files" and exited 0, so a CI
/// job pointed at the wrong folder passed.
#[test]
fn a_folder_without_manifests_exits_two_in_every_format() {
    let dir = folder(&[("emptydir/readme.txt", b"no manifests here")]);
    for format in ["human", "json", "github", "sarif"] {
        let output = run(dir.path(), &["check", "emptydir", "--format", format]);
        assert_eq!(output.status.code(), Some(2), "{format}");
        assert_eq!(stdout(&output), "", "{format}");
        assert!(
            stderr(&output).contains("no manifests found in `emptydir`"),
            "{format}: {}",
            stderr(&output)
        );
    }
    // Beside a folder that has manifests, the empty one still fails the check.
    let dir = folder(&[
        ("emptydir/readme.txt", b"x"),
        ("agents/scout.yaml", CLEAN.as_bytes()),
    ]);
    let output = run(dir.path(), &["check", "agents", "emptydir"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "0 errors, 0 warnings in 1 file\n");
}
