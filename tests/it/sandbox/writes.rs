//! Writes: only inside the root (workspace-write) or nowhere but the
//! private temporary folder (read-only), whatever the command and
//! whatever the path checks saw.

use serde_json::json;
use starweaver::environment::SandboxPolicy;
use starweaver::model::ToolReturnKind;

use super::{enforced, stdout, Sandboxed};

#[tokio::test]
async fn a_script_cannot_write_outside_the_root() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    let target = shell.out("escaped.txt");
    let script = format!(
        "echo inside > inside.txt; echo out > {}; echo status=$?",
        target.display()
    );
    let part = shell.script(&script).await;
    assert_eq!(
        std::fs::read_to_string(shell.inside("inside.txt")).unwrap(),
        "inside\n"
    );
    assert!(stdout(&part).contains("status=2"), "{}", part.content);
    assert!(!target.exists(), "the command wrote outside the root");
}

#[tokio::test]
async fn a_program_cannot_write_outside_the_root() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    let target = shell.out("escaped.txt");
    let part = shell
        .exec(json!({
            "program": "tee",
            "args": ["inside.txt", target.display().to_string()],
            "stdin": "data\n",
        }))
        .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
    assert_eq!(
        std::fs::read_to_string(shell.inside("inside.txt")).unwrap(),
        "data\n"
    );
    assert_eq!(part.content["exit_code"], 1, "{}", part.content);
    assert!(!target.exists(), "tee wrote outside the root");
}

#[tokio::test]
async fn an_allowed_gits_alias_cannot_write_outside_the_root() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    let target = shell.out("escaped.txt");
    let alias = format!(
        "alias.x=!echo ran > inside.txt; echo pwned > {}",
        target.display()
    );
    let part = shell
        .exec(json!({"program": "git", "args": ["-c", alias, "x"]}))
        .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
    assert_eq!(
        std::fs::read_to_string(shell.inside("inside.txt")).unwrap(),
        "ran\n"
    );
    assert!(!target.exists(), "git's alias wrote outside the root");
}

#[tokio::test]
async fn read_only_leaves_a_checkout_unchanged() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::new(SandboxPolicy::read_only());
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
            .args(args)
            .current_dir(shell.root.path())
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
        String::from_utf8_lossy(&status.stdout).into_owned()
    };
    git(&["init", "-q"]);
    std::fs::write(shell.inside("a.txt"), "a\n").unwrap();
    git(&["add", "a.txt"]);
    git(&["commit", "-qm", "first"]);
    let part = shell
        .script("git branch x; touch f; echo changed > a.txt; echo ran; git log --oneline | wc -l")
        .await;
    assert_eq!(stdout(&part), "ran\n1\n", "{}", part.content);
    assert_eq!(git(&["branch", "--list", "x"]), "", "a branch was created");
    assert!(!shell.inside("f").exists(), "touch created a file");
    assert_eq!(
        std::fs::read_to_string(shell.inside("a.txt")).unwrap(),
        "a\n"
    );
}

#[tokio::test]
async fn read_only_still_writes_its_writable_folders_and_temporary_folder() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::new(SandboxPolicy::read_only().with_writable(["target"]));
    let part = shell
        .script(
            "echo built > target/out.txt && echo t > \"$TMPDIR/scratch\" && cat \"$TMPDIR/scratch\"; \
             echo no > top.txt; echo top=$?",
        )
        .await;
    assert_eq!(stdout(&part), "t\ntop=2\n", "{}", part.content);
    assert_eq!(
        std::fs::read_to_string(shell.inside("target/out.txt")).unwrap(),
        "built\n"
    );
    assert!(!shell.inside("top.txt").exists());
}

#[tokio::test]
async fn a_link_inside_the_root_to_outside_is_refused_by_the_kernel() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    std::os::unix::fs::symlink(shell.outside.path(), shell.inside("link")).unwrap();
    let part = shell
        .script("echo x > link/through.txt; echo status=$?; echo y > inside.txt; cat inside.txt")
        .await;
    assert_eq!(stdout(&part), "status=2\ny\n", "{}", part.content);
    assert!(
        !shell.out("through.txt").exists(),
        "the write followed the link out"
    );
}

#[tokio::test]
async fn a_writable_folder_that_leads_out_of_the_root_refuses_commands() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::new(SandboxPolicy::read_only().with_writable(["../elsewhere"]));
    let part = shell
        .exec(json!({"command": "echo ran > inside.txt"}))
        .await;
    assert_ne!(part.kind, ToolReturnKind::Success, "{}", part.content);
    assert!(!shell.inside("inside.txt").exists());
}
