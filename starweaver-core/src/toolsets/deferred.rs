//! Tools whose calls are handed to an external worker.

use std::sync::Arc;

use crate::tools::wrapped::WrappedTool;
use crate::tools::{DynTool, ToolInstruction, ToolKind};
use crate::tools::{DynToolset, IntoDynToolset, Toolset};

/// Marks tools as deferred (`starweaver_tool_kind: deferred`,
/// `deferred_call: true`). The registry then never runs them: a call
/// without an inline deferred result returns [`crate::tools::ToolError::CallDeferred`],
/// which the agent runtime turns into a durable waiting request; a call
/// resumed with [`crate::tools::ToolContext::with_deferred_result`] returns that
/// result. Arguments are still validated by the wrapped tool first.
///
/// Besides single tools it can hand over whole toolsets ([`Self::with_toolset`]), whose tools
/// are known only once they are set up (an MCP server's): the wrapped toolsets are set up and
/// torn down with the run, so the model sees their definitions, and their tools are read
/// again whenever this toolset is (after setup, after a list change), but their calls never
/// run here.
#[derive(Clone, Default)]
pub struct DeferredToolset {
    name: String,
    tools: Vec<DynTool>,
    toolsets: Vec<DynToolset>,
    instructions: Vec<ToolInstruction>,
}

impl std::fmt::Debug for DeferredToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeferredToolset")
            .field("name", &self.name)
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|tool| tool.name())
                    .collect::<Vec<_>>(),
            )
            .field(
                "toolsets",
                &self
                    .toolsets
                    .iter()
                    .map(|toolset| toolset.name())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl DeferredToolset {
    /// An empty deferred toolset.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Adds a tool; only its definition and validation are used here.
    #[must_use]
    pub fn with_tool(mut self, tool: DynTool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Hands every tool of `toolset` to the external worker too, whatever tools it lists
    /// when it is read (an MCP server's, once it started).
    #[must_use]
    pub fn with_toolset(mut self, toolset: impl IntoDynToolset) -> Self {
        self.toolsets.push(toolset.to_dyn_toolset());
        self
    }

    /// Adds an instruction.
    #[must_use]
    pub fn with_instruction(mut self, instruction: ToolInstruction) -> Self {
        self.instructions.push(instruction);
        self
    }
}

impl Toolset for DeferredToolset {
    fn name(&self) -> &str {
        &self.name
    }

    fn wrapped_toolsets(&self) -> Vec<DynToolset> {
        self.toolsets.clone()
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.tools
            .iter()
            .cloned()
            .chain(self.toolsets.iter().flat_map(|toolset| toolset.get_tools()))
            .map(|tool| {
                let definition = tool.definition();
                Arc::new(
                    WrappedTool::new(tool, definition)
                        .with_facts(|facts| facts.set_kind(ToolKind::Deferred)),
                ) as DynTool
            })
            .collect()
    }

    fn get_instructions(&self) -> Vec<ToolInstruction> {
        let mut instructions = self.instructions.clone();
        for toolset in &self.toolsets {
            instructions.extend(toolset.get_instructions());
        }
        instructions
    }
}
