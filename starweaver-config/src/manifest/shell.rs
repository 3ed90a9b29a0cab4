//! `shell:`: the policy and limits of the shell toolset.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The shell section. Leaving it out means no execution at all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShellSpec {
    /// Whether commands may run (default `false`).
    #[serde(default)]
    pub allow_execute: bool,
    /// Programs allowed by exact name. Empty with `allow_execute: true`
    /// means any program and shell scripts (a warning says so).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_programs: Vec<String>,
    /// Default command time limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Bytes kept per output stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_bytes: Option<u64>,
    /// Processes running at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrent_processes: Option<usize>,
}
