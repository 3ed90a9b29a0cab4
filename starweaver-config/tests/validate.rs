//! The manifest checker against a corpus of broken manifests: each file in `tests/corpus/`
//! states the diagnostics it must produce in `# expect: RULE LINE:COLUMN` comments, and the
//! checker must report exactly those, no more and no fewer. `# expect-note: LINE:COLUMN TEXT`
//! says the diagnostic there has a note containing TEXT (a follow-on problem folded into it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::Path;

use starweaver_config::diagnostics::{Diagnostic, Rule, Severity};
use starweaver_config::manifest::Manifest;
use starweaver_config::validate::{check, check_bytes, structure, CheckContext};
use starweaver_config::yaml::{parse, Node, Value};

/// One expected or reported diagnostic: rule name, line, column.
type Finding = (String, usize, usize);

/// The `# expect:` lines of a corpus file.
fn expectations(text: &str) -> Vec<Finding> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("# expect:"))
        .map(|spec| {
            let (rule, place) = spec.trim().split_once(' ').expect("`RULE LINE:COLUMN`");
            assert!(Rule::from_name(rule).is_some(), "unknown rule `{rule}`");
            let (line, column) = place.trim().split_once(':').expect("`LINE:COLUMN`");
            (
                rule.to_owned(),
                line.parse().unwrap(),
                column.parse().unwrap(),
            )
        })
        .collect()
}

/// The `# expect-note:` lines of a corpus file: line, column and the text the note contains.
fn expected_notes(text: &str) -> Vec<(usize, usize, String)> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("# expect-note:"))
        .map(|spec| {
            let (place, note) = spec.trim().split_once(' ').expect("`LINE:COLUMN TEXT`");
            let (line, column) = place.split_once(':').expect("`LINE:COLUMN`");
            (
                line.parse().unwrap(),
                column.parse().unwrap(),
                note.trim().to_owned(),
            )
        })
        .collect()
}

/// The context a corpus file asks for: `# catalog: a, b` verifies code tools against those
/// names; `# catalog-file: NAME.json` against a catalog file in the corpus folder (names and
/// definitions); `# model-ids: a, b` lets the host run those models; `# base: .` looks skill
/// folders up relative to the corpus folder; `# env: A, B` are the only environment variables
/// taken as set (none without it, so no file depends on the machine).
fn context(text: &str) -> CheckContext {
    let mut context = CheckContext::new().with_environment_variables(Vec::<String>::new());
    for line in text.lines().map(str::trim) {
        if let Some(file) = line.strip_prefix("# catalog-file:") {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/corpus")
                .join(file.trim());
            let json = std::fs::read_to_string(path).unwrap();
            context = context.with_catalog_json(&json).unwrap();
        }
        if let Some(ids) = line.strip_prefix("# model-ids:") {
            context = context.with_model_ids(ids.split(',').map(str::trim));
        }
        if let Some(names) = line.strip_prefix("# catalog:") {
            context = context.with_catalog(
                names
                    .split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty()),
            );
        }
        if let Some(names) = line.strip_prefix("# env:") {
            context = context.with_environment_variables(
                names
                    .split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty()),
            );
        }
        if let Some(base) = line.strip_prefix("# base:") {
            let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
            context = context.with_base_dir(folder.join(base.trim()));
        }
    }
    context
}

/// Whether this build has every provider a corpus file's `# needs: openai, anthropic` names
/// (a build without a provider reports its models as unknown instead).
fn has_needed_providers(path: &Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("# needs:"))
        .flat_map(|names| names.split(','))
        .map(str::trim)
        .all(|name| {
            starweaver_core::model::ProviderKind::ALL
                .iter()
                .any(|kind| kind.prefix() == name && starweaver_config::providers::is_built(*kind))
        })
}

/// The corpus files this build can check, sorted.
fn corpus() -> Vec<std::path::PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .filter(|path| has_needed_providers(path))
        .collect();
    files.sort();
    files
}

fn finding(diagnostic: &Diagnostic) -> Finding {
    let start = diagnostic.span.start;
    (
        diagnostic.rule.as_str().to_owned(),
        start.line,
        start.column,
    )
}

