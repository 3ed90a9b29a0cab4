//! Process groups: a timed-out command, a cancelled call and a command
//! that ends while leaving work behind all leave nothing of their group
//! alive.

use std::time::Duration;

use starweaver::environment::{EnvironmentProvider, ProcessStatus, ShellCommand};

use super::{group_gone, members_at_least, pid_in, provider};

#[tokio::test]
async fn a_timed_out_command_takes_its_grandchildren_with_it() {
    let (dir, provider) = provider();
    let provider = provider.with_kill_grace_ms(500);
    let command =
        ShellCommand::shell("echo $$ > pgid; sleep 300 & sleep 300 & wait").with_timeout_ms(3_000);
    let pgid_file = dir.path().join("pgid");
    let (output, pgid) = tokio::join!(provider.run_shell(&command), async {
        let pgid = pid_in(&pgid_file).await;
        members_at_least(pgid, 3).await;
        pgid
    });
    let output = output.unwrap();
    assert_eq!(output.status, ProcessStatus::TimedOut);
    assert_eq!(output.exit_code, None);
    assert!(output.signal.is_some(), "{output:?}");
    assert!(
        group_gone(pgid).await,
        "left: {:?}",
        super::group_members(pgid)
    );
}

#[tokio::test]
async fn a_group_ignoring_term_is_killed_after_the_grace() {
    let (dir, provider) = provider();
    let provider = provider.with_kill_grace_ms(200);
    let command = ShellCommand::shell("trap '' TERM; echo $$ > pgid; sleep 300 & wait")
        .with_timeout_ms(1_000);
    let output = provider.run_shell(&command).await.unwrap();
    let pgid = pid_in(&dir.path().join("pgid")).await;
    assert_eq!(output.status, ProcessStatus::TimedOut);
    assert_eq!(output.signal, Some(9), "{output:?}");
    assert!(group_gone(pgid).await);
}

#[tokio::test]
async fn a_cancelled_call_kills_its_group() {
    let (dir, provider) = provider();
    let command = ShellCommand::shell("echo $$ > pgid; sleep 300 & sleep 300");
    let pgid_file = dir.path().join("pgid");
    let pgid = tokio::select! {
        output = provider.run_shell(&command) => panic!("the command ended: {output:?}"),
        pgid = async {
            let pgid = pid_in(&pgid_file).await;
            members_at_least(pgid, 3).await;
            pgid
        } => pgid,
    };
    // The call's future is dropped here, mid-run.
    assert!(
        group_gone(pgid).await,
        "left: {:?}",
        super::group_members(pgid)
    );
}

#[tokio::test]
async fn work_left_behind_in_the_group_is_stopped_when_the_command_ends() {
    let (dir, provider) = provider();
    let command = ShellCommand::shell("echo $$ > pgid; sleep 300 & echo done");
    let output = tokio::time::timeout(Duration::from_secs(20), provider.run_shell(&command))
        .await
        .expect("the call returned")
        .unwrap();
    let pgid = pid_in(&dir.path().join("pgid")).await;
    assert!(output.success(), "{output:?}");
    assert_eq!(output.stdout.text, "done\n");
    assert!(
        !output.stdout.drain_timed_out,
        "the leftover held stdout and was stopped"
    );
    assert!(group_gone(pgid).await);
}
