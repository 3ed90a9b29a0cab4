//! The manifest size limit: the message gives the file's real size and the flag that raises
//! the limit, and the flag does raise it.

use super::{folder, run, stderr, stdout, CLEAN};

/// Regression: a 52,428,852-byte file was reported as "4194305 bytes" (the length of what was
/// read, one past the limit) with "raise the document size budget", which no option could do.
#[test]
fn an_oversize_file_is_reported_with_its_real_size_and_the_flag_that_raises_the_limit() {
    let dir = folder(&[("big.yaml", CLEAN.as_bytes())]);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("big.yaml"))
        .unwrap();
    // Sparse: the size is in the metadata, not on disk.
    file.set_len(52_428_852).unwrap();
    for format in ["human", "json", "github", "sarif"] {
        let output = run(dir.path(), &["check", "big.yaml", "--format", format]);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{format}: {}",
            stderr(&output)
        );
        let text = stdout(&output);
        assert!(text.contains("52428852 bytes"), "{format}: {text}");
        assert!(!text.contains("4194305"), "{format}: {text}");
        assert!(
            text.contains("--max-manifest-bytes 52428852"),
            "{format}: {text}"
        );
    }
}

#[test]
fn the_flag_raises_the_limit_and_lowers_it() {
    let padded = format!("{CLEAN}#{}\n", "x".repeat(4_200_000));
    let dir = folder(&[("padded.yaml", padded.as_bytes())]);
    let output = run(dir.path(), &["check", "padded.yaml"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let output = run(
        dir.path(),
        &["check", "padded.yaml", "--max-manifest-bytes", "5000000"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(stdout(&output), "0 errors, 0 warnings in 1 file\n");
    let dir = folder(&[("scout.yaml", CLEAN.as_bytes())]);
    let output = run(
        dir.path(),
        &[
            "check",
            "scout.yaml",
            "--max-manifest-bytes",
            "10",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let found: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(found[0]["rule"], "syntax");
    let size = CLEAN.len();
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("{size} bytes, over the 10-byte limit")),
        "{found}"
    );
}

/// Regression: a tab in column 1 was reported at column 2 (after it), or at the value on the
/// line before, with no word on what to do.
#[test]
fn a_tab_is_reported_where_it_is_with_the_fix() {
    let dir = folder(&[
        ("a.yaml", b"version: 1\nname: x\nmodel:\n\tid: test\n"),
        (
            "b.yaml",
            b"version: 1\nname: x\nmodel: {id: test}\ntoolsets:\n- type: shell\n\tname: x\n",
        ),
    ]);
    for (file, line) in [("a.yaml", 4), ("b.yaml", 6)] {
        let output = run(dir.path(), &["check", file, "--format", "json"]);
        let found: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        assert_eq!(found[0]["rule"], "syntax", "{found}");
        assert_eq!(
            (found[0]["line"].as_u64(), found[0]["column"].as_u64()),
            (Some(line), Some(1)),
            "{file}: {found}"
        );
        let message = found[0]["message"].as_str().unwrap();
        assert!(message.contains("YAML indents with spaces"), "{message}");
        assert_eq!(found[0]["help"], "replace the tab with spaces");
    }
}

/// Regression: `run` refused a manifest over 4 MiB as "larger than 4194304 bytes; it is not a
/// manifest" and no option could raise its limit; `run`, `tools` and `check --explain` take the
/// same `--max-manifest-bytes` as `check`, and `run`'s message gives the real size.
#[test]
fn run_and_tools_take_the_same_limit() {
    let padded = format!("{CLEAN}#{}\n", "x".repeat(4_200_000));
    let dir = folder(&[("padded.yaml", padded.as_bytes())]);
    let size = padded.len();
    let output = run(dir.path(), &["run", "padded.yaml", "--prompt", "hi"]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(text.contains(&format!("is {size} bytes")), "{text}");
    assert!(
        text.contains(&format!("--max-manifest-bytes {size}")),
        "{text}"
    );
    let raised = ["--max-manifest-bytes", "5000000"];
    let output = run(
        dir.path(),
        &[&["run", "padded.yaml", "--prompt", "hi"][..], &raised[..]].concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = run(dir.path(), &["tools", "padded.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stdout(&output).contains(&format!("{size} bytes"))
            || stderr(&output).contains(&format!("{size} bytes"))
    );
    let output = run(
        dir.path(),
        &[&["tools", "padded.yaml"][..], &raised[..]].concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = run(
        dir.path(),
        &[&["check", "--explain", "padded.yaml"][..], &raised[..]].concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("Agent     scout"),
        "{}",
        stdout(&output)
    );
}
