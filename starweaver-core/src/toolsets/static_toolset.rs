//! A fixed list of tools with shared instructions and defaults.

use crate::tools::instruction::dedup_by_group;
use crate::tools::{DynTool, ToolInstruction};
use crate::tools::{Toolset, ToolsetLifecyclePolicy};

/// A named, fixed group of tools.
#[derive(Clone, Default)]
pub struct StaticToolset {
    name: String,
    id: Option<String>,
    tools: Vec<DynTool>,
    instructions: Vec<ToolInstruction>,
    timeout_ms: Option<u64>,
    max_retries: Option<u32>,
    lifecycle: ToolsetLifecyclePolicy,
}

impl std::fmt::Debug for StaticToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticToolset")
            .field("name", &self.name)
            .field("id", &self.id)
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|tool| tool.name())
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl StaticToolset {
    /// An empty toolset.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Sets the namespace id.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Adds a tool.
    #[must_use]
    pub fn with_tool(mut self, tool: DynTool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Adds several tools.
    #[must_use]
    pub fn with_tools(mut self, tools: impl IntoIterator<Item = DynTool>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Adds an instruction; only the first per group is kept.
    #[must_use]
    pub fn with_instruction(mut self, instruction: ToolInstruction) -> Self {
        self.instructions.push(instruction);
        self
    }

    /// Timeout default for the toolset's tools.
    #[must_use]
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> Self {
        self.timeout_ms = Some(timeout_ms);
        self
    }

    /// Retry default for the toolset's tools.
    #[must_use]
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = Some(max_retries);
        self
    }

    /// Sets the lifecycle policy.
    #[must_use]
    pub fn with_lifecycle_policy(mut self, policy: ToolsetLifecyclePolicy) -> Self {
        self.lifecycle = policy;
        self
    }
}

impl Toolset for StaticToolset {
    fn name(&self) -> &str {
        &self.name
    }

    fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    fn get_tools(&self) -> Vec<DynTool> {
        self.tools.clone()
    }

    fn get_instructions(&self) -> Vec<ToolInstruction> {
        dedup_by_group(self.instructions.iter().cloned())
    }

    fn timeout_ms(&self) -> Option<u64> {
        self.timeout_ms
    }

    fn max_retries(&self) -> Option<u32> {
        self.max_retries
    }

    fn lifecycle_policy(&self) -> ToolsetLifecyclePolicy {
        self.lifecycle
    }
}
