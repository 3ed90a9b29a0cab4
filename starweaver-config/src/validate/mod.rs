//! The manifest checker: reads a file and reports every problem it finds, each with its line,
//! column and rule, instead of stopping at the first.
//!
//! [`check_manifest`] is the entry point: it reads the file once ([`crate::yaml::parse`]), runs
//! the passes over the tree, and, when no error is found, returns the [`Checked`] manifest that
//! [`crate::load::load()`] takes; only the checker can make one, so every rule runs here and
//! nowhere else. [`check`] gives the diagnostics alone. The first pass, [`structure`], compares the tree with the JSON Schema
//! generated from [`crate::manifest::Manifest`], so the checker and the types cannot disagree
//! about which keys exist, which are required and what values they take. The semantic pass
//! then checks what the schema cannot say: duplicate toolset and tool names, references to
//! toolsets and tools that do not exist, the model id, the instructions template, the shell
//! policy and skill scopes. A [`CheckContext`] adds what the file cannot tell: the known
//! code-tool names and the manifest's folder. [`check_bytes`] checks with an empty context.
//!
//! A comment `# starweaver-check: allow(RULE)` alone on the line before a node silences that
//! rule's warnings inside the node; a marker that matches nothing is reported as a warning. A
//! marker never silences an error (it stays, with a note), so no marker lets a manifest that
//! cannot load reach the loader.
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
mod checked;
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
pub(crate) mod tree;
mod variants;
mod version;
mod walk;

pub use checked::Checked;
pub use context::{catalog_definitions, catalog_names, CatalogFileError, CheckContext};
pub use json::to_json;
pub use structure::structure;
pub use syntax::too_large;
pub use tree::{FileCheck, TreeCheck};

