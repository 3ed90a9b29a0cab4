//! Building agents.

use std::sync::Arc;

use super::output::OutputTool;
use super::run_loop::AgentConfig;
use super::{Agent, AgentApp, AgentRuntimePolicy, OutputSpec};
use crate::context::{ContextEvent, ToolConfig};
use crate::model::{DynModel, ModelSettings};
use crate::skills::SkillScanReport;
use crate::tools::IntoDynToolset;
use crate::tools::{DynTool, ToolRegistry};

/// Builds an [`Agent`]: a model plus instructions, tools and policies.
pub struct AgentBuilder {
    name: Option<String>,
    model: DynModel,
    registry: ToolRegistry,
    instructions: Vec<String>,
    tool_config: Option<ToolConfig>,
    policy: AgentRuntimePolicy,
    settings: ModelSettings,
    startup_events: Vec<ContextEvent>,
    registry_given: bool,
    output: Option<OutputSpec>,
}

impl AgentBuilder {
    /// Starts an agent on this model.
    #[must_use]
    pub fn new(model: DynModel) -> Self {
        Self {
            name: None,
            model,
            registry: ToolRegistry::new(),
            instructions: Vec::new(),
            tool_config: None,
            policy: AgentRuntimePolicy::default(),
            settings: ModelSettings::default(),
            startup_events: Vec::new(),
            registry_given: false,
            output: None,
        }
    }

    /// Names the agent: its runs' spans are `invoke_agent <name>` (a manifest's agent is
    /// named after its `name`).
    #[must_use]
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Adds system instructions.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions.push(instructions.into());
        self
    }

    /// Adds a tool.
    #[must_use]
    pub fn tool(mut self, tool: DynTool) -> Self {
        self.registry.insert_tool(tool);
        self
    }

    /// Adds a toolset.
    #[must_use]
    pub fn toolset(mut self, toolset: &impl IntoDynToolset) -> Self {
        self.registry.insert_toolset(toolset);
        self
    }

    /// Adds a prepared registry. The first registry given keeps its
    /// defaults and hooks; later ones contribute their tools.
    #[must_use]
    pub fn tool_registry(mut self, registry: ToolRegistry) -> Self {
        if !self.registry_given {
            self.registry.adopt_settings(&registry);
            self.registry_given = true;
        }
        self.registry.extend(&registry);
        self
    }

    /// Tool settings applied to the context at run start (for example
    /// the unavailable-tool policy).
    #[must_use]
    pub fn tool_config(mut self, tool_config: ToolConfig) -> Self {
        self.tool_config = Some(tool_config);
        self
    }

    /// Scheduling and limits.
    #[must_use]
    pub fn runtime_policy(mut self, policy: AgentRuntimePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Most model requests per run.
    #[must_use]
    pub fn max_steps(mut self, max_steps: u32) -> Self {
        self.policy.max_steps = max_steps;
        self
    }

    /// Most tokens (input plus output) per run; see
    /// [`AgentRuntimePolicy::max_tokens`].
    #[must_use]
    pub fn max_tokens(mut self, max_tokens: u64) -> Self {
        self.policy.max_tokens = Some(max_tokens);
        self
    }

    /// Asks for a structured answer: every request offers the output tool
    /// ([`super::OUTPUT_TOOL_NAME`]) beside the agent's other tools, the model finishes by
    /// calling it with arguments the spec's schema accepts, and invalid answers go back to it
    /// with their errors up to the spec's retries. The answer is
    /// [`super::AgentRunResult::structured_output`]. A tool of the same name makes runs fail
    /// before they start ([`super::AgentError::OutputToolClash`]).
    #[must_use]
    pub fn output(mut self, spec: OutputSpec) -> Self {
        self.output = Some(spec);
        self
    }

    /// Default model settings.
    #[must_use]
    pub fn model_settings(mut self, settings: ModelSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Publishes a context event at the start of every run (diagnostics
    /// gathered while the agent was assembled). A run resumed after an
    /// approval or a deferred result does not publish it again.
    #[must_use]
    pub fn startup_event(mut self, event: ContextEvent) -> Self {
        self.startup_events.push(event);
        self
    }

    /// Publishes a skill scan's `skills_scanned` event (skill names and
    /// diagnostics, no bodies) at the start of every run, so
    /// hosts and stream consumers see skipped or overridden skill files.
    #[must_use]
    pub fn skills_report(self, report: SkillScanReport) -> Self {
        self.startup_event(report.to_event())
    }

    /// The agent.
    #[must_use]
    pub fn build(self) -> Agent {
        Agent::from_config(Arc::new(AgentConfig {
            name: self.name,
            model: self.model,
            registry: self.registry,
            instructions: self.instructions,
            tool_config: self.tool_config,
            policy: self.policy,
            settings: self.settings,
            startup_events: self.startup_events,
            output: self.output.as_ref().map(OutputTool::new),
        }))
    }

    /// An app that hands out sessions of the agent.
    #[must_use]
    pub fn build_app(self) -> AgentApp {
        AgentApp::new(self.build())
    }
}
