//! Loading one checked manifest the way a host would, to explain the agent it makes. Nothing
//! runs and nothing is written: a local environment's folder is only opened and skills are
//! only scanned.

use std::path::Path;

use super::facts::Explanation;
use super::gather::{explain, Context};
use super::source::ToolSource;
use crate::load::{load, read, LoadOptions};
use crate::report::FileReport;

/// The explanation of one checked file, or a message saying why its agent cannot be assembled.
pub(super) fn assemble(
    report: &FileReport,
    source: &ToolSource,
    warnings: serde_json::Value,
) -> Result<Explanation, String> {
    let manifest = read(&report.source).map_err(|found| {
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
    let context = Context {
        file: &report.path,
        verified: source.verified(),
        warnings,
    };
    // Its own thread and runtime, so a caller already inside an async runtime can explain too.
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|error| format!("cannot start the loader's runtime: {error}"))?;
                let loaded = runtime
                    .block_on(load(&manifest, &options))
                    .map_err(|error| error.to_string())?;
                Ok(explain(&manifest, &loaded, context))
            })
            .join()
            .unwrap_or_else(|_| Err("loading the manifest failed unexpectedly".to_string()))
    })
}
