//! `starweaver tools MANIFEST`: the tools the model would see on its first request, as a
//! table or (`--json`) as the exact definitions the request carries; `--all` adds the tools
//! reachable later, through a proxy or a tool search.
//!
//! The agent is assembled by the same loader that runs it, with code tools standing in from
//! `--catalog` as `starweaver check --explain` does, so the list cannot drift from what runs.
//! MCP servers are started the way a run starts them (each within its startup bound), listed
//! with each tool's name on its server and the hints it gives, and stopped before the command
//! ends; a server that fails to start is reported with its exit status and the end of its
//! stderr, and the rest still list.

mod args;
mod json;
mod listing;
mod servers;
mod table;

pub use args::ToolsArgs;

use std::path::Path;

use crate::check::{load_checked, run_check, CheckArgs, CheckStatus};
use crate::mask::{mcp_host_values, Redactor};
use crate::report::{self, Format};
use starweaver_config::load::LoadedAgent;
use starweaver_core::model::{ModelRequestParameters, RequestNotice, RequestNoticeKind};

/// What `starweaver tools` prints and the status it exits with, kept apart from the process's
/// streams so it can be tested.
#[derive(Debug)]
pub struct ToolsOutcome {
    /// The table or the JSON.
    pub stdout: String,
    /// Diagnostics, warnings and errors.
    pub stderr: String,
    /// 0 listed, 1 the agent cannot be assembled or an MCP server failed to start (the rest are
    /// listed), 2 bad usage or a manifest that does not check.
    pub code: u8,
}

/// Checks the manifest, assembles its agent and lists its tools.
#[must_use]
pub fn run_tools(args: &ToolsArgs) -> ToolsOutcome {
    if let Some(refusal) = refuse_folder(&args.manifest) {
        return failure(refusal, 2);
    }
    let check_args = CheckArgs {
        paths: vec![args.manifest.clone()],
        catalog: args.catalog.clone(),
        format: Format::Human,
        limit: args.limit,
        ..CheckArgs::default()
    };
    let checked = run_check(&check_args);
    let shown = args.manifest.display();
    match checked.status {
        CheckStatus::Clean => {}
        CheckStatus::Failed => {
            let text = format!(
                "{}{}error: `{shown}` does not check; fix the problems above (`starweaver check {shown}` shows them again)\n",
                checked.stderr, checked.stdout
            );
            return failure(text, 2);
        }
        CheckStatus::Usage => return failure(checked.stderr, 2),
    }
    let Some(file) = checked.reports.first() else {
        return failure(format!("error: `{shown}` is not a manifest file\n"), 2);
    };
    // Warnings do not stop the listing, but they are worth seeing.
    let mut stderr = String::new();
    if !file.diagnostics.is_empty() {
        stderr.push_str(&report::human::render(std::slice::from_ref(file)));
    }
    let (manifest, loaded) = match load_checked(file, &check_args) {
        Ok(loaded) => loaded,
        Err(message) => {
            stderr.push_str(&format!(
                "error: `{shown}` checks clean but its agent cannot be assembled: {message}\n"
            ));
            return failure(stderr, 1);
        }
    };
    // A server may echo what it was given from the host (in its stderr, its tool descriptions):
    // those values are masked in everything printed from here on, as a run masks them.
    let redactor = Redactor::default();
    redactor.add(mcp_host_values(&manifest, |name| std::env::var(name).ok()));
    // A sub-agent's servers are given host values too, down the tree.
    let mut pending: Vec<_> = loaded.sub_agents.iter().collect();
    while let Some(sub) = pending.pop() {
        redactor.add(mcp_host_values(sub.checked.manifest(), |name| {
            std::env::var(name).ok()
        }));
        pending.extend(&sub.loaded.sub_agents);
    }
    for warning in redactor.take_warnings() {
        stderr.push_str(&warning);
        stderr.push('\n');
    }
    let catalog = args.catalog.is_some();
    let entered = servers::entered(&loaded, |registry, context| {
        listing::list(&loaded, registry, context, catalog)
    });
    let (listing, failed) = match entered {
        Ok(entered) => entered,
        Err(message) => {
            stderr.push_str(&format!("error: {message}\n"));
            return failure(redactor.text(&stderr), 1);
        }
    };
    for failure in &failed {
        stderr.push_str(&format!(
            "error: toolset `{}` did not start, so its tools are not listed: {}\n",
            failure.toolset,
            crate::terminal::text::clean(&failure.error)
        ));
    }
    let mcp_toolsets: Vec<String> = loaded
        .toolsets
        .iter()
        .filter(|summary| summary.kind == "mcp")
        .map(|summary| summary.name.clone())
        .collect();
    let adjusted = adjusted(&loaded, &listing, args.all);
    let stdout = if args.json {
        json::render(
            &file.path,
            &listing,
            args.all,
            &adjusted,
            (&mcp_toolsets, &failed),
        )
    } else {
        let mut text = table::render(&listing, args.all);
        if !adjusted.is_empty() {
            text.push_str(&format!(
                "\n{} adapts {} of these for its provider:\n",
                loaded.agent.model().name(),
                adjusted.len()
            ));
            for notice in &adjusted {
                text.push_str(&crate::terminal::events::notice_line(notice, &redactor));
                text.push('\n');
            }
        }
        text
    };
    ToolsOutcome {
        stdout: redactor.text(&stdout),
        stderr: redactor.text(&stderr),
        code: u8::from(!failed.is_empty()),
    }
}

/// What the agent's model adapts or leaves out of the listed tools (for a provider model: the
/// schema rewrites its protocol needs), so the listing shows what the model really gets.
fn adjusted(loaded: &LoadedAgent, listing: &[listing::Listed], all: bool) -> Vec<RequestNotice> {
    let parameters = ModelRequestParameters {
        tools: listing
            .iter()
            .filter(|row| all || row.first)
            .map(|row| std::sync::Arc::new(row.definition.clone()))
            .collect(),
        ..ModelRequestParameters::default()
    };
    loaded
        .agent
        .model()
        .request_notices(&parameters)
        .into_iter()
        .filter(|notice| notice.kind != RequestNoticeKind::SettingLeftOut)
        .collect()
}

/// A folder is refused: the command lists one agent's tools.
fn refuse_folder(path: &Path) -> Option<String> {
    path.is_dir().then(|| {
        format!(
            "error: `{}` is a folder; `starweaver tools` lists the tools of one manifest\n  help: name a file, e.g. `starweaver tools {}/NAME.yaml` (`starweaver check {}` checks them all)\n",
            path.display(),
            path.display().to_string().trim_end_matches('/'),
            path.display()
        )
    })
}

fn failure(stderr: String, code: u8) -> ToolsOutcome {
    ToolsOutcome {
        stdout: String::new(),
        stderr,
        code,
    }
}
