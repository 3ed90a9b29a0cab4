//! Every manifest in `agents/` runs on the `test` model, on a copy of the folder, and the
//! README's main job runs in place without changing the checkout.

use std::path::{Path, PathBuf};

use super::{assert_status, run, stdout};

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Copies `from` into `to`, recursively.
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn every_agent_runs_to_its_answer_on_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    copy(&repository().join("agents"), &dir.path().join("agents"));
    let mut ran = 0;
    for entry in std::fs::read_dir(dir.path().join("agents")).unwrap() {
        let path = entry.unwrap().path();
        if !path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let relative = format!("agents/{}", path.file_name().unwrap().to_string_lossy());
        let output = run(
            dir.path(),
            &["run", &relative, "--yes", "--prompt", "Say hello"],
        );
        // A run that hands a call to an external worker ends waiting for it, as designed.
        let want = if text.contains("type: deferred") {
            3
        } else {
            0
        };
        assert_status(&output, want);
        if want == 0 {
            assert!(
                stdout(&output).contains("usage: "),
                "{relative}: {}",
                stdout(&output)
            );
        }
        ran += 1;
    }
    assert!(ran >= 2, "only {ran} manifests ran");
}

#[test]
fn the_readme_job_runs_in_place_and_leaves_the_checkout_alone() {
    let root = repository();
    let status = |root: &Path| {
        std::process::Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=all"])
            .current_dir(root)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| output.stdout)
    };
    let before = status(&root);
    let output = run(
        &root,
        &[
            "run",
            "agents/repo-helper.yaml",
            "--prompt",
            "Where is the manifest loader?",
        ],
    );
    assert_status(&output, 0);
    let text = stdout(&output);
    assert!(text.contains("step 1: asking the model"), "{text}");
    assert!(text.contains("→ read_file"), "{text}");
    assert!(
        text.trim_end()
            .lines()
            .last()
            .unwrap()
            .starts_with("usage: "),
        "{text}"
    );
    // Without git (an exported tree) there is nothing to compare.
    if let Some(before) = before {
        assert_eq!(status(&root), Some(before), "the run changed the checkout");
    }
}
