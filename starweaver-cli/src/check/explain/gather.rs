//! From what the loader built to the facts shown: every tool from the toolset summaries the
//! loader recorded, the first request's tools from the loader's own list, the shell policy from
//! the loader's policy function, the folder as the provider opened it.

use std::path::Path;

use serde_json::Value;
use starweaver_core::agent::OUTPUT_TOOL_NAME;
use starweaver_core::bundles::{EDIT_FILE_TOOL_NAME, SHELL_EXEC_TOOL_NAME, WRITE_FILE_TOOL_NAME};
use starweaver_core::environment::{
    ProcessLimits, SandboxKernel, SandboxMode as PolicyMode, SandboxPolicy, SandboxReads,
    LANDLOCK_ABI_FOR_NETWORK, LANDLOCK_ABI_FOR_WRITES,
};

use super::facts::{
    ExplainedTool, Explanation, FileFacts, ModelFacts, PathReach, RuntimeFacts, SandboxFacts,
    ShellFacts, ShellReach, SkillFact, SkillFacts, SkillProblem,
};
use super::output::output;
use super::sandbox::{mode, sandbox_facts, writable};
use super::servers::servers;
use starweaver_config::load::{
    first_party_tool, sandbox_policy, shell_policy, LoadedAgent, Reach, ToolsetSummary,
};
use starweaver_config::manifest::{EnvironmentKind, Manifest, ToolExecution, UnavailableTools};

/// What `explain` needs besides the manifest and the loaded agent.
pub(super) struct Context<'a> {
    /// The file as shown.
    pub file: &'a str,
    /// Whether code tools were confirmed by a catalog.
    pub verified: bool,
    /// The check's warnings for the file (JSON diagnostics).
    pub warnings: Value,
    /// The folder the manifest was checked in (its paths are relative to it).
    pub base_dir: &'a Path,
    /// The answer's schema the check read (`output.schema` or the file `output.schema_file`
    /// names), the one the loader gives the agent.
    pub output_schema: Option<&'a Value>,
}

/// The facts of one loaded manifest.
pub(super) fn explain(
    manifest: &Manifest,
    loaded: &LoadedAgent,
    context: Context<'_>,
) -> Explanation {
    Explanation {
        file: context.file.to_string(),
        name: manifest.name.clone(),
        description: manifest.description.clone(),
        model: ModelFacts {
            id: manifest.model.id.clone(),
            script: manifest.model.script.clone(),
            base_url: manifest.model.base_url.clone(),
            api_key_env: manifest.model.api_key_env.clone(),
            settings: manifest.model.settings.clone(),
        },
        tools: tools(manifest, loaded, context.verified),
        shell: shell(manifest, loaded),
        files: files(manifest, loaded),
        skills: skills(manifest, loaded),
        servers: servers(manifest, loaded, context.base_dir),
        runtime: runtime(manifest, loaded),
        output: output(manifest, context.output_schema),
        warnings: context.warnings,
        sub_agents: Vec::new(),
    }
}

fn tools(manifest: &Manifest, loaded: &LoadedAgent, verified: bool) -> Vec<ExplainedTool> {
    let mut tools = Vec::new();
    for summary in &loaded.toolsets {
        let (reach, via) = match &summary.reach {
            Reach::Direct => ("direct", None),
            Reach::Proxy(name) => ("proxy", Some(name.clone())),
            Reach::Search(name) => ("search", Some(name.clone())),
        };
        let code = matches!(summary.kind, "tools" | "deferred");
        for tool in &summary.tools {
            tools.push(ExplainedTool {
                name: tool.name.clone(),
                toolset: Some(summary.name.clone()),
                kind: Some(summary.kind.to_string()),
                // A proxy's tools are called through `call_tool`, never offered by name.
                seen: reach != "proxy" && loaded.tool_names.contains(&tool.name),
                reach,
                via: via.clone(),
                approval: tool.approval,
                deferred: tool.deferred,
                // A deferred set's first-party tools are known without a catalog.
                verified: verified
                    || !code
                    || (summary.kind == "deferred" && first_party_tool(&tool.base).is_some()),
            });
        }
    }
    // A tool offered by name that no toolset lists: the output tool, or one the loader adds.
    let offered = |name: &str, kind: Option<&str>| ExplainedTool {
        name: name.to_string(),
        toolset: None,
        kind: kind.map(str::to_string),
        seen: true,
        reach: "direct",
        via: None,
        approval: false,
        deferred: false,
        verified: true,
    };
    let answers = manifest.output.is_some();
    for name in &loaded.tool_names {
        // The output tool has its own row, below.
        let output = answers && name == OUTPUT_TOOL_NAME;
        if !output && !tools.iter().any(|tool| tool.seen && tool.name == *name) {
            tools.push(offered(name, None));
        }
    }
    // The output tool is offered on every request beside the others.
    if answers {
        tools.push(offered(OUTPUT_TOOL_NAME, Some("output")));
    }
    tools
}

