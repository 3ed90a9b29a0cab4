//! The facts an explanation shows, as one serializable value: `--format json` prints it as is
//! and the human renderer lays the same value out on one screen, so both always agree.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// The format version of the `--explain --format json` object; it changes only when a field
/// changes meaning or goes away.
pub const EXPLAIN_FORMAT_VERSION: u32 = 1;

/// Every explained manifest: `{"version": 1, "agents": [...]}`.
#[derive(Clone, Debug, Serialize)]
pub struct Explanations {
    /// [`EXPLAIN_FORMAT_VERSION`].
    pub version: u32,
    /// One entry per manifest, in the order they were checked.
    pub agents: Vec<Explanation>,
}

/// What one agent can do.
#[derive(Clone, Debug, Serialize)]
pub struct Explanation {
    /// The manifest file as given or found.
    pub file: String,
    /// The agent's `name`.
    pub name: String,
    /// The agent's `description`, if any.
    pub description: Option<String>,
    /// The model section.
    pub model: ModelFacts,
    /// Every tool, seen at the start or reachable later, in manifest order.
    pub tools: Vec<ExplainedTool>,
    /// What the shell may run.
    pub shell: ShellFacts,
    /// Where files are read and written.
    pub files: FileFacts,
    /// The skills that load, when `skills:` is set.
    pub skills: Option<SkillFacts>,
    /// The MCP servers (`type: mcp` toolsets), in manifest order: what each runs or connects
    /// to, and whether it is sandboxed.
    pub servers: Vec<ServerFacts>,
    /// The run's limits.
    pub runtime: RuntimeFacts,
    /// The answer's contract, when `output:` is set (`null`: the answer is text).
    pub output: Option<OutputFacts>,
    /// The check's warnings for the file, as `--format json` reports diagnostics (a
    /// sub-agent's are in its own file's report: empty here).
    pub warnings: Value,
    /// The sub-agents of its `agents` toolsets, in manifest order, each explained as an agent
    /// of its own.
    pub sub_agents: Vec<SubAgentFacts>,
}

/// One sub-agent: the tool that runs it, and what it can do.
#[derive(Clone, Debug, Serialize)]
pub struct SubAgentFacts {
    /// The `agents` toolset it belongs to.
    pub toolset: String,
    /// The name the model calls it by (after the toolset's `prefix`).
    pub tool: String,
    /// The sub-agent, explained from its own manifest: its model, its own tools, and its own
    /// sub-agents.
    pub agent: Explanation,
}

/// `model:` as declared (the key's variable name, never the key).
#[derive(Clone, Debug, Serialize)]
pub struct ModelFacts {
    /// `model.id`.
    pub id: String,
    /// `model.script`: the file of turns the `script` model plays.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// `model.base_url`.
    pub base_url: Option<String>,
    /// `model.api_key_env`: the variable's name.
    pub api_key_env: Option<String>,
    /// `model.settings`.
    pub settings: BTreeMap<String, Value>,
}

/// One tool as the explanation shows it: where it comes from, how the model reaches it and
/// what gates it. `approval` and `deferred` are the runtime's facts about the tool
/// (`ToolFacts`), as the loader recorded them in its toolset summary; the rest is the
/// explanation's own.
#[derive(Clone, Debug, Serialize)]
pub struct ExplainedTool {
    /// The name the model calls it by.
    pub name: String,
    /// The toolset it comes from (`null` for a tool the loader added outside `toolsets:`).
    pub toolset: Option<String>,
    /// That toolset's manifest `type`, or `output` for the output tool `output:` adds.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Whether the first model request offers it.
    pub seen: bool,
    /// `direct`, `proxy` or `search`: how the model gets to it.
    pub reach: &'static str,
    /// The proxy or search it is reached through.
    pub via: Option<String>,
    /// Whether a call waits for approval.
    pub approval: bool,
    /// Whether calls are handed to an external worker.
    pub deferred: bool,
    /// `false` for a code tool no catalog confirmed (checked without `--catalog`).
    pub verified: bool,
}

/// The shell's policy and limits.
#[derive(Clone, Debug, Serialize)]
pub struct ShellFacts {
    /// The shell toolset's name, when the agent has one.
    pub toolset: Option<String>,
    /// Whether commands may run at all.
    pub execution: bool,
    /// Execution on with no allowlist: any program and shell scripts.
    pub any_program: bool,
    /// The allowlist (exact program names), empty when off or unrestricted.
    pub programs: Vec<String>,
    /// Time limit of a command that names none.
    pub timeout_ms: u64,
    /// Bytes kept per output stream.
    pub max_output_bytes: u64,
    /// Processes running at once.
    pub max_concurrent_processes: usize,
    /// The kernel sandbox of a local environment's commands (`null` in a virtual environment
    /// or without one).
    pub sandbox: Option<SandboxFacts>,
    /// What the commands it runs can read, write and connect to.
    pub reach: ShellReach,
}

