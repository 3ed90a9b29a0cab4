//! The simulation through the provider traits.

use crate::environment::{
    EnvironmentError, EnvironmentProvider, ProcessShellProvider, ProcessSignal, ProcessStatus,
    ProgramCommand, ShellCommand, ShellPolicy, VirtualEnvironmentProvider,
    RULE_PROGRAM_NOT_ALLOWED,
};

fn env() -> VirtualEnvironmentProvider {
    VirtualEnvironmentProvider::new("sim")
        .with_file("notes.txt", "one\n")
        .with_file("src/lib.rs", "lib\n")
}

async fn shell(
    env: &VirtualEnvironmentProvider,
    script: &str,
) -> crate::environment::ProcessOutput {
    match env.run_shell(&ShellCommand::shell(script)).await {
        Ok(output) => output,
        Err(error) => panic!("{script}: {error}"),
    }
}

#[tokio::test]
async fn builtins_run_in_the_foreground() {
    let env = env();
    let echo = shell(&env, "echo hello   world").await;
    assert!(echo.success());
    assert_eq!(echo.stdout.text, "hello world\n");
    assert_eq!(shell(&env, "echo -n a").await.stdout.text, "a");
    assert_eq!(shell(&env, "false").await.exit_code, Some(1));
    assert_eq!(shell(&env, "exit 7").await.exit_code, Some(7));
    assert_eq!(
        shell(&env, "cat notes.txt src/lib.rs").await.stdout.text,
        "one\nlib\n"
    );
    let missing = shell(&env, "cat nope.txt notes.txt").await;
    assert_eq!(missing.exit_code, Some(1));
    assert_eq!(missing.stdout.text, "one\n");
    assert!(
        missing.stderr.text.contains("nope.txt: No such file"),
        "{}",
        missing.stderr.text
    );
    let escape = shell(&env, "cat ../../etc/passwd").await;
    assert!(escape.stderr.text.contains("outside the environment root"));
    let unknown = shell(&env, "rm -rf /").await;
    assert_eq!(unknown.exit_code, Some(127));
    assert!(unknown.stderr.text.contains("rm: command not found"));
    assert!(shell(&env, "  ").await.success());
    let nested = ShellCommand::shell("pwd").with_working_directory("src");
    assert_eq!(
        env.run_shell(&nested)
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .stdout
            .text,
        "/src\n"
    );
    let relative = ShellCommand::shell("cat lib.rs").with_working_directory("/src/");
    assert_eq!(
        env.run_shell(&relative).await.map(|o| o.stdout.text).ok(),
        Some("lib\n".into())
    );
    let input = ShellCommand::shell("cat").with_stdin("typed");
    assert_eq!(
        env.run_shell(&input).await.map(|o| o.stdout.text).ok(),
        Some("typed".into())
    );
    let variables = ShellCommand::shell("env")
        .with_env("B", "2")
        .with_env("A", "1");
    assert_eq!(
        env.run_shell(&variables).await.map(|o| o.stdout.text).ok(),
        Some("A=1\nB=2\n".into())
    );
    let program = ProgramCommand::new("echo", ["a | b", "$(x)"]);
    assert_eq!(
        env.run_program(&program).await.map(|o| o.stdout.text).ok(),
        Some("a | b $(x)\n".into())
    );
    let path = ProgramCommand::new("/bin/echo", ["x"]);
    assert_eq!(
        env.run_program(&path).await.ok().and_then(|o| o.exit_code),
        Some(127)
    );
}

#[tokio::test]
async fn bad_working_directories_and_shell_syntax_are_errors() {
    let env = env();
    let missing = ShellCommand::shell("pwd").with_working_directory("nope");
    assert!(matches!(
        env.run_shell(&missing).await,
        Err(EnvironmentError::NotFound { .. })
    ));
    let file = ShellCommand::shell("pwd").with_working_directory("notes.txt");
    assert!(matches!(
        env.run_shell(&file).await,
        Err(EnvironmentError::NotADirectory { .. })
    ));
    let outside = ShellCommand::shell("pwd").with_working_directory("..");
    assert!(matches!(
        env.run_shell(&outside).await,
        Err(EnvironmentError::PathEscape { .. })
    ));
    let piped = env.run_shell(&ShellCommand::shell("echo a | wc -l")).await;
    let message = piped
        .err()
        .map(|error| error.to_string())
        .unwrap_or_default();
    assert!(
        message.contains("`|`") && message.contains("single builtin commands"),
        "{message}"
    );
}

