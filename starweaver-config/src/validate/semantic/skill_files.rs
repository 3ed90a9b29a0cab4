//! `skill-scope` for the SKILL.md files themselves: the checker runs the same lenient scan the
//! loader runs and reports each file it would skip (bad frontmatter, a missing name, an unreadable
//! file) as an error, and each warning (a name that differs from its folder, a shortened
//! description) as a warning, at the scope that found the file.

use std::path::Path;
use std::sync::Arc;

use starweaver_core::environment::LocalEnvironmentProvider;
use starweaver_core::skills::{
    SkillDiagnosticSeverity, SkillRegistry, SkillScanDiagnostic, SkillScanDiagnosticKind,
    SkillSource, SkillSourceScope,
};

use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::Span;

/// A scope that lies inside the environment, as the scan sees it.
pub(super) struct Resolved {
    /// The scope's `path:` value.
    pub span: Span,
    /// The scope relative to the environment root (`""` for the root).
    pub inside: String,
    /// `source:` as written, when it is a string.
    pub source: Option<String>,
}

/// Scans the scopes under `root` and turns the scan's findings into diagnostics; a scan that
/// cannot run at all is one error at `skills_span`.
pub(super) fn scan(root: &Path, scopes: &[Resolved], skills_span: Span) -> Vec<Diagnostic> {
    let sources: Vec<SkillSourceScope> = scopes
        .iter()
        .map(|scope| {
            let source = scope
                .source
                .as_deref()
                .and_then(|name| {
                    serde_json::from_value::<SkillSource>(serde_json::Value::String(name.into()))
                        .ok()
                })
                .unwrap_or_default();
            SkillSourceScope::new(scope.inside.clone()).with_source(source)
        })
        .collect();
    match run(root, &sources) {
        Ok(findings) => findings
            .iter()
            .filter_map(|finding| diagnostic(finding, scopes, skills_span))
            .collect(),
        Err(message) => vec![Diagnostic::error(
            Rule::SkillScope,
            skills_span,
            format!("the skills could not be scanned: {message}"),
        )
        .with_help("check that the scope folders are readable")],
    }
}

/// The scan, on its own thread and runtime: the checker is synchronous and may itself be called
/// from inside an async runtime, where blocking on another would panic.
fn run(root: &Path, scopes: &[SkillSourceScope]) -> Result<Vec<SkillScanDiagnostic>, String> {
    let root = root.to_path_buf();
    let scopes = scopes.to_vec();
    let worker = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| error.to_string())?;
        runtime.block_on(async move {
            let provider =
                LocalEnvironmentProvider::new(&root).map_err(|error| error.to_string())?;
            SkillRegistry::scan_with_report(Arc::new(provider), &scopes)
                .await
                .map(|report| report.diagnostics().to_vec())
                .map_err(|error| error.to_string())
        })
    });
    worker
        .join()
        .map_err(|_| "the scan stopped unexpectedly".to_string())?
}

/// How to fix a file the scan skips.
fn help(kind: SkillScanDiagnosticKind) -> &'static str {
    match kind {
        SkillScanDiagnosticKind::Unreadable => "make the SKILL.md a readable UTF-8 file",
        SkillScanDiagnosticKind::DuplicateConflict => {
            "give each skill of a skills folder its own `name`"
        }
        SkillScanDiagnosticKind::InvalidName => {
            "use a name of lowercase letters, digits and `-`, like the skill's folder"
        }
        _ => "start the SKILL.md with frontmatter between `---` lines holding `name` and `description`",
    }
}

/// One finding at the scope whose folder holds it (the deepest one).
fn diagnostic(
    finding: &SkillScanDiagnostic,
    scopes: &[Resolved],
    skills_span: Span,
) -> Option<Diagnostic> {
    let span = scopes
        .iter()
        .filter(|scope| {
            scope.inside.is_empty()
                || finding.path == scope.inside
                || finding.path.starts_with(&format!("{}/", scope.inside))
        })
        .max_by_key(|scope| scope.inside.len())
        .map_or(skills_span, |scope| scope.span);
    let message = if finding.message.contains(&finding.path) {
        finding.message.clone()
    } else {
        format!("`{}`: {}", finding.path, finding.message)
    };
    match finding.severity {
        SkillDiagnosticSeverity::Error => {
            Some(Diagnostic::error(Rule::SkillScope, span, message).with_help(help(finding.kind)))
        }
        SkillDiagnosticSeverity::Warning => {
            Some(Diagnostic::warning(Rule::SkillScope, span, message))
        }
        SkillDiagnosticSeverity::Info => None,
    }
}