/// `shell.sandbox` as the local environment applies it, and what this machine's kernel
/// enforces of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SandboxFacts {
    /// `read-only`, `workspace-write` or `off`.
    pub mode: SandboxMode,
    /// The extra folders commands may write, as absolute paths under the root.
    pub writable: Vec<String>,
    /// Whether commands may use the network.
    pub network: bool,
    /// Where commands may read: `all` or `workspace`.
    pub read: &'static str,
    /// Whether a kernel that cannot enforce the sandbox refuses every command.
    pub required: bool,
    /// Whether the kernel `check` runs on enforces all of it (always with `mode: off`).
    pub enforced: bool,
    /// What that kernel lacks, in words (empty when it enforces everything).
    pub not_enforced: Vec<String>,
}

/// What shell commands can reach: the files they can read and write, and the network. In a
/// local environment commands run under the kernel sandbox of `shell.sandbox` (by default they
/// write only inside the root and use no network); with `mode: off`, or on a kernel that
/// cannot enforce the sandbox while `required: false`, they reach whatever the user who runs
/// the agent can. In a virtual environment they are simulated on its in-memory files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShellReach {
    /// What confines the commands.
    pub sandbox: SandboxMode,
    /// Where commands can read files.
    pub read: PathReach,
    /// Where commands can create, change or delete files.
    pub write: PathReach,
    /// Whether commands can open network connections.
    pub network: bool,
    /// Whether commands also read and write a private temporary folder of their own
    /// (`TMPDIR`), made for the environment and removed with it.
    pub temporary_folder: bool,
    /// Whether commands also read the system folders programs need (`/usr`, `/bin`, `/lib*`,
    /// `/etc`, `/proc`) beside the folders of `read`.
    pub system_folders: bool,
}

impl ShellReach {
    /// No command can run: nothing is reached.
    #[must_use]
    pub fn nothing() -> Self {
        Self {
            sandbox: SandboxMode::Off,
            read: PathReach::Nowhere,
            write: PathReach::Nowhere,
            network: false,
            temporary_folder: false,
            system_folders: false,
        }
    }

    /// Commands run with the user's rights and no sandbox: they read and write whatever the
    /// user can, and use the network.
    #[must_use]
    pub fn unconfined() -> Self {
        Self {
            sandbox: SandboxMode::Off,
            read: PathReach::Anywhere,
            write: PathReach::Anywhere,
            network: true,
            temporary_folder: false,
            system_folders: false,
        }
    }

    /// Commands simulated on a virtual environment's in-memory files: nothing on the host.
    #[must_use]
    pub fn simulated() -> Self {
        Self {
            sandbox: SandboxMode::Virtual,
            read: PathReach::InMemory,
            write: PathReach::InMemory,
            network: false,
            temporary_folder: false,
            system_folders: false,
        }
    }

    /// Whether commands can change files anywhere (their private temporary folder aside).
    #[must_use]
    pub fn can_write(&self) -> bool {
        self.write != PathReach::Nowhere
    }
}

/// What confines shell commands: `"read-only"`, `"workspace-write"`, `"off"` or `"virtual"` in
/// JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SandboxMode {
    /// The kernel sandbox lets commands change only their private temporary folder and the
    /// `writable` folders.
    ReadOnly,
    /// The kernel sandbox lets commands change files inside the root too, and nowhere else.
    WorkspaceWrite,
    /// No sandbox: commands are real processes with the user's rights.
    Off,
    /// No process at all: a virtual environment simulates its few builtin commands.
    Virtual,
}

/// Where commands reach on the file system: `{"scope": "anywhere"}` (whatever the user's rights
/// allow), `{"scope": "folders", "folders": ["/abs", ...]}`, `{"scope": "in_memory"}` (a
/// virtual environment's files) or `{"scope": "nowhere"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "scope", content = "folders", rename_all = "snake_case")]
pub enum PathReach {
    /// Anywhere the user's rights allow.
    Anywhere,
    /// Only inside these folders (absolute).
    Folders(Vec<String>),
    /// Only a virtual environment's in-memory files.
    InMemory,
    /// Nowhere.
    Nowhere,
}