#[tokio::test]
async fn sleeping_uses_virtual_time_and_timeouts() {
    let env = env();
    let slept = shell(&env, "sleep 60").await;
    assert!(slept.success());
    assert_eq!(slept.duration_ms, 60_000);
    // Past the default time limit (2 minutes), it is stopped.
    assert_eq!(
        shell(&env, "sleep 1h").await.status,
        ProcessStatus::TimedOut
    );
    let cut = env
        .run_shell(&ShellCommand::shell("sleep 2").with_timeout_ms(500))
        .await
        .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(cut.status, ProcessStatus::TimedOut);
    assert_eq!(
        (cut.exit_code, cut.signal, cut.duration_ms),
        (None, Some(15), 500)
    );
    let bad = shell(&env, "sleep soon").await;
    assert_eq!(bad.exit_code, Some(1));
    assert!(bad.stderr.text.contains("invalid time interval"));
}

#[tokio::test]
async fn the_policy_applies_to_both_forms_and_the_background() {
    let env = env().with_shell_policy(ShellPolicy::allow_programs(["echo"]));
    assert!(env
        .run_program(&ProgramCommand::new("echo", ["hi"]))
        .await
        .is_ok());
    for refused in [
        env.run_shell(&ShellCommand::shell("echo hi")).await.err(),
        env.run_program(&ProgramCommand::new("cat", ["notes.txt"]))
            .await
            .err(),
        env.start_program(&ProgramCommand::new("sleep", ["1"]))
            .await
            .err(),
        env.start_shell(&ShellCommand::shell("echo hi")).await.err(),
    ] {
        assert!(
            matches!(refused, Some(EnvironmentError::PolicyDenied { .. })),
            "{refused:?}"
        );
    }
    let env = env.with_shell_policy(ShellPolicy::disabled());
    assert!(env
        .run_program(&ProgramCommand::new("echo", ["hi"]))
        .await
        .is_err());
    let allowlisted = VirtualEnvironmentProvider::new("t")
        .with_shell_policy(ShellPolicy::allow_programs(["echo"]));
    let error = allowlisted
        .run_program(&ProgramCommand::new("/usr/bin/echo", ["x"]))
        .await
        .err();
    assert!(
        matches!(error, Some(EnvironmentError::PolicyDenied { rule, .. }) if rule == RULE_PROGRAM_NOT_ALLOWED)
    );
}

#[tokio::test]
async fn output_is_bounded_per_stream() {
    let env = VirtualEnvironmentProvider::new("t")
        .with_file("big.txt", "x".repeat(100))
        .with_max_output_bytes(10);
    let output = shell(&env, "cat big.txt missing").await;
    assert_eq!(output.stdout.text.len(), 10);
    assert_eq!(
        (output.stdout.bytes, output.stdout.captured_bytes),
        (100, 10)
    );
    assert!(output.stdout.truncated);
    assert_eq!(output.stderr.captured_bytes, 10);
    assert!(output.stderr.truncated);
    let metadata = output.metadata();
    assert_eq!(metadata["stdout_bytes"], 100);
    assert_eq!(metadata["stdout_truncated"], true);
}

#[tokio::test]
async fn a_background_sleep_runs_until_enough_time_is_waited() {
    let env = env();
    let started = env
        .start_shell(&ShellCommand::shell("sleep 1"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(started.id, "proc-1");
    assert_eq!(started.output.status, ProcessStatus::Running);
    let status = env.status("proc-1").await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (status.output.status, status.output.duration_ms),
        (ProcessStatus::Running, 0)
    );
    let early = env
        .wait("proc-1", 400)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (early.output.status, early.output.duration_ms),
        (ProcessStatus::Running, 400)
    );
    let done = env
        .wait("proc-1", 10_000)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(done.output.status, ProcessStatus::Exited);
    assert_eq!(
        (done.output.exit_code, done.output.duration_ms),
        (Some(0), 1_000)
    );
    // A foreground sleep moves the same clock.
    env.start_program(&ProgramCommand::new("sleep", ["5"]))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    shell(&env, "sleep 5").await;
    assert!(env
        .status("proc-2")
        .await
        .is_ok_and(|s| s.output.status == ProcessStatus::Exited));
    // A time limit ends a background process at its deadline.
    let limited = ShellCommand::shell("sleep 10").with_timeout_ms(2_000);
    env.start_shell(&limited)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let timed_out = env
        .wait("proc-3", 60_000)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(timed_out.output.status, ProcessStatus::TimedOut);
    assert_eq!(timed_out.output.duration_ms, 2_000);
    assert!(matches!(
        env.wait("proc-9", 1).await,
        Err(EnvironmentError::UnknownProcess { .. })
    ));
}

