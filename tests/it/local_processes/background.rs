//! Background processes through `ProcessShellProvider`: kill stops the
//! whole group, input can be written then closed, signals reach the
//! group, output shows while running, completed processes are retained
//! up to the bound, and dropping the provider stops what still runs.

use std::time::Duration;

use starweaver::environment::{
    EnvironmentError, ProcessShellProvider, ProcessSignal, ProcessStatus, ProgramCommand,
    ShellCommand,
};

use super::{group_gone, members_at_least, pid_in, provider};

const LONG: u64 = 20_000;

#[tokio::test]
async fn kill_stops_a_process_that_never_ends_and_its_group() {
    let (dir, provider) = provider();
    let provider = provider.with_kill_grace_ms(500);
    let started = provider
        .start_shell(&ShellCommand::shell(
            "echo $$ > pgid; sleep 300 & sleep 300",
        ))
        .await
        .unwrap();
    assert_eq!(started.id, "p1");
    assert_eq!(started.output.status, ProcessStatus::Running);
    let pgid = pid_in(&dir.path().join("pgid")).await;
    members_at_least(pgid, 3).await;
    let killed = provider.kill(&started.id).await.unwrap();
    assert_eq!(killed.output.status, ProcessStatus::Killed);
    assert!(
        group_gone(pgid).await,
        "left: {:?}",
        super::group_members(pgid)
    );
    // The final state stays queryable, and a second kill changes nothing.
    let again = provider.kill(&started.id).await.unwrap();
    assert_eq!(again.output, killed.output);
}

#[tokio::test]
async fn input_is_written_then_closed() {
    let (_dir, provider) = provider();
    let cat = provider
        .start_program(&ProgramCommand::new("cat", [""; 0]))
        .await
        .unwrap();
    provider.write_stdin(&cat.id, b"abc", false).await.unwrap();
    provider.write_stdin(&cat.id, b"def", true).await.unwrap();
    let done = provider.wait(&cat.id, LONG).await.unwrap();
    assert!(done.output.success(), "{done:?}");
    assert_eq!(done.output.stdout.text, "abcdef");
    let error = provider
        .write_stdin(&cat.id, b"more", false)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, EnvironmentError::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe),
        "{error}"
    );
    assert!(error.to_string().contains(&cat.id), "{error}");
}

// A background process started with `stdin` had its input closed once
// that was written, so `shell_input` failed, though the tools promise a
// background process's input stays open.
#[tokio::test]
async fn input_given_at_the_start_leaves_a_background_input_open() {
    let (_dir, provider) = provider();
    let cat = provider
        .start_program(&ProgramCommand::new("cat", [""; 0]).with_stdin("first\n"))
        .await
        .unwrap();
    provider
        .write_stdin(&cat.id, b"second\n", true)
        .await
        .unwrap();
    let done = provider.wait(&cat.id, LONG).await.unwrap();
    assert!(done.output.success(), "{done:?}");
    assert_eq!(done.output.stdout.text, "first\nsecond\n");
}

#[tokio::test]
async fn a_signal_reaches_the_group_and_output_shows_while_running() {
    let (_dir, provider) = provider();
    let sleeper = provider
        .start_shell(&ShellCommand::shell("echo early; exec sleep 300"))
        .await
        .unwrap();
    let mut seen = None;
    for _ in 0..2_000 {
        let snapshot = provider.status(&sleeper.id).await.unwrap();
        if snapshot.output.stdout.text == "early\n" {
            seen = Some(snapshot);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let seen = seen.expect("the early output showed");
    assert_eq!(seen.output.status, ProcessStatus::Running);
    assert_eq!(seen.output.stdout.bytes, 6);
    // A short wait on a running process returns its state, still running.
    let waited = provider.wait(&sleeper.id, 10).await.unwrap();
    assert_eq!(waited.output.status, ProcessStatus::Running);
    provider
        .signal(&sleeper.id, ProcessSignal::Term)
        .await
        .unwrap();
    let done = provider.wait(&sleeper.id, LONG).await.unwrap();
    assert_eq!(done.output.status, ProcessStatus::Exited);
    assert_eq!(done.output.signal, Some(15), "{done:?}");
    assert_eq!(done.output.stdout.text, "early\n");
}

#[tokio::test]
async fn a_named_time_limit_applies_in_the_background() {
    let (_dir, provider) = provider();
    let started = provider
        .start_program(&ProgramCommand::new("sleep", ["300"]).with_timeout_ms(200))
        .await
        .unwrap();
    let done = provider.wait(&started.id, LONG).await.unwrap();
    assert_eq!(done.output.status, ProcessStatus::TimedOut);
}

#[tokio::test]
async fn completed_processes_are_retained_up_to_the_bound() {
    let (_dir, provider) = provider();
    let provider = provider.with_completed_process_retention(2);
    let mut ids = Vec::new();
    for n in 0..3 {
        let started = provider
            .start_shell(&ShellCommand::shell(format!("echo {n}")))
            .await
            .unwrap();
        let done = provider.wait(&started.id, LONG).await.unwrap();
        assert_eq!(done.output.stdout.text, format!("{n}\n"));
        ids.push(started.id);
    }
    let listed: Vec<String> = provider
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|snapshot| snapshot.id)
        .collect();
    assert_eq!(listed, ids[1..], "the oldest completed was dropped");
    for unknown in [ids[0].as_str(), "p99", "nope", ""] {
        let error = provider.status(unknown).await.unwrap_err();
        assert!(
            matches!(error, EnvironmentError::UnknownProcess { .. }),
            "{unknown}: {error}"
        );
        assert!(provider.kill(unknown).await.is_err());
        assert!(provider.write_stdin(unknown, b"x", true).await.is_err());
    }
    assert_eq!(
        provider.status(&ids[2]).await.unwrap().output.stdout.text,
        "2\n"
    );
}

#[tokio::test]
async fn dropping_the_provider_stops_every_running_group() {
    let (dir, provider) = provider();
    provider
        .start_shell(&ShellCommand::shell(
            "echo $$ > pgid; sleep 300 & sleep 300",
        ))
        .await
        .unwrap();
    let pgid = pid_in(&dir.path().join("pgid")).await;
    members_at_least(pgid, 3).await;
    drop(provider);
    assert!(
        group_gone(pgid).await,
        "left: {:?}",
        super::group_members(pgid)
    );
}