/// Tools of bundle `kind` whose own name is one of `bases`, by their final names.
fn bundle_tools(summaries: &[ToolsetSummary], kind: &str, bases: &[&str]) -> Vec<String> {
    summaries
        .iter()
        .filter(|summary| summary.kind == kind)
        .flat_map(|summary| &summary.tools)
        .filter(|tool| bases.contains(&tool.base.as_str()))
        .map(|tool| tool.name.clone())
        .collect()
}

/// What the commands reach: nothing unless a `shell_exec` is reachable and execution is on;
/// then, in a local environment, what its sandbox lets them reach on this machine's kernel,
/// and in a virtual one its in-memory files.
fn reach(manifest: &Manifest, loaded: &LoadedAgent) -> ShellReach {
    let exec = bundle_tools(&loaded.toolsets, "shell", &[SHELL_EXEC_TOOL_NAME]);
    if exec.is_empty() || !shell_policy(manifest.shell.as_ref()).allow_execute {
        return ShellReach::nothing();
    }
    match (
        manifest.environment.as_ref().map(|spec| spec.kind),
        loaded.environment_root.as_deref(),
    ) {
        (Some(EnvironmentKind::Local), Some(root)) => confined(
            &sandbox_policy(manifest.shell.as_ref()),
            root,
            &SandboxKernel::detect(),
        ),
        // A local environment always has its folder; without it, claim nothing is confined.
        (Some(EnvironmentKind::Local), None) => ShellReach::unconfined(),
        (Some(EnvironmentKind::Virtual), _) => ShellReach::simulated(),
        (None, _) => ShellReach::nothing(),
    }
}

/// What commands under `policy` reach in the folder `root` on `kernel`: what the policy
/// allows, widened to what the kernel leaves open when it cannot enforce the policy and the
/// policy lets commands run anyway (`required: false`).
fn confined(policy: &SandboxPolicy, root: &Path, kernel: &SandboxKernel) -> ShellReach {
    if !policy.is_enabled() {
        return ShellReach::unconfined();
    }
    let root_text = root.display().to_string();
    let workspace_reads = policy.reads() == SandboxReads::Workspace;
    let write = match policy.mode() {
        PolicyMode::ReadOnly => {
            let folders = writable(policy, root);
            if folders.is_empty() {
                PathReach::Nowhere
            } else {
                PathReach::Folders(folders)
            }
        }
        PolicyMode::WorkspaceWrite => PathReach::Folders(vec![root_text.clone()]),
        // A mode this explanation does not know: claim nothing is confined.
        _ => PathReach::Anywhere,
    };
    let mut reach = ShellReach {
        sandbox: mode(policy),
        read: if workspace_reads {
            PathReach::Folders(vec![root_text])
        } else {
            PathReach::Anywhere
        },
        write,
        network: policy.network(),
        temporary_folder: true,
        system_folders: workspace_reads,
    };
    if !policy.required() {
        let abi = kernel.landlock_abi();
        if abi == 0 {
            reach.read = PathReach::Anywhere;
            reach.write = PathReach::Anywhere;
            reach.system_folders = false;
        } else if abi < LANDLOCK_ABI_FOR_WRITES {
            // Truncating a file is a change the kernel leaves unchecked.
            reach.write = PathReach::Anywhere;
        }
        if abi < LANDLOCK_ABI_FOR_NETWORK || !kernel.seccomp() {
            reach.network = true;
        }
    }
    reach
}

/// The sandbox of a local environment, and what this machine's kernel enforces of it.
fn sandbox(manifest: &Manifest, loaded: &LoadedAgent) -> Option<SandboxFacts> {
    let local = manifest
        .environment
        .as_ref()
        .is_some_and(|spec| spec.kind == EnvironmentKind::Local);
    let root = loaded.environment_root.as_deref().filter(|_| local)?;
    Some(sandbox_facts(
        &sandbox_policy(manifest.shell.as_ref()),
        root,
        &SandboxKernel::detect(),
    ))
}

