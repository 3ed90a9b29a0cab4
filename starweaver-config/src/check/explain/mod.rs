//! `starweaver check --explain`: what each agent can do, on one screen, for people who review
//! agents instead of reading their YAML. The model; every tool the first request offers and
//! every tool reachable later through a proxy or a search, with approvals and deferrals; what
//! the shell may run; which folder the agent works in and whether it can write there; the
//! skills that load; the run's limits.
//!
//! The facts come from the agent the loader assembles (with [`crate::load::load`]), never from
//! a second reading of the manifest, so the explanation cannot drift from what runs. Only a
//! manifest without errors is explained: otherwise the check's report is printed as usual.
//!
//! `--format json` prints [`Explanations`]: `{"version": 1, "agents": [{file, name,
//! description, model, tools, shell, files, skills, runtime, warnings}]}` (see `docs/check.md`).

mod assemble;
mod facts;
mod gather;
mod human;
mod json;
mod source;
mod stand_in;

pub use facts::{
    Explanation, Explanations, FileFacts, ModelFacts, RuntimeFacts, ShellFacts, SkillFact,
    SkillFacts, SkillProblem, ToolFacts, EXPLAIN_FORMAT_VERSION,
};

use assemble::assemble;
use source::ToolSource;

use super::command::{check_files, CheckArgs, CheckOutcome};
use super::status::CheckStatus;
use crate::diagnostics::Severity;
use crate::report::{self, FileReport, Format};

/// Checks the files, then explains each one if none has an error.
///
/// Errors in any file give the check's usual report and status. A catalog that cannot be read,
/// or a format other than `human` or `json`, is a usage error. A manifest that checks clean but
/// cannot be assembled (a folder that does not exist, a setting the runtime refuses) is reported
/// on `stderr` and fails the run.
#[must_use]
pub fn run_explain(args: &CheckArgs) -> CheckOutcome {
    if !matches!(args.format, Format::Human | Format::Json) {
        return usage("--explain prints `--format human` or `--format json`".to_string());
    }
    let checked = check_files(args);
    if checked.status != CheckStatus::Clean {
        return checked;
    }
    let source = match ToolSource::of(args) {
        Ok(source) => source,
        Err(error) => return usage(error.to_string()),
    };
    let mut stderr = checked.stderr;
    let mut agents = Vec::with_capacity(checked.reports.len());
    let mut failed = false;
    for report in &checked.reports {
        let warnings = report::json::to_value(std::slice::from_ref(report));
        match assemble(report, &source, warnings) {
            Ok(explanation) => agents.push(explanation),
            Err(message) => {
                failed = true;
                stderr.push_str(&format!(
                    "error: `{}` checks clean but its agent cannot be assembled: {message}\n",
                    report.path
                ));
            }
        }
    }
    let stdout = match args.format {
        Format::Json => json::render(agents),
        _ => {
            stderr.push_str(&warnings_of(&checked.reports));
            human::render(&agents)
        }
    };
    CheckOutcome {
        stdout,
        stderr,
        status: if failed {
            CheckStatus::Failed
        } else {
            CheckStatus::Clean
        },
        reports: checked.reports,
    }
}

/// The check's warnings in the human format, for standard error (empty when there are none).
fn warnings_of(reports: &[FileReport]) -> String {
    let warned: Vec<FileReport> = reports
        .iter()
        .filter(|report| {
            report
                .diagnostics
                .iter()
                .any(|found| found.severity == Severity::Warning)
        })
        .cloned()
        .collect();
    if warned.is_empty() {
        String::new()
    } else {
        report::human::render(&warned)
    }
}

fn usage(message: String) -> CheckOutcome {
    CheckOutcome {
        stdout: String::new(),
        stderr: format!("error: {message}\n"),
        status: CheckStatus::Usage,
        reports: Vec::new(),
    }
}
