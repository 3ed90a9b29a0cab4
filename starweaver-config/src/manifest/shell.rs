//! `shell:`: the policy, limits and kernel sandbox of the shell toolset.

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
    /// The kernel sandbox every command of a `local` environment runs
    /// under (Landlock and seccomp on Linux). Unset: the defaults of each
    /// field, so commands write only inside the root and use no network. A
    /// `virtual` environment runs no real process and refuses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = serde_json::json!({"mode": "read-only", "writable": ["target"]}))]
    pub sandbox: Option<SandboxSpec>,
}

/// `shell.sandbox`: what commands may write, read and connect to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxSpec {
    /// How much of the file system commands may change.
    #[serde(default)]
    #[schemars(example = &"read-only")]
    pub mode: SandboxModeSpec,
    /// More folders commands may write, relative to the environment root
    /// and inside it (a folder that does not exist yet is made when the
    /// first command starts). An absolute path or a `..` that leads out of
    /// the root is a `path-escape` error. Unset: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(example = serde_json::json!(["target"]))]
    pub writable: Vec<String>,
    /// Whether commands may use the network (open or accept TCP
    /// connections, send UDP). Off unless set to `true`.
    #[serde(default)]
    #[schemars(example = true)]
    pub network: bool,
    /// Where commands may read files.
    #[serde(default)]
    #[schemars(example = &"workspace")]
    pub read: SandboxReadSpec,
    /// Whether a kernel that cannot enforce the sandbox refuses every
    /// command (`true`), or runs commands with what it can enforce and
    /// says in each result what it could not (`false`).
    #[serde(default = "required_by_default")]
    #[schemars(example = false)]
    pub required: bool,
}

impl Default for SandboxSpec {
    fn default() -> Self {
        Self {
            mode: SandboxModeSpec::default(),
            writable: Vec::new(),
            network: false,
            read: SandboxReadSpec::default(),
            required: true,
        }
    }
}

/// `shell.sandbox.required` when left out.
fn required_by_default() -> bool {
    true
}

/// `shell.sandbox.mode`: how much of the file system commands may change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxModeSpec {
    /// Commands change no file but their private temporary folder, the
    /// `writable` folders and devices such as `/dev/null`.
    ReadOnly,
    /// Commands also change files inside the environment root, and nowhere
    /// else.
    #[default]
    WorkspaceWrite,
    /// No kernel sandbox: commands write anywhere the user running the
    /// agent can and use the network (`check` warns, `sandbox-off`).
    Off,
}

/// `shell.sandbox.read`: where commands may read files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxReadSpec {
    /// Everywhere the user running the agent can (programs need their
    /// libraries, configuration and caches).
    #[default]
    All,
    /// Only the environment root, the private temporary folder and the
    /// system folders programs need (`/usr`, `/bin`, `/lib*`, `/etc`,
    /// `/proc`); never `/home`, `/root` or the rest of `/tmp`.
    Workspace,
}
