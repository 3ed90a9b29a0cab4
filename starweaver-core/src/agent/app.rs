//! An app: one agent, many sessions.

use super::{Agent, AgentSession};

/// Hands out sessions of one agent.
#[derive(Clone, Debug)]
pub struct AgentApp {
    agent: Agent,
}

impl AgentApp {
    /// Wraps an agent.
    #[must_use]
    pub fn new(agent: Agent) -> Self {
        Self { agent }
    }

    /// The agent.
    #[must_use]
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// A new session with its own conversation and context.
    #[must_use]
    pub fn session(&self) -> AgentSession {
        AgentSession::new(self.agent.clone())
    }
}
