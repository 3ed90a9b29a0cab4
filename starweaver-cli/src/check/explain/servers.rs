//! The MCP servers an agent has: for each `type: mcp` entry, what it runs (a program with its
//! arguments and folder, or an HTTP endpoint it connects to), whether it is sandboxed, and the
//! tools it is limited to. Explaining starts no server: the loader is given stand-ins by name,
//! so these facts come from the checked entry, and how the model reaches each server (direct,
//! through a proxy or a search) from the loader's summary.
//!
//! A local server is not sandboxed unless its entry sets `sandbox:`, on purpose (most need the
//! network and their caches); the explanation says so for each one.

use std::path::Path;

use starweaver_config::load::{sandbox_policy_of, LoadedAgent, Reach};
use starweaver_config::manifest::{
    Manifest, McpApprovalRequired, McpToolsetSpec, McpTransportSpec, ToolsetSpec,
};
use starweaver_core::environment::SandboxKernel;

use super::facts::{ServerFacts, ServerTool};
use super::sandbox::sandbox_facts;

/// Every `type: mcp` entry of `manifest`, in manifest order, whose folders are relative to the
/// manifest's folder `base_dir`.
pub(super) fn servers(
    manifest: &Manifest,
    loaded: &LoadedAgent,
    base_dir: &Path,
) -> Vec<ServerFacts> {
    let kernel = SandboxKernel::detect();
    manifest
        .toolsets
        .iter()
        .filter_map(|spec| match spec {
            ToolsetSpec::Mcp(server) => Some(one(server, loaded, base_dir, &kernel)),
            _ => None,
        })
        .collect()
}

fn one(
    spec: &McpToolsetSpec,
    loaded: &LoadedAgent,
    base_dir: &Path,
    kernel: &SandboxKernel,
) -> ServerFacts {
    let local = matches!(spec.transport(), Some(McpTransportSpec::Stdio { .. }));
    let cwd = local.then(|| {
        let folder = spec.cwd_in(base_dir);
        folder.canonicalize().unwrap_or(folder)
    });
    let sandbox = match (&spec.sandbox, &cwd) {
        (Some(sandbox), Some(cwd)) => Some(sandbox_facts(
            &sandbox_policy_of(Some(sandbox)),
            cwd,
            kernel,
        )),
        _ => None,
    };
    let (approval, approval_tools) = match &spec.approval_required {
        McpApprovalRequired::All(true) => ("all", Vec::new()),
        McpApprovalRequired::All(false) => ("none", Vec::new()),
        McpApprovalRequired::Tools(names) if names.is_empty() => ("none", Vec::new()),
        McpApprovalRequired::Tools(names) => ("listed", names.clone()),
        McpApprovalRequired::Annotated(_) => ("destructive", Vec::new()),
    };
    let reach = loaded
        .toolsets
        .iter()
        .find(|summary| summary.name == spec.name)
        .map_or(&Reach::Direct, |summary| &summary.reach);
    let (reach, via) = match reach {
        Reach::Direct => ("direct", None),
        Reach::Proxy(name) => ("proxy", Some(name.clone())),
        Reach::Search(name) => ("search", Some(name.clone())),
    };
    ServerFacts {
        name: spec.name.clone(),
        transport: if local { "stdio" } else { "http" },
        command: spec.command.clone().filter(|_| local),
        args: if local { spec.args.clone() } else { Vec::new() },
        cwd: cwd.map(|folder| folder.display().to_string()),
        url: spec.url.clone().filter(|_| !local),
        env: spec.env.keys().cloned().collect(),
        env_from: spec.env_from.clone(),
        headers: spec.headers_from_env.keys().cloned().collect(),
        tools: spec.tools.as_ref().map(|tools| {
            tools
                .iter()
                .map(|name| ServerTool {
                    name: name.clone(),
                    seen_as: spec.model_name(name),
                })
                .collect()
        }),
        approval,
        approval_tools,
        sandboxed: sandbox.is_some(),
        sandbox,
        reach,
        via,
    }
}