fn shell(manifest: &Manifest, loaded: &LoadedAgent) -> ShellFacts {
    let summaries = &loaded.toolsets;
    let policy = shell_policy(manifest.shell.as_ref());
    let defaults = ProcessLimits::default();
    let spec = manifest.shell.clone().unwrap_or_default();
    ShellFacts {
        toolset: summaries
            .iter()
            .find(|summary| summary.kind == "shell")
            .map(|summary| summary.name.clone()),
        execution: policy.allow_execute,
        any_program: policy.allow_execute && policy.allowed_programs.is_empty(),
        programs: policy.allowed_programs,
        timeout_ms: spec.timeout_ms.unwrap_or(defaults.default_timeout_ms),
        max_output_bytes: spec.max_output_bytes.unwrap_or(defaults.max_output_bytes),
        max_concurrent_processes: spec
            .max_concurrent_processes
            .unwrap_or(defaults.max_concurrent_processes),
        sandbox: sandbox(manifest, loaded),
        reach: reach(manifest, loaded),
    }
}

fn files(manifest: &Manifest, loaded: &LoadedAgent) -> FileFacts {
    let write_tools = bundle_tools(
        &loaded.toolsets,
        "filesystem",
        &[WRITE_FILE_TOOL_NAME, EDIT_FILE_TOOL_NAME],
    );
    FileFacts {
        environment: manifest.environment.as_ref().map(|spec| match spec.kind {
            EnvironmentKind::Local => "local",
            EnvironmentKind::Virtual => "virtual",
        }),
        root: loaded
            .environment_root
            .as_ref()
            .map(|root| root.display().to_string()),
        writable: !write_tools.is_empty(),
        write_tools,
        shell_can_write: reach(manifest, loaded).can_write(),
    }
}

fn skills(manifest: &Manifest, loaded: &LoadedAgent) -> Option<SkillFacts> {
    let spec = manifest.skills.as_ref()?;
    let report = loaded.skills.as_ref();
    Some(SkillFacts {
        scopes: spec.scopes.iter().map(|scope| scope.path.clone()).collect(),
        loaded: report
            .map(|report| report.registry().packages())
            .unwrap_or_default()
            .iter()
            .map(|skill| SkillFact {
                name: skill.name.clone(),
                path: skill.path.clone(),
                source: skill.source.as_str(),
            })
            .collect(),
        diagnostics: report
            .map(|report| report.diagnostics())
            .unwrap_or_default()
            .iter()
            .map(|found| SkillProblem {
                severity: if found.is_error() {
                    "error"
                } else if found.severity
                    == starweaver_core::skills::SkillDiagnosticSeverity::Warning
                {
                    "warning"
                } else {
                    "info"
                },
                path: found.path.clone(),
                message: found.message.clone(),
            })
            .collect(),
    })
}

fn runtime(manifest: &Manifest, loaded: &LoadedAgent) -> RuntimeFacts {
    let spec = manifest.runtime.clone().unwrap_or_default();
    let policy = &loaded.runtime_policy;
    RuntimeFacts {
        tool_execution: match spec.tool_execution {
            ToolExecution::Parallel => "parallel",
            ToolExecution::Sequential => "sequential",
        },
        unavailable_tools: match spec.unavailable_tools {
            UnavailableTools::Skip => "skip",
            UnavailableTools::FailRun => "fail_run",
        },
        max_steps: policy.max_steps,
        max_tokens: policy.max_tokens,
        timeout_ms: policy.timeout_ms,
        max_retries: policy.max_retries,
    }
}

#[cfg(test)]
mod tests {
    use super::super::facts::SandboxMode;
    use super::*;

    #[test]
    fn a_sandbox_the_kernel_cannot_enforce_reaches_what_it_leaves_open_only_when_not_required() {
        let root = Path::new("/work/repo");
        let none = SandboxKernel::none();
        let policy = SandboxPolicy::read_only().with_writable(["target"]);
        // Required: commands run confined or not at all, so the policy's reach holds.
        let required = confined(&policy, root, &none);
        assert_eq!(
            required.write,
            PathReach::Folders(vec!["/work/repo/target".to_string()])
        );
        assert!(!required.network);
        // Not required, on a kernel with neither Landlock nor seccomp: nothing is confined.
        let open = confined(&policy.clone().with_required(false), root, &none);
        assert_eq!(
            (open.read, open.write, open.network),
            (PathReach::Anywhere, PathReach::Anywhere, true)
        );
        assert_eq!(open.sandbox, SandboxMode::ReadOnly);
        let off = confined(&SandboxPolicy::off(), root, &none);
        assert_eq!(off, ShellReach::unconfined());
        let workspace = confined(
            &SandboxPolicy::default().with_reads(SandboxReads::Workspace),
            root,
            &none,
        );
        assert_eq!(
            (workspace.read, workspace.write, workspace.system_folders),
            (
                PathReach::Folders(vec!["/work/repo".to_string()]),
                PathReach::Folders(vec!["/work/repo".to_string()]),
                true
            )
        );
    }
}