#[test]
fn every_corpus_file_reports_exactly_its_expected_diagnostics() {
    let files = corpus();
    assert!(files.len() >= 20, "the corpus has {} files", files.len());
    let mut failures = String::new();
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let mut expected = expectations(&String::from_utf8_lossy(&bytes));
        let name = file.file_name().unwrap().to_string_lossy();
        assert!(
            !expected.is_empty() || name.starts_with("valid-"),
            "{name} states no `# expect:` lines"
        );
        let diagnostics = check(&bytes, &context(&String::from_utf8_lossy(&bytes)));
        let positions: Vec<_> = diagnostics.iter().map(|d| d.span.start).collect();
        assert!(positions.is_sorted(), "{name}: diagnostics out of order");
        for diagnostic in &diagnostics {
            assert!(!diagnostic.message.is_empty(), "{name}: empty message");
        }
        for (line, column, note) in expected_notes(&String::from_utf8_lossy(&bytes)) {
            let noted = diagnostics.iter().any(|d| {
                (d.span.start.line, d.span.start.column) == (line, column)
                    && d.notes.iter().any(|found| found.contains(&note))
            });
            if !noted {
                let _ = writeln!(
                    failures,
                    "{name}: no note at {line}:{column} containing {note:?}"
                );
            }
        }
        let mut found: Vec<Finding> = diagnostics.iter().map(finding).collect();
        expected.sort();
        found.sort();
        if expected != found {
            let _ = writeln!(
                failures,
                "{name}:\n  expected {expected:?}\n  found    {found:?}"
            );
            for diagnostic in &diagnostics {
                let _ = writeln!(failures, "    {diagnostic}");
            }
        }
    }
    assert!(failures.is_empty(), "corpus mismatches:\n{failures}");
}

/// The tree as JSON, strictly typed: how a loader that agrees with the checker reads it (an
/// integer never becomes a string, `yes` never a boolean).
fn json(node: &Node) -> serde_json::Value {
    use serde_json::Value as Json;
    match &node.value {
        Value::Null => Json::Null,
        Value::Bool(flag) => Json::Bool(*flag),
        Value::Int(number) => Json::from(*number),
        Value::Float(number) => Json::from(*number),
        Value::String { text, .. } => Json::String(text.clone()),
        Value::Sequence(items) => Json::Array(items.iter().map(json).collect()),
        Value::Mapping(entries) => Json::Object(
            entries
                .iter()
                .map(|(key, value)| {
                    let key = key
                        .as_str()
                        .map_or_else(|| json(key).to_string(), str::to_owned);
                    (key, json(value))
                })
                .collect(),
        ),
    }
}

/// The checker and strict deserialization into the types agree on every corpus file: a file the
/// checker's structure pass accepts loads, and one it reports errors in (other than the version,
/// which the types do not restrict) does not. Semantic rules (names, model, template, policy)
/// find problems the types cannot express, so they do not count here.
#[test]
fn the_checker_agrees_with_the_types() {
    let mut disagreements = Vec::new();
    for file in corpus() {
        let text = std::fs::read_to_string(&file).unwrap();
        // The structure pass alone: semantic rules also use `missing-field` and
        // `invalid-value` for what the types cannot express.
        let found = match parse(text.as_bytes()) {
            Ok(document) => structure(&document),
            Err(_) => check_bytes(text.as_bytes()),
        };
        let errors: Vec<Rule> = found
            .iter()
            .filter(|d| {
                d.severity == Severity::Error
                    && matches!(
                        d.rule,
                        Rule::Syntax | Rule::UnknownField | Rule::MissingField | Rule::InvalidValue
                    )
            })
            .map(|d| d.rule)
            .collect();
        let loads = parse(text.as_bytes())
            .is_ok_and(|document| serde_json::from_value::<Manifest>(json(&document.root)).is_ok());
        if loads != errors.is_empty() {
            disagreements.push(format!(
                "{}: loads {loads}, errors {errors:?}",
                file.display()
            ));
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}
