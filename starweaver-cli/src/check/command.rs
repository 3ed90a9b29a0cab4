//! `starweaver check`: read the files, check each, render the report, pick the exit status.

use std::io::Read as _;
use std::path::PathBuf;

use starweaver_config::check::{collect_files, CatalogNames, DEFAULT_PATH};
use starweaver_config::validate::{check_tree, too_large, CheckContext, FileCheck};

use super::limit::ManifestLimitArgs;
use super::status::{status_of, CheckStatus};
use crate::report::{render, FileReport, Format};

/// The arguments of `starweaver check`.
#[derive(Clone, Debug, Default, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver check\n  starweaver check agents/triage.yaml --format json\n  starweaver check agents/ --deny-warnings --format github\n  starweaver check --explain agents/repo-helper.yaml\n  starweaver check --explain --catalog tools.json --format json agents/"
)]
pub struct CheckArgs {
    /// Manifest files, or folders searched for `*.yaml`/`*.yml` files [default: agents].
    pub paths: Vec<PathBuf>,
    /// How to print the problems found.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Fail (exit 1) on warnings too, not only on errors.
    #[arg(long)]
    pub deny_warnings: bool,
    /// A tool catalog (JSON, as exported by the application) naming the tools that exist.
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
    /// Explain what each agent can do (model, tools, approvals, shell, files, skills, limits)
    /// instead of listing problems; a manifest with errors gets the usual report.
    #[arg(long)]
    pub explain: bool,
    /// How large a manifest file may be.
    #[command(flatten)]
    pub limit: ManifestLimitArgs,
    /// Count the tools registered in this binary as the catalog when `--catalog` is not given
    /// (an application's own checker, [`crate::check_main`], sets it).
    #[arg(skip)]
    pub linked_catalog: bool,
}

/// What a check produced: the text for standard output, the messages for standard error, and
/// the status to exit with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOutcome {
    /// The rendered report.
    pub stdout: String,
    /// One line per path, file or catalog that could not be read.
    pub stderr: String,
    /// How the check ended.
    pub status: CheckStatus,
    /// Every file checked, with its problems.
    pub reports: Vec<FileReport>,
}

/// Runs a check without touching the process's streams, so it can be tested and embedded.
///
/// Unreadable paths, and folders without a manifest file, are reported on `stderr` and give
/// [`CheckStatus::Usage`], but the readable files are still checked and reported; when no file
/// could be checked at all, nothing is printed on `stdout` (no summary line that could pass for
/// a clean result). A file that is not UTF-8 is a `syntax` diagnostic,
/// not a read failure.
///
/// With `--explain`, each manifest without errors is explained instead (see
/// [`super::run_explain`]).
#[must_use]
pub fn run_check(args: &CheckArgs) -> CheckOutcome {
    if args.explain {
        return super::run_explain(args);
    }
    check_files(args)
}

