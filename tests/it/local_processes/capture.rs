//! Bounded capture: 1 GiB of output keeps memory within a few times the
//! per-stream bound (measured as peak resident memory in a process of its
//! own), metadata reports every stream's accounting, input round-trips,
//! and an escaped grandchild holding the pipe cannot hold the call.

use std::time::Duration;

use starweaver::environment::{
    EnvironmentError, EnvironmentProvider, ProcessStatus, ProgramCommand, ShellCommand,
};

use super::{provider, run_in_child};

const GIB: u64 = 1 << 30;
const BOUND: u64 = 1 << 20;

/// Peak resident memory of this process, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn one_gib_of_output_stays_within_the_capture_bound() {
    let stdout = run_in_child("local_processes::capture::one_gib_child", &[]);
    let line = stdout
        .lines()
        .find_map(|line| line.split_once("peak-rss-kib ").map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("no measurement in {stdout}"));
    let (before, after): (u64, u64) = {
        let mut numbers = line.split_whitespace().map(|n| n.parse::<u64>().unwrap());
        (numbers.next().unwrap(), numbers.next().unwrap())
    };
    println!("peak resident memory before {before} KiB, after 1 GiB of output {after} KiB");
    // Two streams of at most BOUND each, read buffers, the runtime's
    // growth: far below the 1 GiB an unbounded capture would hold.
    let allowed_kib = 4 * BOUND / 1024 + 16 * 1024;
    assert!(
        after.saturating_sub(before) < allowed_kib,
        "peak grew by {} KiB (allowed {allowed_kib} KiB)",
        after - before
    );
}

#[tokio::test]
#[ignore = "run by one_gib_of_output_stays_within_the_capture_bound in a process of its own"]
async fn one_gib_child() {
    let (_dir, provider) = provider();
    let provider = provider.with_max_output_bytes(BOUND);
    let before = peak_rss_kib();
    let output = provider
        .run_shell(&ShellCommand::shell(format!("head -c {GIB} /dev/zero")))
        .await
        .unwrap();
    let after = peak_rss_kib();
    assert!(output.success(), "{:?}", output.status);
    assert_eq!(output.stdout.bytes, GIB);
    assert_eq!(output.stdout.captured_bytes, BOUND);
    assert_eq!(output.stdout.text.len() as u64, BOUND);
    assert!(output.stdout.truncated);
    assert!(!output.stdout.capture_failed && !output.stdout.drain_timed_out);
    println!("\npeak-rss-kib {before} {after}");
}

#[tokio::test]
async fn metadata_names_every_stream_and_output_is_cut_at_the_bound() {
    let (_dir, provider) = provider();
    let provider = provider.with_max_output_bytes(10);
    let output = provider
        .run_shell(&ShellCommand::shell(
            "printf 0123456789abcdef; echo err >&2; exit 3",
        ))
        .await
        .unwrap();
    assert_eq!(output.status, ProcessStatus::Exited);
    assert_eq!(output.exit_code, Some(3));
    assert_eq!(output.signal, None);
    assert_eq!(output.stdout.text, "0123456789");
    assert_eq!(output.stderr.text, "err\n");
    let metadata = output.metadata();
    let expected = [
        ("stdout_bytes", serde_json::json!(16)),
        ("stdout_captured_bytes", serde_json::json!(10)),
        ("stdout_truncated", serde_json::json!(true)),
        ("stdout_drain_timed_out", serde_json::json!(false)),
        ("stdout_capture_failed", serde_json::json!(false)),
        ("stderr_bytes", serde_json::json!(4)),
        ("stderr_captured_bytes", serde_json::json!(4)),
        ("stderr_truncated", serde_json::json!(false)),
        ("stderr_drain_timed_out", serde_json::json!(false)),
        ("stderr_capture_failed", serde_json::json!(false)),
        (
            "sandbox",
            serde_json::to_value(provider.sandbox_report()).unwrap(),
        ),
    ];
    assert_eq!(metadata.len(), expected.len(), "{metadata:?}");
    for (key, value) in expected {
        assert_eq!(metadata.get(key), Some(&value), "{key}");
    }
}

#[tokio::test]
async fn input_round_trips_and_unread_input_does_not_hold_the_call() {
    let (_dir, provider) = provider();
    let input = b"hello\0world\n\xffend".to_vec();
    let output = provider
        .run_program(&ProgramCommand::new("cat", [""; 0]).with_stdin(input.clone()))
        .await
        .unwrap();
    assert_eq!(output.stdout.bytes, input.len() as u64);
    assert_eq!(output.stdout.text, String::from_utf8_lossy(&input));
    // 16 MiB offered to a program that never reads it.
    let ignored = ProgramCommand::new("true", [""; 0]).with_stdin(vec![b'x'; 16 << 20]);
    let output = tokio::time::timeout(Duration::from_secs(20), provider.run_program(&ignored))
        .await
        .expect("the call returned")
        .unwrap();
    assert!(output.success());
    // Without input the command reads an empty stream.
    let output = provider
        .run_program(&ProgramCommand::new("cat", [""; 0]))
        .await
        .unwrap();
    assert!(output.success() && output.stdout.text.is_empty());
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error() {
    let (_dir, provider) = provider();
    let error = provider
        .run_program(&ProgramCommand::new("starweaver-no-such-program", ["x"]))
        .await
        .unwrap_err();
    assert!(matches!(error, EnvironmentError::Spawn { .. }), "{error}");
    assert!(error.to_string().contains("starweaver-no-such-program"));
}

#[tokio::test]
async fn an_escaped_grandchild_holding_the_output_is_ended_with_its_command() {
    if std::process::Command::new("setsid")
        .arg("true")
        .status()
        .map_or(true, |status| !status.success())
    {
        eprintln!("setsid is not available; skipping");
        return;
    }
    let (dir, provider) = provider();
    // The grandchild starts a session of its own (leaving the group),
    // records its pid, then keeps stdout open for 30 s: before processes
    // that left the group were followed, the call waited for the drain
    // timeout and the grandchild outlived it.
    let script = "setsid sh -c 'echo $$ > escaped; exec sleep 30' & \
                  while [ ! -s escaped ]; do sleep 0.05; done; echo started";
    let output = tokio::time::timeout(
        Duration::from_secs(20),
        provider.run_shell(&ShellCommand::shell(script)),
    )
    .await
    .expect("the call returned")
    .unwrap();
    let escaped: i32 = std::fs::read_to_string(dir.path().join("escaped"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(escaped), None).is_ok();
    assert!(
        !alive,
        "the escaped grandchild {escaped} outlived its command"
    );
    assert!(output.success(), "{output:?}");
    assert_eq!(output.stdout.text, "started\n");
    assert!(!output.stdout.drain_timed_out, "{output:?}");
}
