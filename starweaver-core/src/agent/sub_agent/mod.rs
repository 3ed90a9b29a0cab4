//! Sub-agents: another agent offered to the model as one tool. The model hands it a task;
//! it runs in a session of its own (its own model, instructions, tools, environment and
//! budgets, from a fresh context) and only its final answer, or its structured output, comes
//! back as the call's return.
//!
//! What crosses the boundary, and how:
//! - **Records.** When someone listens to the calling run, the sub-agent's run records reach
//!   it as they happen, as [`super::AgentStreamEvent::SubAgent`] with the agent path.
//! - **Usage.** The sub-agent's requests, tokens and tool calls are added to the calling
//!   run's usage, and its requests count against the calling run's step limit and its tokens
//!   against its token budget.
//! - **Waiting.** A sub-agent that waits for approvals, answers or deferred results makes
//!   the calling run wait: its requests join the calling run's pending requests, named by
//!   their agent path, and are answered like the run's own. Resuming the calling run resumes
//!   the sub-agent where it stopped, also after the state was saved and restored elsewhere.
//! - **Cancellation.** The calling run's cancellation reaches the sub-agent's requests and
//!   calls.

mod call;
mod pause;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::Agent;
use crate::context::AgentContext;
use crate::environment::{DynEnvironment, DynProcessShell};
use crate::tools::{DynTool, FunctionTool, ToolDependencyRequirements};

pub(crate) use pause::{route_answers, split_pending, sub_agent_usage};

/// The metadata key of a sub-agent call's return (private on an answer or a failure, public
/// on a pause): the agent and the usage its run added, which the calling run adds to its own.
const SUB_AGENT_KEY: &str = "sub_agent";

/// Renders a sub-agent's instructions for one call from the variables the call set.
type InstructionRenderer =
    Arc<dyn Fn(&BTreeMap<String, String>) -> Result<Option<String>, String> + Send + Sync>;

/// Another agent, offered as one tool with a `task` argument (and one optional string
/// argument per declared variable).
///
/// ```
/// use std::sync::Arc;
///
/// use starweaver_core::agent::{AgentBuilder, SubAgent};
/// use starweaver_core::model::TestModel;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let reviewer = AgentBuilder::new(Arc::new(TestModel::with_text("Looks good.")))
///     .instructions("You review changes.")
///     .build();
/// let lead = AgentBuilder::new(Arc::new(TestModel::auto()))
///     .tool(SubAgent::new("reviewer", reviewer).into_tool())
///     .build();
/// let result = lead.run("Review the last change.").await.unwrap();
/// assert_eq!(result.usage.requests, 3); // the lead's two requests and the reviewer's one
/// # });
/// ```
#[derive(Clone)]
pub struct SubAgent {
    name: String,
    tool_name: Option<String>,
    description: Option<String>,
    vars: Vec<(String, String)>,
    agent: Agent,
    instructions: Option<InstructionRenderer>,
    environment: Option<DynEnvironment>,
    process_shell: Option<DynProcessShell>,
    context: Option<AgentContext>,
}

impl std::fmt::Debug for SubAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubAgent")
            .field("name", &self.name)
            .field("tool_name", &self.tool_name_str())
            .field("vars", &self.vars)
            .field("agent", &self.agent)
            .finish_non_exhaustive()
    }
}

impl SubAgent {
    /// `agent` under `name`: the name its records and requests carry in agent paths, and
    /// the tool's name unless [`Self::tool_name`] gives another.
    #[must_use]
    pub fn new(name: impl Into<String>, agent: Agent) -> Self {
        Self {
            name: name.into(),
            tool_name: None,
            description: None,
            vars: Vec::new(),
            agent,
            instructions: None,
            environment: None,
            process_shell: None,
            context: None,
        }
    }

    /// The tool's name, in place of the sub-agent's.
    #[must_use]
    pub fn tool_name(mut self, name: impl Into<String>) -> Self {
        self.tool_name = Some(name.into());
        self
    }

    /// What the model reads about the tool, in place of the generated description.
    #[must_use]
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// A variable the caller may set: an optional string argument of the tool, handed to
    /// the instruction renderer ([`Self::instructions`]).
    #[must_use]
    pub fn var(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        self.vars.push((name.into(), description.into()));
        self
    }

    /// Renders the instructions of each call from the variables the call set (those it did
    /// not set are absent from the map): `Ok(None)` gives none, and `Err(message)` fails the
    /// call with that message. The agent's own instructions still apply, so an agent whose
    /// instructions depend on the variables is built without them.
    #[must_use]
    pub fn instructions(
        mut self,
        render: impl Fn(&BTreeMap<String, String>) -> Result<Option<String>, String>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        self.instructions = Some(Arc::new(render));
        self
    }

    /// The environment the sub-agent's file and shell tools act on (each call's session gets
    /// it, as [`super::AgentSession::with_environment`] would give it).
    #[must_use]
    pub fn environment(mut self, provider: DynEnvironment) -> Self {
        self.environment = Some(provider);
        self
    }

    /// What runs the sub-agent's background commands (see
    /// [`super::AgentSession::with_process_shell`]).
    #[must_use]
    pub fn process_shell(mut self, provider: DynProcessShell) -> Self {
        self.process_shell = Some(provider);
        self
    }

    /// What each call's session starts from, in place of an empty context: a copy of
    /// `template`, with its dependencies, grants, tools loaded by tool search and attached
    /// environment (a manifest's sub-agent gets the context its manifest loads with). A call
    /// that waited continues from its own saved context instead; the template's environment
    /// and process shell are attached to it again.
    #[must_use]
    pub fn context(mut self, template: AgentContext) -> Self {
        self.context = Some(template);
        self
    }

    /// The tool's name: [`Self::tool_name`], else the sub-agent's name.
    fn tool_name_str(&self) -> &str {
        self.tool_name.as_deref().unwrap_or(&self.name)
    }

    /// The tool: each call runs the sub-agent on its `task`. It is never retried (a run is
    /// not repeated behind the model's back); the runtime's tool timeout bounds it like any
    /// call.
    #[must_use]
    pub fn into_tool(self) -> DynTool {
        let name = self.tool_name_str().to_string();
        let description = self.description.clone().unwrap_or_else(|| {
            format!(
                "Hands a task to the `{}` agent, which works on it with its own tools and \
                 returns its final answer. It sees nothing of this conversation: put \
                 everything it needs in `task`.",
                self.name
            )
        });
        let parameters = self.parameters();
        let shared = Arc::new(self);
        let tool = FunctionTool::new(
            name,
            Some(description),
            parameters,
            move |ctx, arguments| {
                let shared = Arc::clone(&shared);
                async move { call::run(&shared, ctx, arguments).await }
            },
        )
        .with_max_retries(0)
        // It needs nothing of the calling run's context.
        .with_dependencies(ToolDependencyRequirements::filtered(Vec::<String>::new()));
        Arc::new(tool)
    }

    /// The tool's argument schema: `task`, plus one optional string per variable.
    fn parameters(&self) -> Value {
        let mut properties = Map::new();
        properties.insert(
            call::TASK_ARGUMENT.to_string(),
            json!({
                "type": "string",
                "description": format!("What the `{}` agent should do, with everything it needs to know.", self.name),
            }),
        );
        for (var, description) in &self.vars {
            properties.insert(
                var.clone(),
                json!({"type": "string", "description": description}),
            );
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": [call::TASK_ARGUMENT],
            "additionalProperties": false,
        })
    }

    /// The name the sub-agent's records and requests carry.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}
