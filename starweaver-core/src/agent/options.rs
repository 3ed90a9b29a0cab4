//! Per-run additions that leave the reusable agent unchanged.

use tokio_util::sync::CancellationToken;

use super::journal::DynRunJournal;
use super::output::OutputTool;
use crate::model::ModelSettings;
use crate::tools::IntoDynToolset;
use crate::tools::{DynTool, ToolRegistry};
use crate::JsonMap;

/// Tools, toolsets, settings, params, instructions, cancellation and a journal for one run.
#[derive(Clone, Default)]
pub struct AgentRunOptions {
    pub(crate) tools: ToolRegistry,
    pub(crate) settings: Option<ModelSettings>,
    pub(crate) params: JsonMap,
    pub(crate) instructions: Vec<String>,
    pub(crate) cancellation: Option<CancellationToken>,
    pub(crate) journal: Option<DynRunJournal>,
    /// The output a typed run asks for, in place of the agent's.
    pub(crate) output: Option<OutputTool>,
}

impl std::fmt::Debug for AgentRunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentRunOptions")
            .field("tools", &self.tools)
            .field("settings", &self.settings)
            .field("params", &self.params)
            .field("instructions", &self.instructions)
            .field("cancellation", &self.cancellation)
            .field("journal", &self.journal.is_some())
            .field("output", &self.output)
            .finish()
    }
}

impl AgentRunOptions {
    /// Options asking for an answer in the shape of `T` (a typed run), with `retries`.
    pub(crate) fn typed_output<T: schemars::JsonSchema>(retries: u32) -> Self {
        Self {
            output: Some(OutputTool::new(
                &super::OutputSpec::for_type::<T>().with_retries(retries),
            )),
            ..Self::default()
        }
    }

    /// No additions.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a run-scoped tool.
    #[must_use]
    pub fn tool(mut self, tool: DynTool) -> Self {
        self.tools.insert_tool(tool);
        self
    }

    /// Adds a run-scoped toolset.
    #[must_use]
    pub fn toolset(mut self, toolset: &impl IntoDynToolset) -> Self {
        self.tools.insert_toolset(toolset);
        self
    }

    /// Overrides model settings for the run (merged over the agent's).
    #[must_use]
    pub fn settings(mut self, settings: ModelSettings) -> Self {
        self.settings = Some(settings);
        self
    }

    /// Run parameters: visible to tools and callbacks as
    /// `AgentContext::metadata` entries during the run only.
    #[must_use]
    pub fn params(mut self, params: JsonMap) -> Self {
        self.params.extend(params);
        self
    }

    /// Adds instructions for the run.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions.push(instructions.into());
        self
    }

    /// Cancels the run's tool calls when the token fires.
    #[must_use]
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = Some(token);
        self
    }

    /// Journals the run: each model response and call return is written down as it happens,
    /// and what the journal already holds (from an earlier attempt of the same run) is used
    /// instead of asking the model or running the call again. See [`super::RunJournal`].
    #[must_use]
    pub fn journal(mut self, journal: DynRunJournal) -> Self {
        self.journal = Some(journal);
        self
    }
}
