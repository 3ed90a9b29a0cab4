//! Reads under `read: workspace`, and the private temporary folder.

use starweaver::environment::{SandboxPolicy, SandboxReads};

use super::{enforced, stdout, Sandboxed};

#[tokio::test]
async fn read_workspace_reads_the_root_and_the_system_but_not_home_or_tmp() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::new(SandboxPolicy::default().with_reads(SandboxReads::Workspace));
    std::fs::write(shell.inside("mine.txt"), "mine\n").unwrap();
    std::fs::write(shell.out("secret.txt"), "secret\n").unwrap();
    let script = format!(
        "cat mine.txt; ls /usr/bin > /dev/null && echo usr; cat /etc/passwd > /dev/null && echo etc; \
         head -c 1 /dev/urandom > /dev/null && echo urandom; \
         head -n 1 /proc/self/status | cut -f1; \
         cat {secret} > /dev/null 2>&1 || echo no secret; \
         for path in /tmp /home /root; do ls $path > /dev/null 2>&1 || echo no $path; done",
        secret = shell.out("secret.txt").display()
    );
    let part = shell.script(&script).await;
    assert_eq!(
        stdout(&part),
        format!("mine\nusr\netc\nurandom\nName:\nno secret\nno /tmp\nno /home\nno /root\n"),
        "{}",
        part.content
    );
}

#[tokio::test]
async fn the_private_temporary_folder_is_tmpdir_and_goes_with_the_provider() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    let part = shell
        .script("echo t > \"$TMPDIR/scratch\" && cat \"$TMPDIR/scratch\" && echo \"$TMPDIR\"")
        .await;
    let lines: Vec<&str> = stdout(&part).lines().collect();
    assert_eq!(lines.first(), Some(&"t"), "{}", part.content);
    let folder = std::path::PathBuf::from(lines[1]);
    assert!(folder.join("scratch").exists());
    assert!(!folder.starts_with(shell.root.path()));
    drop(shell);
    assert!(
        !folder.exists(),
        "the temporary folder outlived its provider"
    );
}

#[tokio::test]
async fn read_all_keeps_terminals_and_disks_out_of_reach() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::default_policy();
    let part = shell
        .script(
            "cat /dev/null && echo null; head -c 1 /dev/urandom > /dev/null && echo urandom; \
             ls /usr/bin > /dev/null && echo usr; ls /dev > /dev/null 2>&1 || echo no /dev; \
             for device in /dev/tty /dev/console /dev/ptmx; do \
               [ -e $device ] && { cat $device > /dev/null 2>&1 < /dev/null || echo no $device; }; \
             done; true",
        )
        .await;
    let out = stdout(&part);
    assert!(
        out.starts_with("null\nurandom\nusr\nno /dev\n"),
        "{}",
        part.content
    );
    for line in out.lines().skip(4) {
        assert!(line.starts_with("no /dev/"), "{}", part.content);
    }
}
