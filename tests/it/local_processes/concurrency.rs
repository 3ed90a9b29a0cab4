//! The shared allowance: background starts past the limit are refused at
//! once (none lost, every started one finishes), foreground calls queue,
//! and both draw on the same permits.

use futures::future::join_all;
use starweaver::environment::{
    EnvironmentError, EnvironmentProvider, ProcessShellProvider, ProcessStatus, ProgramCommand,
    ShellCommand,
};

use super::provider;

const LONG: u64 = 20_000;

#[tokio::test]
async fn background_starts_past_the_limit_are_refused_and_none_are_lost() {
    let (_dir, provider) = provider();
    let provider = provider.with_max_concurrent_processes(4);
    // `cat` with its input open never ends on its own.
    let cat = ProgramCommand::new("cat", [""; 0]);
    let results = join_all((0..100).map(|_| provider.start_program(&cat))).await;
    let mut started = Vec::new();
    let mut refused = 0;
    for result in results {
        match result {
            Ok(snapshot) => started.push(snapshot.id),
            Err(EnvironmentError::ProcessLimit { limit: 4 }) => refused += 1,
            Err(other) => panic!("unexpected {other}"),
        }
    }
    assert_eq!(started.len() + refused, 100);
    assert_eq!(started.len(), 4, "exactly the limit runs while none ends");
    let running = provider.list().await.unwrap();
    assert_eq!(running.len(), 4);
    assert!(running
        .iter()
        .all(|p| p.output.status == ProcessStatus::Running));
    for id in &started {
        provider.write_stdin(id, b"", true).await.unwrap();
    }
    for id in &started {
        let done = provider.wait(id, LONG).await.unwrap();
        assert!(done.output.success(), "{done:?}");
    }
    // Every permit came back.
    let again = join_all((0..4).map(|_| provider.start_program(&cat))).await;
    for snapshot in again {
        let id = snapshot.unwrap().id;
        provider.kill(&id).await.unwrap();
    }
}

#[tokio::test]
async fn foreground_calls_past_the_limit_queue_and_all_complete() {
    let (dir, provider) = provider();
    let provider = provider.with_max_concurrent_processes(2);
    let log = dir.path().join("log");
    let script = ShellCommand::shell("echo start >> log; sleep 0.2; echo end >> log");
    let outputs = join_all((0..6).map(|_| provider.run_shell(&script))).await;
    for output in outputs {
        assert!(output.unwrap().success());
    }
    let text = std::fs::read_to_string(log).unwrap();
    let (mut running, mut most) = (0_i32, 0_i32);
    for line in text.lines() {
        running += if line == "start" { 1 } else { -1 };
        most = most.max(running);
    }
    assert_eq!(text.lines().count(), 12);
    assert!(most <= 2, "{most} ran at once:\n{text}");
}

#[tokio::test]
async fn foreground_and_background_share_the_allowance() {
    let (_dir, provider) = provider();
    let provider = provider.with_max_concurrent_processes(1);
    let cat = provider
        .start_program(&ProgramCommand::new("cat", [""; 0]))
        .await
        .unwrap();
    // The only permit is held: a foreground call waits its time limit,
    // then is refused without running.
    let error = provider
        .run_shell(&ShellCommand::shell("touch ran").with_timeout_ms(100))
        .await
        .unwrap_err();
    assert!(
        matches!(error, EnvironmentError::ProcessLimit { limit: 1 }),
        "{error}"
    );
    provider.write_stdin(&cat.id, b"", true).await.unwrap();
    provider.wait(&cat.id, LONG).await.unwrap();
    let output = provider
        .run_shell(&ShellCommand::shell("echo ok"))
        .await
        .unwrap();
    assert_eq!(output.stdout.text, "ok\n");
    let none = provider_with_no_slots();
    let error = none
        .run_shell(&ShellCommand::shell("true"))
        .await
        .unwrap_err();
    assert!(matches!(error, EnvironmentError::ProcessLimit { limit: 0 }));
}

fn provider_with_no_slots() -> starweaver::environment::LocalEnvironmentProvider {
    let dir = std::env::temp_dir();
    starweaver::environment::LocalEnvironmentProvider::new(dir)
        .unwrap()
        .with_max_concurrent_processes(0)
}
