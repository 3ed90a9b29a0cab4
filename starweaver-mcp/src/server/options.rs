//! How a served manifest answers approvals, and what it adds to its tools.

use super::AgentTool;

/// Serving choices the command line makes: whether every approval is granted up front
/// (`--yes`), the agent tool (`--agent`), and the name the server gives clients.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub(crate) approve_all: bool,
    pub(crate) agent: Option<AgentTool>,
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) instructions: Option<String>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            approve_all: false,
            agent: None,
            name: "starweaver".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            instructions: None,
        }
    }
}

impl ServeOptions {
    /// No approvals granted, no agent tool, the server named `starweaver`.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Grants every approval without asking (`--yes`): a tool that needs approval runs as if
    /// the client's user had said yes. Without it, the client is asked through elicitation,
    /// and a client that cannot be asked gets an error saying approval is required.
    #[must_use]
    pub fn with_approve_all(mut self, approve_all: bool) -> Self {
        self.approve_all = approve_all;
        self
    }

    /// Adds the tool that runs the agent itself (`--agent`).
    #[must_use]
    pub fn with_agent(mut self, agent: AgentTool) -> Self {
        self.agent = Some(agent);
        self
    }

    /// The name clients see in the handshake (the manifest's agent name, say), so a client
    /// with several servers can tell them apart.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Instructions the handshake carries: how to use the served tools (the toolsets' own
    /// instructions, usually).
    #[must_use]
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        let instructions = instructions.into();
        self.instructions = (!instructions.trim().is_empty()).then_some(instructions);
        self
    }
}
