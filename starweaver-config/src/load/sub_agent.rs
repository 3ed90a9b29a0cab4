//! One sub-agent of an `agents` toolset as the tool the model calls: the agent its manifest
//! loads to (built without instructions), the tool's name and description, one optional
//! string argument per variable, and the instructions rendered for each call from the values
//! it sets over the manifest's defaults.

use starweaver_core::agent::{Agent, SubAgent};
use starweaver_core::context::AgentContext;
use starweaver_core::tools::DynTool;

use super::instructions::render;
use crate::manifest::{Manifest, SubAgentSpec};

/// The tool of the sub-agent `spec` names, whose manifest is `manifest` and loaded to `agent`
/// with `context` (its environment, process shell and preloaded tools; the session of each
/// call starts from a copy).
pub(super) fn tool(
    spec: &SubAgentSpec,
    manifest: &Manifest,
    agent: Agent,
    context: AgentContext,
) -> DynTool {
    let mut sub = SubAgent::new(manifest.name.clone(), agent);
    if let Some(name) = &spec.tool {
        sub = sub.tool_name(name.clone());
    }
    if let Some(text) = spec.description.as_ref().or(manifest.description.as_ref()) {
        sub = sub.description(text.clone());
    }
    for name in manifest.vars.keys() {
        sub = sub.var(
            name.clone(),
            format!("Sets `{name}` in the agent's instructions; unset, its default applies."),
        );
    }
    if manifest.instructions.is_some() {
        let template = manifest.clone();
        sub = sub.instructions(move |vars| render(&template, vars).map_err(|e| e.to_string()));
    }
    sub.context(context).into_tool()
}
