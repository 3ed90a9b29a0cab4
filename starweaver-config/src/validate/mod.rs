//! The manifest checker: reads a file and reports every problem it finds, each with its line,
//! column and rule, instead of stopping at the first.
//!
//! [`check`] is the entry point: it reads the file ([`crate::yaml::parse`]) and runs the passes
//! over the tree. The first pass, [`structure`], compares the tree with the JSON Schema
//! generated from [`crate::manifest::Manifest`], so the checker and the types cannot disagree
//! about which keys exist, which are required and what values they take. The semantic pass
//! then checks what the schema cannot say: duplicate toolset and tool names, references to
//! toolsets and tools that do not exist, the model id, the instructions template, the shell
//! policy and skill scopes. A [`CheckContext`] adds what the file cannot tell: the known
//! code-tool names and the manifest's folder. [`check_bytes`] checks with an empty context.
//!
//! A comment `# starweaver-check: allow(RULE)` alone on the line before a node silences that
//! rule inside the node; a marker that silences nothing is reported as a warning.
//!
//! ```
//! use starweaver_config::diagnostics::Rule;
//! use starweaver_config::validate::{check, check_bytes, CheckContext};
//!
//! let found = check_bytes(b"version: 1\nnme: scout\nmodel: {id: test}\nruntime: {max_steps: x}\n");
//! let rules: Vec<_> = found.iter().map(|d| (d.rule, d.span.start.line)).collect();
//! assert_eq!(rules, [(Rule::UnknownField, 2), (Rule::InvalidValue, 4)]);
//! assert_eq!(found[0].help.as_deref(), Some("did you mean `name`?"));
//!
//! let manifest = b"version: 1\nname: a\nmodel: {id: test}\ntoolsets: [{type: tools, name: g, tools: [lokup]}]\n";
//! let context = CheckContext::new().with_catalog(["lookup"]);
//! let found = check(manifest, &context);
//! assert_eq!(found[0].rule, Rule::UnknownTool);
//! assert_eq!(found[0].help.as_deref(), Some("did you mean `lookup`?"));
//! ```

mod allow;
mod choice;
mod context;
mod hint;
mod json;
mod kinds;
mod object;
mod path;
mod range;
mod schema;
mod semantic;
mod structure;
mod suggest;
mod syntax;
#[cfg(test)]
mod tests;
mod variants;
mod version;
mod walk;

pub use context::{catalog_definitions, catalog_names, CatalogFileError, CheckContext};
pub use json::to_json;
pub use structure::structure;
pub use syntax::too_large;

use crate::diagnostics::Diagnostic;
use crate::yaml;

/// Checks a manifest file's bytes: every problem found, in source order; empty when the file is
/// a valid manifest.
///
/// A file that is not readable YAML gives a single `syntax` diagnostic, since nothing after the
/// break can be trusted.
#[must_use]
pub fn check_bytes(bytes: &[u8]) -> Vec<Diagnostic> {
    check(bytes, &CheckContext::default())
}

/// Checks a manifest file's bytes with extra knowledge (a tool catalog, the manifest's folder):
/// the structure pass, then the semantic rules, less what allow markers
/// (`# starweaver-check: allow(RULE)` on the line before a node) silence, in source order.
#[must_use]
pub fn check(bytes: &[u8], context: &CheckContext) -> Vec<Diagnostic> {
    check_document(bytes, context).1
}

/// Notes one diagnostic keeps; the rest are counted, so a file that repeats one mistake
/// thousands of times gets a report in proportion to the mistake, not the file.
const MAX_NOTES: usize = 20;

/// Cuts a diagnostic's notes to [`MAX_NOTES`], the last saying how many more there were.
fn cap_notes(diagnostic: &mut Diagnostic) {
    if diagnostic.notes.len() > MAX_NOTES {
        let more = diagnostic.notes.len() - (MAX_NOTES - 1);
        diagnostic.notes.truncate(MAX_NOTES - 1);
        diagnostic.notes.push(format!("and {more} more like these"));
    }
}

/// [`check`], also returning the tree it read (none for a file that is not YAML), so the reader
/// builds the manifest from the same tree instead of parsing the file again.
pub(crate) fn check_document(
    bytes: &[u8],
    context: &CheckContext,
) -> (Option<yaml::Document>, Vec<Diagnostic>) {
    let document = match yaml::parse_with(bytes, context.budgets()) {
        Ok(document) => document,
        Err(error) => return (None, vec![syntax::diagnostic(&error)]),
    };
    let mut found = structure(&document);
    found.extend(semantic::semantic(&document, bytes, context));
    // A reference that names nothing because an entry lost its name to a structural problem
    // is a note of that problem.
    let mut found = semantic::fold(&document, found);
    for diagnostic in &mut found {
        cap_notes(diagnostic);
    }
    let found = allow::apply(&document, found);
    (Some(document), found)
}
