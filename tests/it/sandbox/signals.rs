//! Signals: a sandboxed command cannot signal the host or any process
//! outside its sandbox (Landlock ABI 6 scoping).

use starweaver::environment::LANDLOCK_ABI_FOR_SCOPES;

use super::{enforced, has_abi, running, stdout, Sandboxed};

#[tokio::test]
async fn a_command_cannot_signal_the_host_or_a_process_outside_its_sandbox() {
    if !enforced() || !has_abi(LANDLOCK_ABI_FOR_SCOPES) {
        return;
    }
    let mut outsider = std::process::Command::new("sleep")
        .arg("300")
        .spawn()
        .unwrap();
    let shell = Sandboxed::default_policy();
    let host = std::process::id();
    let script = format!(
        "kill -0 {host}; echo probe=$?; kill -s WINCH {host}; echo winch=$?; \
         kill -s KILL {outsider}; echo kill=$?; sleep 1 & kill -0 $!; echo own=$?",
        outsider = outsider.id()
    );
    let part = shell.script(&script).await;
    assert_eq!(
        stdout(&part),
        "probe=1\nwinch=1\nkill=1\nown=0\n",
        "{}",
        part.content
    );
    assert!(
        running(outsider.id() as i32),
        "the command killed a process outside it"
    );
    assert_eq!(part.metadata["sandbox"]["scoped"], true);
    outsider.kill().unwrap();
    outsider.wait().unwrap();
}

#[tokio::test]
async fn without_scoping_seccomp_still_keeps_signals_off_the_host() {
    if !enforced() {
        return;
    }
    let shell = Sandboxed::with(|provider| {
        provider.with_sandbox_kernel(
            starweaver::environment::SandboxKernel::detect().with_landlock_abi(5),
        )
    });
    let host = std::process::id();
    let script = format!(
        "kill -0 {host}; echo probe=$?; kill -s WINCH -- -1; echo everyone=$?; \
         sleep 1 & kill -0 $!; echo own=$?"
    );
    let part = shell.script(&script).await;
    assert_eq!(
        stdout(&part),
        "probe=1\neveryone=1\nown=0\n",
        "{}",
        part.content
    );
    assert_eq!(part.metadata["sandbox"]["scoped"], false);
}