use crate::diagnostics::{Diagnostic, Rule, Severity};
use crate::manifest::Manifest;
use crate::yaml;
use tree::TreeState;

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
/// the structure pass, then the semantic rules, less the warnings allow markers
/// (`# starweaver-check: allow(RULE)` on the line before a node) silence, in source order. An
/// error a marker names is kept, with a note that the marker cannot allow it. The folder rules
/// run only when the context names a folder; [`check_manifest`] always runs them.
#[must_use]
pub fn check(bytes: &[u8], context: &CheckContext) -> Vec<Diagnostic> {
    let mut state = TreeState::root(context.file());
    check_document(bytes, context, &mut state).1
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

/// Checks a manifest file's bytes and, when no error is found, gives the checked manifest the
/// loader takes ([`crate::load::load()`]): every diagnostic in source order (warnings too, so a
/// host can show them), and `Some` only when none is an error.
///
/// The folder rules (a local environment's root, skill scopes, the `script` model's file) run
/// against the context's folder ([`CheckContext::with_base_dir`] or
/// [`CheckContext::with_file`]), or the current folder when it names none, since that is the
/// folder the manifest then loads from. An `allow` marker silences warnings; an error it names
/// stays an error (see [`check`]), so no marker lets a manifest that cannot load through.
///
/// The sub-agents its `agents` toolsets name are checked with it, each in its own folder: a
/// sub-agent with errors is an `agent-invalid` error here, and [`check_tree`] also gives each
/// sub-agent file's own diagnostics.
///
/// ```
/// use starweaver_config::diagnostics::Rule;
/// use starweaver_config::validate::{check_manifest, CheckContext};
///
/// let (found, checked) = check_manifest(b"version: 1\nname: a\nmodel: {id: tset}\n", &CheckContext::new());
/// assert_eq!(found[0].rule, Rule::UnknownModel);
/// assert!(checked.is_none());
/// ```
#[must_use]
pub fn check_manifest(bytes: &[u8], context: &CheckContext) -> (Vec<Diagnostic>, Option<Checked>) {
    let tree = check_tree(bytes, context);
    (tree.diagnostics, tree.checked)
}

/// [`check_manifest`], also giving every sub-agent file the manifest's `agents` toolsets name
/// (and theirs, down the tree), each checked as a manifest of its own, with its diagnostics at
/// its own lines. A sub-agent with errors is an `agent-invalid` error in the manifest above it,
/// so [`TreeCheck::checked`] is `Some` only when no file of the tree has an error.
///
/// ```
/// use starweaver_config::diagnostics::Rule;
/// use starweaver_config::validate::{check_tree, CheckContext};
///
/// let dir = std::env::temp_dir().join(format!("starweaver-tree-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("child.yaml"), "version: 1\nname: child\nmodel: {id: tset}\n").unwrap();
/// let parent = b"version: 1\nname: parent\nmodel: {id: test}\ntoolsets:\n  - type: agents\n    name: helpers\n    agents: [{path: child.yaml}]\n";
/// let tree = check_tree(parent, &CheckContext::new().with_base_dir(&dir));
/// assert_eq!(tree.diagnostics[0].rule, Rule::AgentInvalid);
/// assert_eq!(tree.sub_agents[0].diagnostics[0].rule, Rule::UnknownModel);
/// assert_eq!(tree.sub_agents[0].diagnostics[0].span.start.line, 3);
/// assert!(tree.checked.is_none());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[must_use]
pub fn check_tree(bytes: &[u8], context: &CheckContext) -> TreeCheck {
    let here;
    let context = if context.base_dir().is_some() {
        context
    } else {
        here = context.clone().with_base_dir(".");
        &here
    };
    let mut state = TreeState::root(context.file());
    let outcome = check_in(bytes, context, &mut state);
    TreeCheck {
        diagnostics: outcome.diagnostics,
        checked: outcome.checked,
        sub_agents: outcome.sub_agents,
    }
}

/// What checking one file of a tree gave.
pub(crate) struct Outcome {
    /// The file's own diagnostics.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The checked manifest, when the file and its sub-agents have no error.
    pub(crate) checked: Option<Checked>,
    /// Every sub-agent file below it.
    pub(crate) sub_agents: Vec<FileCheck>,
    /// Its `name:`, when a string (the default tool name of a sub-agent).
    pub(crate) name: Option<String>,
}

/// Checks one file of a tree, in a context that names its folder, at the place `state` is.
pub(crate) fn check_in(bytes: &[u8], context: &CheckContext, state: &mut TreeState) -> Outcome {
    let (document, mut found, read) = check_document(bytes, context, state);
    let name = document
        .as_ref()
        .and_then(|document| document.root.get("name"))
        .and_then(yaml::Node::as_str)
        .map(str::to_owned);
    let mut outcome = Outcome {
        diagnostics: Vec::new(),
        checked: None,
        sub_agents: read.files,
        name,
    };
    // A file the checker could not read as YAML always has a `syntax` error.
    let Some(document) = document.filter(|_| !found.iter().any(|d| d.severity == Severity::Error))
    else {
        outcome.diagnostics = found;
        return outcome;
    };
    match typed(&document.root) {
        Ok(manifest) => {
            let base_dir = context.base_dir().unwrap_or(std::path::Path::new("."));
            let file = context.file().map(std::path::Path::to_path_buf);
            let checked = Checked::new(manifest, &document.root, base_dir, file, read.script)
                .with_output_schema(read.output_schema)
                .with_sub_agents(read.sub_agents);
            outcome.checked = Some(checked);
        }
        Err(diagnostic) => found.push(diagnostic),
    }
    outcome.diagnostics = found;
    outcome
}

/// The tree the checker passed, converted to JSON strictly and deserialized. A failure here is
/// a rule the checker lacks: it comes back as one `invalid-value` diagnostic, never a panic.
// One diagnostic, once per manifest: its size costs nothing worth a box.
#[allow(clippy::result_large_err)]
fn typed(root: &yaml::Node) -> Result<Manifest, Diagnostic> {
    let json = to_json(root)?;
    serde_json::from_value(json).map_err(|error| {
        Diagnostic::error(
            Rule::InvalidValue,
            root.span,
            format!("the manifest does not match the format: {error}"),
        )
        .with_help("fix the value named above; `starweaver check` shows the format's rules")
    })
}

/// [`check`], also returning the tree it read (none for a file that is not YAML) and what the
/// rules read beside it (the `script` model's turns, the output schema), so the checked
/// manifest is built from what was checked instead of reading the files again.
fn check_document(
    bytes: &[u8],
    context: &CheckContext,
    state: &mut TreeState,
) -> (Option<yaml::Document>, Vec<Diagnostic>, semantic::Read) {
    let document = match yaml::parse_with(bytes, context.budgets()) {
        Ok(document) => document,
        Err(error) => {
            return (
                None,
                vec![syntax::diagnostic(&error)],
                semantic::Read::default(),
            )
        }
    };
    let mut found = structure(&document);
    let (semantic, read) = semantic::semantic(&document, bytes, context, state);
    found.extend(semantic);
    // A reference that names nothing because an entry lost its name to a structural problem
    // is a note of that problem.
    let mut found = semantic::fold(&document, found);
    for diagnostic in &mut found {
        cap_notes(diagnostic);
    }
    let found = allow::apply(&document, found);
    (Some(document), found, read)
}
