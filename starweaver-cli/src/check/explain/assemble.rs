//! Loading one checked manifest the way a host would, to explain the agent it makes or list
//! its tools. Nothing runs and nothing is written: a local environment's folder is only opened
//! and skills are only scanned.

use std::path::Path;

use super::facts::Explanation;
use super::gather::{explain, Context};
use super::source::ToolSource;
use crate::check::CheckArgs;
use crate::report::FileReport;
use starweaver_config::load::{load, read_with_context, LoadOptions, LoadedAgent};
use starweaver_config::manifest::Manifest;
use starweaver_config::validate::CheckContext;
use starweaver_config::yaml::Budgets;

/// Loads a manifest the check accepted, with the code tools `args` gives (stand-ins from
/// `--catalog`, the binary's own tools, or unverified stand-ins), so a host can show what the
/// agent has without a second assembly of its own. Used by `--explain` and `starweaver tools`.
///
/// # Errors
/// A message naming the problem: a catalog that cannot be read, a manifest that does not read,
/// or an agent the loader refuses.
pub fn load_checked(
    report: &FileReport,
    args: &CheckArgs,
) -> Result<(Manifest, LoadedAgent), String> {
    let source = ToolSource::of(args).map_err(|error| error.to_string())?;
    load_with(report, &source, args.limit.budgets())
}

/// The explanation of one checked file, or a message saying why its agent cannot be assembled.
pub(super) fn assemble(
    report: &FileReport,
    source: &ToolSource,
    budgets: Budgets,
    warnings: serde_json::Value,
) -> Result<Explanation, String> {
    let (manifest, loaded) = load_with(report, source, budgets)?;
    let context = Context {
        file: &report.path,
        verified: source.verified(),
        warnings,
    };
    Ok(explain(&manifest, &loaded, context))
}

/// Reads the checked file (under the limits it was checked with) and loads it in the
/// manifest's folder.
fn load_with(
    report: &FileReport,
    source: &ToolSource,
    budgets: Budgets,
) -> Result<(Manifest, LoadedAgent), String> {
    let context = CheckContext::new().with_budgets(budgets);
    let manifest = read_with_context(&report.source, &context)
        .map(|(manifest, _)| manifest)
        .map_err(|found| {
            found.first().map_or_else(
                || "the manifest does not read".to_string(),
                ToString::to_string,
            )
        })?;
    let folder = Path::new(&report.path)
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    let options = source.apply(LoadOptions::new(folder));
    // Its own thread and runtime, so a caller already inside an async runtime can load too.
    let loaded = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|error| format!("cannot start the loader's runtime: {error}"))?;
                runtime
                    .block_on(load(&manifest, &options))
                    .map_err(|error| error.to_string())
            })
            .join()
            .unwrap_or_else(|_| Err("loading the manifest failed unexpectedly".to_string()))
    })?;
    Ok((manifest, loaded))
}