/// The check itself, without explanation.
pub(super) fn check_files(args: &CheckArgs) -> CheckOutcome {
    let mut stderr = String::new();
    // Read first, so a bad catalog fails before any file is checked.
    let catalog = match args
        .catalog
        .as_deref()
        .map(CatalogNames::read_with_definitions)
        .transpose()
    {
        Ok(None) if args.linked_catalog => Some((
            CatalogNames {
                tools: starweaver_core::catalog::names(),
            },
            starweaver_core::catalog::definitions(),
        )),
        Ok(catalog) => catalog,
        Err(error) => {
            return CheckOutcome {
                stdout: String::new(),
                stderr: format!("error: {error}\n"),
                status: CheckStatus::Usage,
                reports: Vec::new(),
            };
        }
    };
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(DEFAULT_PATH)]
    } else {
        args.paths.clone()
    };
    let (files, errors) = collect_files(&paths);
    let mut unreadable = !errors.is_empty();
    for error in errors {
        stderr.push_str(&format!("error: {error}\n"));
    }
    let mut reports = Vec::with_capacity(files.len());
    // Built once: each file's context shares the catalog's names.
    let budgets = args.limit.budgets();
    let mut shared = CheckContext::new().with_budgets(budgets);
    if let Some((catalog, definitions)) = catalog {
        shared = shared
            .with_catalog(catalog.tools)
            .with_catalog_definitions(definitions);
    }
    // Sub-agent files the trees reached, to report beside the files named or found.
    let mut reached: Vec<FileCheck> = Vec::new();
    let mut canonical = Vec::with_capacity(files.len());
    for file in files {
        canonical.push(std::fs::canonicalize(&file).ok());
        let shown = file.display().to_string();
        match read_bounded(&file, args.limit.max_manifest_bytes) {
            Ok((bytes, size)) if size > args.limit.max_manifest_bytes => {
                // Only the start was read: the size comes from the file itself.
                let found = vec![too_large(&bytes, size, budgets.max_document_bytes)];
                reports.push(FileReport::new(shown, bytes, found));
            }
            Ok((bytes, _)) => {
                let context = shared.clone().with_file(&file);
                let tree = check_tree(&bytes, &context);
                reached.extend(tree.sub_agents);
                reports.push(
                    FileReport::new(shown, bytes, tree.diagnostics).with_checked(tree.checked),
                );
            }
            Err(error) => {
                unreadable = true;
                stderr.push_str(&format!("error: cannot read `{shown}`: {error}\n"));
                canonical.pop();
            }
        }
    }
    add_sub_agents(&mut reports, &mut canonical, reached);
    let status = if unreadable {
        CheckStatus::Usage
    } else {
        status_of(&reports, args.deny_warnings)
    };
    // Nothing was checked because no path could be read: a report (a summary line, an empty
    // JSON array) would read as "nothing wrong" beside the error.
    let stdout = if unreadable && reports.is_empty() {
        String::new()
    } else {
        render(args.format, &reports)
    };
    CheckOutcome {
        stdout,
        stderr,
        status,
        reports,
    }
}

/// Reports the sub-agent files the checked trees reached: a file also checked on its own gets
/// the problems only a tree shows (a level too deep below another manifest), and any other gets
/// a report of its own, once, after the files named or found. `canonical` holds each report's
/// file as the system resolves it.
fn add_sub_agents(
    reports: &mut Vec<FileReport>,
    canonical: &mut Vec<Option<PathBuf>>,
    reached: Vec<FileCheck>,
) {
    for sub_agent in reached {
        let resolved = std::fs::canonicalize(&sub_agent.file).ok();
        let known = resolved.as_ref().and_then(|path| {
            canonical
                .iter()
                .position(|known| known.as_ref() == Some(path))
        });
        let Some(index) = known else {
            canonical.push(resolved);
            reports.push(FileReport::new(
                sub_agent.file.display().to_string(),
                sub_agent.bytes,
                sub_agent.diagnostics,
            ));
            continue;
        };
        let Some(report) = reports.get_mut(index) else {
            continue;
        };
        let mut added = false;
        for diagnostic in sub_agent.diagnostics {
            if !report.diagnostics.contains(&diagnostic) {
                added |= diagnostic.severity == starweaver_config::diagnostics::Severity::Error;
                report.diagnostics.push(diagnostic);
            }
        }
        report
            .diagnostics
            .sort_by_key(|diagnostic| diagnostic.span.start.offset);
        if added {
            // An error of the tree's: the file does not load inside it.
            report.checked = None;
        }
    }
}

/// Reads at most one byte past `limit`, with the file's size from its metadata: enough for the
/// checker to report the file as too large, with its real size, without holding a huge file in
/// memory.
fn read_bounded(path: &std::path::Path, limit: u64) -> std::io::Result<(Vec<u8>, u64)> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        // Opening a FIFO waits for a writer that may never come; a device may never end.
        return Err(std::io::Error::other(
            "it is not a regular file; name a manifest file",
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    // A file that grew since its metadata was read is as large as what was read.
    let size = meta.len().max(bytes.len() as u64);
    Ok((bytes, size))
}
