//! What a command produced: exit status and bounded output streams.

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::JsonMap;

/// Where a process is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcessStatus {
    /// Still running (background processes only).
    Running,
    /// Ended on its own: see the exit code (or the signal that ended
    /// it).
    Exited,
    /// Ran past its time limit; its process group was terminated.
    TimedOut,
    /// Killed on request (`shell_kill`, a cancelled run).
    Killed,
}

impl ProcessStatus {
    /// True once the process has ended.
    #[must_use]
    pub fn is_finished(self) -> bool {
        self != Self::Running
    }
}

/// One output stream (stdout or stderr), drained in full but kept only
/// up to the provider's per-stream bound.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamCapture {
    /// The kept bytes as text (invalid UTF-8 replaced).
    pub text: String,
    /// Bytes the process wrote to the stream.
    pub bytes: u64,
    /// Bytes kept (the first ones, up to the bound).
    pub captured_bytes: u64,
    /// True when bytes were dropped past the bound.
    pub truncated: bool,
    /// True when the stream did not reach its end in time after the
    /// process ended (something it started still holds the pipe); what
    /// came later is missing.
    pub drain_timed_out: bool,
    /// True when reading the stream failed; what came later is missing.
    pub capture_failed: bool,
}

impl StreamCapture {
    /// The `<stream>_bytes`, `_captured_bytes`, `_truncated`,
    /// `_drain_timed_out` and `_capture_failed` entries, into `metadata`.
    pub fn write_metadata(&self, stream: &str, metadata: &mut JsonMap) {
        metadata.insert(format!("{stream}_bytes"), json!(self.bytes));
        metadata.insert(
            format!("{stream}_captured_bytes"),
            json!(self.captured_bytes),
        );
        metadata.insert(format!("{stream}_truncated"), json!(self.truncated));
        metadata.insert(
            format!("{stream}_drain_timed_out"),
            json!(self.drain_timed_out),
        );
        metadata.insert(
            format!("{stream}_capture_failed"),
            json!(self.capture_failed),
        );
    }
}

/// The result of a command, or the state so far of a background process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessOutput {
    /// Running, exited, timed out or killed.
    pub status: ProcessStatus,
    /// The exit code, when the process exited normally.
    pub exit_code: Option<i32>,
    /// The signal that ended the process, when one did.
    pub signal: Option<i32>,
    /// Standard output.
    pub stdout: StreamCapture,
    /// Standard error.
    pub stderr: StreamCapture,
    /// Milliseconds since the process started (to its end once ended).
    pub duration_ms: u64,
    /// The kernel sandbox it ran under, where the provider has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::environment::SandboxReport>,
}

impl ProcessOutput {
    /// True for an exit with code 0.
    #[must_use]
    pub fn success(&self) -> bool {
        self.status == ProcessStatus::Exited && self.exit_code == Some(0)
    }

    /// Stream accounting as flat metadata: `stdout_bytes`,
    /// `stdout_captured_bytes`, `stdout_truncated`,
    /// `stdout_drain_timed_out`, `stdout_capture_failed` and the same for
    /// `stderr`; and `sandbox`, what the command ran under, where the
    /// provider has a sandbox.
    #[must_use]
    pub fn metadata(&self) -> JsonMap {
        let mut metadata = JsonMap::new();
        self.stdout.write_metadata("stdout", &mut metadata);
        self.stderr.write_metadata("stderr", &mut metadata);
        if let Some(sandbox) = &self.sandbox {
            if let Ok(value) = serde_json::to_value(sandbox) {
                metadata.insert("sandbox".to_string(), value);
            }
        }
        metadata
    }
}

/// A background process as a provider reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessSnapshot {
    /// The handle `shell_wait`, `shell_status` and friends take.
    pub id: String,
    /// The command, shortened, for listings.
    pub command: String,
    /// Status and output so far.
    #[serde(flatten)]
    pub output: ProcessOutput,
}
