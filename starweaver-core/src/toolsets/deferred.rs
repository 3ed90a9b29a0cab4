//! Tools whose calls are handed to an external worker.

use std::sync::Arc;

use crate::tools::wrapped::WrappedTool;
use crate::tools::Toolset;
use crate::tools::{DynTool, ToolInstruction, ToolKind};

/// Marks tools as deferred (`starweaver_tool_kind: deferred`,
/// `deferred_call: true`). The registry then never runs them: a call
/// without an inline deferred result returns [`crate::tools::ToolError::CallDeferred`],
/// which the agent runtime turns into a durable waiting request; a call
/// resumed with [`crate::tools::ToolContext::with_deferred_result`] returns that
/// result. Arguments are still validated by the wrapped tool first.
#[derive(Clone, Default)]
pub struct DeferredToolset {
    name: String,
    tools: Vec<DynTool>,
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

    fn get_tools(&self) -> Vec<DynTool> {
        self.tools
            .iter()
            .map(|tool| {
                Arc::new(
                    WrappedTool::new(tool.clone(), tool.definition())
                        .with_facts(|facts| facts.set_kind(ToolKind::Deferred)),
                ) as DynTool
            })
            .collect()
    }

    fn get_instructions(&self) -> Vec<ToolInstruction> {
        self.instructions.clone()
    }
}
