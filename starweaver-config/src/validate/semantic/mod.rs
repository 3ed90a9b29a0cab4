//! Checks that need more than one field at once or knowledge beyond the schema: names that
//! collide or refer to nothing, the model id, the instructions template, the shell policy and
//! skill scopes. Each rule lives in its own file and reads the tree defensively: a value of the
//! wrong type was already reported by the structure pass and is skipped here.

mod agents;
mod cascade;
mod duplicate;
mod environment;
mod free_form;
mod mcp;
mod model;
mod output;
mod references;
mod sandbox;
mod schema_compat;
mod script;
mod secrets;
mod shell;
mod skill_files;
mod skills;
mod template;
#[cfg(test)]
mod tests;
mod tool_names;
mod toolsets;

pub(super) use cascade::fold;

use starweaver_core::agent::{OutputSpec, OUTPUT_TOOL_NAME};
use starweaver_core::model::ToolDefinition;

use std::collections::BTreeMap;

use super::tree::{FileCheck, TreeState};
use super::{CheckContext, Checked};
use crate::diagnostics::Diagnostic;
use crate::script::ScriptModel;
use crate::yaml::Document;

/// What the rules read beside the manifest and hand to the loader, so each file is read once.
#[derive(Debug, Default)]
pub(super) struct Read {
    /// The `script` model's turns, when its file was read and every turn is well formed.
    pub(super) script: Option<ScriptModel>,
    /// The answer's JSON Schema (`output.schema`, or the file `output.schema_file` names),
    /// when it passed its rules.
    pub(super) output_schema: Option<serde_json::Value>,
    /// Each sub-agent's checked manifest, by (index in `toolsets:`, index in `agents:`), when
    /// it has no error.
    pub(super) sub_agents: BTreeMap<(usize, usize), Checked>,
    /// Every sub-agent file below the manifest, each once.
    pub(super) files: Vec<FileCheck>,
}

/// Every semantic diagnostic of the document, in no particular order, and what the rules read
/// that the loader needs ([`Read`]). The sub-agents are checked on the walk `state` is at.
pub(super) fn semantic(
    document: &Document,
    source: &[u8],
    context: &CheckContext,
    state: &mut TreeState,
) -> (Vec<Diagnostic>, Read) {
    let root = &document.root;
    let agents = agents::read(root, context, state);
    let entries = toolsets::entries(root, &agents.names);
    let mut found = agents.found;
    found.extend(model::check(root, context));
    let (output_found, output_schema) = output::check(root, &entries, context);
    found.extend(output_found);
    // A script calls the output tool like any tool the model is offered.
    let output_tool = output_schema.as_ref().map(|schema| {
        ToolDefinition::new(
            OUTPUT_TOOL_NAME,
            None,
            OutputSpec::new(schema.clone()).tool_parameters(),
        )
    });
    let (script_found, script) = script::check(root, &entries, context, output_tool.as_ref());
    found.extend(script_found);
    found.extend(free_form::check(root));
    found.extend(duplicate::check(&entries));
    found.extend(tool_names::check(&entries));
    found.extend(schema_compat::check(root, &entries, context));
    found.extend(references::check(&entries, context));
    found.extend(secrets::check(root));
    found.extend(shell::check(root, &entries));
    found.extend(sandbox::check(root, &entries, context));
    found.extend(mcp::check(&entries, context));
    found.extend(environment::check(root, &entries, context));
    found.extend(skills::check(root, context));
    found.extend(template::check(root, source, context));
    (
        found,
        Read {
            script,
            output_schema,
            sub_agents: agents.checked,
            files: agents.files,
        },
    )
}