#[tokio::test]
async fn a_background_cat_echoes_input_until_closed() {
    let env = env();
    let started = env
        .start_shell(&ShellCommand::shell("cat").with_stdin("first\n"))
        .await;
    let id = started.map(|s| s.id).unwrap_or_default();
    let echoed = env
        .write_stdin(&id, b"second\n", false)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(echoed.output.stdout.text, "first\nsecond\n");
    assert_eq!(echoed.output.status, ProcessStatus::Running);
    let waited = env.wait(&id, 1_000).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(waited.output.status, ProcessStatus::Running);
    let closed = env
        .write_stdin(&id, b"last\n", true)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(closed.output.status, ProcessStatus::Exited);
    assert_eq!(closed.output.stdout.text, "first\nsecond\nlast\n");
    let after = env.write_stdin(&id, b"more", false).await;
    assert!(after
        .err()
        .is_some_and(|error| error.to_string().contains("already ended")));
}

#[tokio::test]
async fn signals_stop_resume_and_end_processes() {
    let env = env();
    for signal in [
        ProcessSignal::Term,
        ProcessSignal::Int,
        ProcessSignal::Kill,
        ProcessSignal::Hup,
    ] {
        let id = env
            .start_shell(&ShellCommand::shell("cat"))
            .await
            .map(|s| s.id)
            .unwrap_or_default();
        let ended = env
            .signal(&id, signal)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ended.output.status, ProcessStatus::Exited, "{signal:?}");
        assert_eq!(ended.output.exit_code, None);
        let expected = match signal {
            ProcessSignal::Term => 15,
            ProcessSignal::Int => 2,
            ProcessSignal::Kill => 9,
            _ => 1,
        };
        assert_eq!(ended.output.signal, Some(expected));
    }
    let id = env
        .start_shell(&ShellCommand::shell("sleep 2"))
        .await
        .map(|s| s.id)
        .unwrap_or_default();
    env.wait(&id, 500).await.unwrap_or_else(|e| panic!("{e}"));
    env.signal(&id, ProcessSignal::Stop)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // Stopped: time passes, the sleep does not.
    let paused = env.wait(&id, 5_000).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(paused.output.status, ProcessStatus::Running);
    // TERM waits for CONT.
    env.signal(&id, ProcessSignal::Term)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(env
        .status(&id)
        .await
        .is_ok_and(|s| s.output.status == ProcessStatus::Running));
    let resumed = env
        .signal(&id, ProcessSignal::Cont)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(resumed.output.signal, Some(15));
    let id = env
        .start_shell(&ShellCommand::shell("sleep 2"))
        .await
        .map(|s| s.id)
        .unwrap_or_default();
    env.signal(&id, ProcessSignal::Stop)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    env.wait(&id, 5_000).await.unwrap_or_else(|e| panic!("{e}"));
    env.signal(&id, ProcessSignal::Cont)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let finished = env.wait(&id, 2_000).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(finished.output.status, ProcessStatus::Exited);
    assert_eq!(finished.output.exit_code, Some(0));
    let id = env
        .start_shell(&ShellCommand::shell("sleep 2"))
        .await
        .map(|s| s.id)
        .unwrap_or_default();
    let killed = env.kill(&id).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (killed.output.status, killed.output.signal),
        (ProcessStatus::Killed, Some(15))
    );
    // Ended processes are left as they were.
    let again = env.kill(&id).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again, killed);
}

#[tokio::test]
async fn processes_and_retention_are_bounded() {
    let env = env()
        .with_max_concurrent_processes(2)
        .with_completed_process_retention(1);
    env.start_shell(&ShellCommand::shell("sleep 1"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    env.start_shell(&ShellCommand::shell("sleep 2"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let third = env.start_shell(&ShellCommand::shell("sleep 3")).await;
    assert!(matches!(
        third,
        Err(EnvironmentError::ProcessLimit { limit: 2 })
    ));
    let foreground = env.run_shell(&ShellCommand::shell("echo hi")).await;
    assert!(matches!(
        foreground,
        Err(EnvironmentError::ProcessLimit { limit: 2 })
    ));
    env.wait("proc-2", 5_000)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // Both ended; only the latest completed one is retained.
    let listed: Vec<String> = env
        .list()
        .await
        .unwrap_or_default()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(listed, ["proc-2"]);
    assert!(matches!(
        env.status("proc-1").await,
        Err(EnvironmentError::UnknownProcess { .. })
    ));
    for _ in 0..100 {
        env.start_shell(&ShellCommand::shell("echo x"))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(env.list().await.unwrap_or_default().len(), 1);
}
