//! `shell:`: the policy and limits of the shell toolset.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The shell section. Leaving it out means no execution at all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellSpec {
    /// Whether commands may run at all. Off unless set to `true`: a
    /// `shell` section without it still runs nothing.
    #[serde(default)]
    #[schemars(example = true)]
    pub allow_execute: bool,
    /// Programs allowed, by exact name (`git`, not `/usr/bin/git`); a
    /// command may run only those, and shell scripts are refused. Empty
    /// (or unset) with `allow_execute: true` means any program and shell
    /// scripts, and `check` warns that it does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(example = serde_json::json!(["git", "cargo"]))]
    pub allowed_programs: Vec<String>,
    /// Time limit of a command, in milliseconds, when the call sets none.
    /// Unset: 120000 (two minutes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 30000)]
    pub timeout_ms: Option<u64>,
    /// Bytes of output kept per stream (standard output, standard error);
    /// the rest is dropped and the result says it was truncated. Unset:
    /// 1048576 (1 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 1048576)]
    pub max_output_bytes: Option<u64>,
    /// Background processes that may run at once; starting one more is
    /// refused. Unset: 8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 4)]
    pub max_concurrent_processes: Option<usize>,
}
