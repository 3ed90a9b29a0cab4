//! Loading one checked manifest the way a host would, to explain the agent it makes or list
//! its tools. Nothing runs and nothing is written: a local environment's folder is only opened
//! and skills are only scanned. The manifest is the one the check produced: the file is not
//! read again.

use super::facts::{Explanation, SubAgentFacts};
use super::gather::{explain, Context};
use super::source::ToolSource;
use crate::check::CheckArgs;
use crate::report::FileReport;
use starweaver_config::load::{load, LoadOptions, LoadedAgent};
use starweaver_config::manifest::Manifest;
use starweaver_core::tools::DynToolset;
use starweaver_core::toolsets::StaticToolset;
use std::sync::Arc;

/// Loads a manifest the check accepted, with the code tools `args` gives (stand-ins from
/// `--catalog`, the binary's own tools, or unverified stand-ins), so a host can show what the
/// agent has without a second assembly of its own. Used by `--explain` and `starweaver tools`.
///
/// # Errors
/// A message naming the problem: a catalog that cannot be read, a report without a checked
/// manifest (the file has errors), or an agent the loader refuses.
pub fn load_checked(
    report: &FileReport,
    args: &CheckArgs,
) -> Result<(Manifest, LoadedAgent), String> {
    let source = ToolSource::of(args).map_err(|error| error.to_string())?;
    load_with(report, &source, Servers::Start)
}

/// What the loader builds for `type: mcp` toolsets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Servers {
    /// The MCP client's toolsets (`starweaver tools` lists what the servers offer).
    Start,
    /// Empty stand-ins by name: explaining starts no server and reads no host variable.
    StandIn,
}

/// The explanation of one checked file, or a message saying why its agent cannot be assembled.
pub(super) fn assemble(
    report: &FileReport,
    source: &ToolSource,
    warnings: serde_json::Value,
) -> Result<Explanation, String> {
    let (manifest, loaded) = load_with(report, source, Servers::StandIn)?;
    let base_dir = report
        .checked
        .as_ref()
        .map_or(std::path::Path::new("."), |checked| checked.base_dir());
    let context = Context {
        file: &report.path,
        verified: source.verified(),
        warnings,
        base_dir,
        output_schema: report
            .checked
            .as_ref()
            .and_then(|checked| checked.output_schema()),
    };
    Ok(explain_tree(&manifest, &loaded, context))
}

/// [`explain`], with each sub-agent explained below it from its own manifest and loaded agent.
fn explain_tree(manifest: &Manifest, loaded: &LoadedAgent, context: Context<'_>) -> Explanation {
    let verified = context.verified;
    let mut explanation = explain(manifest, loaded, context);
    for sub in &loaded.sub_agents {
        let file = sub.checked.file().map_or_else(
            || sub.checked.manifest().name.clone(),
            |file| file.display().to_string(),
        );
        let context = Context {
            file: &file,
            verified,
            warnings: serde_json::Value::Array(Vec::new()),
            base_dir: sub.checked.base_dir(),
            output_schema: sub.checked.output_schema(),
        };
        // The name the model sees, after the toolset's prefix, as the loader recorded it.
        let tool = loaded
            .toolsets
            .iter()
            .filter(|summary| summary.name == sub.toolset)
            .flat_map(|summary| &summary.tools)
            .find(|tool| tool.base == sub.tool)
            .map_or_else(|| sub.tool.clone(), |tool| tool.name.clone());
        explanation.sub_agents.push(SubAgentFacts {
            toolset: sub.toolset.clone(),
            tool,
            agent: explain_tree(sub.checked.manifest(), &sub.loaded, context),
        });
    }
    explanation
}

/// Loads the checked manifest of `report` in the folder it was checked in.
fn load_with(
    report: &FileReport,
    source: &ToolSource,
    servers: Servers,
) -> Result<(Manifest, LoadedAgent), String> {
    let Some(checked) = &report.checked else {
        return Err("the manifest does not check".to_string());
    };
    let mut options = source.apply(LoadOptions::new());
    if servers == Servers::StandIn {
        options = options.with_mcp(|spec, _| {
            let toolset: DynToolset = Arc::new(StaticToolset::new(spec.name.clone()));
            Ok(toolset)
        });
    }
    // Its own thread and runtime, so a caller already inside an async runtime can load too.
    let loaded = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|error| format!("cannot start the loader's runtime: {error}"))?;
                runtime
                    .block_on(load(checked, &options))
                    .map_err(|error| error.to_string())
            })
            .join()
            .unwrap_or_else(|_| Err("loading the manifest failed unexpectedly".to_string()))
    })?;
    Ok((checked.manifest().clone(), loaded))
}