/// The environment and whether the agent can change it.
#[derive(Clone, Debug, Serialize)]
pub struct FileFacts {
    /// `local`, `virtual`, or `null` without an environment.
    pub environment: Option<&'static str>,
    /// A local environment's folder, absolute and canonical.
    pub root: Option<String>,
    /// Whether a file-writing tool is reachable.
    pub writable: bool,
    /// The reachable tools that write files, by the names the model calls them.
    pub write_tools: Vec<String>,
    /// Whether shell commands can change files (see [`ShellFacts::reach`] for where).
    pub shell_can_write: bool,
}

/// The skill scan.
#[derive(Clone, Debug, Serialize)]
pub struct SkillFacts {
    /// The scope folders, lowest precedence first.
    pub scopes: Vec<String>,
    /// The skills that load.
    pub loaded: Vec<SkillFact>,
    /// What the scan reported (skipped or overridden skill files).
    pub diagnostics: Vec<SkillProblem>,
}

/// One skill that loads.
#[derive(Clone, Debug, Serialize)]
pub struct SkillFact {
    /// Its name.
    pub name: String,
    /// Its `SKILL.md`, relative to the environment root.
    pub path: String,
    /// `builtin`, `user` or `workspace`.
    pub source: &'static str,
}

/// One skill-scan finding.
#[derive(Clone, Debug, Serialize)]
pub struct SkillProblem {
    /// `info`, `warning` or `error`.
    pub severity: &'static str,
    /// The file or folder concerned.
    pub path: String,
    /// What and how to fix it.
    pub message: String,
}

/// The run policy.
#[derive(Clone, Debug, Serialize)]
pub struct RuntimeFacts {
    /// `parallel` or `sequential`.
    pub tool_execution: &'static str,
    /// `skip` or `fail_run`.
    pub unavailable_tools: &'static str,
    /// Most model requests in one run.
    pub max_steps: u32,
    /// Token budget of one run (`null`: none).
    pub max_tokens: Option<u64>,
    /// Default tool time limit (`null`: the tools' own).
    pub timeout_ms: Option<u64>,
    /// Default tool retry budget (`null`: the tools' own).
    pub max_retries: Option<u32>,
}

/// `output:`: the shape the answer must have and how the model gives it.
#[derive(Clone, Debug, Serialize)]
pub struct OutputFacts {
    /// The tool the model calls to answer (`final_answer`), offered on every request.
    pub tool: String,
    /// Where the schema is written: `inline` (`output.schema`) or `file`
    /// (`output.schema_file`).
    pub source: &'static str,
    /// `output.schema_file` as written, relative to the manifest's folder.
    pub schema_file: Option<String>,
    /// The schema answers are validated against, as the check read it.
    pub schema: Value,
    /// The top-level properties of an object answer, in schema order (empty for any other
    /// answer).
    pub properties: Vec<String>,
    /// Those of them the schema requires.
    pub required: Vec<String>,
    /// Invalid answers sent back to the model before the run fails.
    pub retries: u32,
}

/// One MCP server of the agent.
#[derive(Clone, Debug, Serialize)]
pub struct ServerFacts {
    /// The toolset's name.
    pub name: String,
    /// `stdio` (a local program) or `http` (a streamable HTTP endpoint).
    pub transport: &'static str,
    /// The program a local server runs, as written (looked up on `PATH` when it is a name).
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// The folder it runs in, absolute.
    pub cwd: Option<String>,
    /// The endpoint an HTTP server is reached at.
    pub url: Option<String>,
    /// Variables set with literal values, by name (values are not shown).
    pub env: Vec<String>,
    /// Host variables passed to it by name.
    pub env_from: Vec<String>,
    /// HTTP headers sent from host variables, by header name.
    pub headers: Vec<String>,
    /// The server tools it is limited to (`null`: every tool the server lists), with the name
    /// the model sees each by.
    pub tools: Option<Vec<ServerTool>>,
    /// Which tools wait for approval: `none`, `all`, `destructive` or `listed`.
    pub approval: &'static str,
    /// With `listed`, the server's names of those tools.
    pub approval_tools: Vec<String>,
    /// Whether a local server runs under a kernel sandbox (`false` for an HTTP server, which
    /// runs nowhere here).
    pub sandboxed: bool,
    /// The sandbox, when it is set.
    pub sandbox: Option<SandboxFacts>,
    /// `direct`, `proxy` or `search`: how the model gets to its tools.
    pub reach: &'static str,
    /// The proxy or search it is reached through.
    pub via: Option<String>,
}

/// A server tool named in `tools:`.
#[derive(Clone, Debug, Serialize)]
pub struct ServerTool {
    /// The server's own name.
    pub name: String,
    /// The name the model calls it by (prefixed and mapped to the provider rule).
    pub seen_as: String,
}
