//! How much a provider lets commands take: time, output, processes, and
//! which host variables they see.

/// Default per-stream output bound: 1 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 1024 * 1024;
/// Default time limit of a command: 2 minutes.
pub const DEFAULT_COMMAND_TIMEOUT_MS: u64 = 120_000;
/// Default time between TERM and KILL: 2 seconds.
pub const DEFAULT_KILL_GRACE_MS: u64 = 2_000;
/// Default time a stream may stay open after its process ended: 1 second.
pub const DEFAULT_DRAIN_TIMEOUT_MS: u64 = 1_000;
/// Default number of processes running at once: 8.
pub const DEFAULT_MAX_CONCURRENT_PROCESSES: usize = 8;
/// Default number of completed background processes kept queryable: 64.
pub const DEFAULT_COMPLETED_PROCESS_RETENTION: usize = 64;

/// Host variables a command inherits by default. Everything else (API
/// keys, tokens, cloud credentials) is scrubbed.
pub const DEFAULT_INHERITED_ENV: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ",
    "TMPDIR",
];

/// Resource bounds for commands and processes, shared by every provider
/// that runs them. Set through the provider's `with_*` methods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessLimits {
    /// Bytes kept per stream (stdout, stderr); the rest is drained and
    /// counted.
    pub max_output_bytes: u64,
    /// Time limit of a command that names none.
    pub default_timeout_ms: u64,
    /// Time between TERM and KILL when a group is stopped.
    pub kill_grace_ms: u64,
    /// Time a stream may stay open after its process ended before the
    /// capture gives up on it (`<stream>_drain_timed_out`).
    pub drain_timeout_ms: u64,
    /// Processes running at once, foreground and background together.
    pub max_concurrent_processes: usize,
    /// Completed background processes kept for `shell_status`.
    pub completed_process_retention: usize,
    /// Host variables passed to commands (see [`DEFAULT_INHERITED_ENV`]).
    pub inherited_env: Vec<String>,
}

impl Default for ProcessLimits {
    fn default() -> Self {
        Self {
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            default_timeout_ms: DEFAULT_COMMAND_TIMEOUT_MS,
            kill_grace_ms: DEFAULT_KILL_GRACE_MS,
            drain_timeout_ms: DEFAULT_DRAIN_TIMEOUT_MS,
            max_concurrent_processes: DEFAULT_MAX_CONCURRENT_PROCESSES,
            completed_process_retention: DEFAULT_COMPLETED_PROCESS_RETENTION,
            inherited_env: DEFAULT_INHERITED_ENV
                .iter()
                .map(|name| (*name).to_string())
                .collect(),
        }
    }
}
