//! One server tool as a core [`Tool`]: its definition as last listed,
//! its approval as a typed fact, its calls through the session.

use std::sync::{Arc, Weak};

use serde_json::Value;
use starweaver_core::context::AgentContext;
use starweaver_core::model::ToolDefinition;
use starweaver_core::tools::{Tool, ToolContext, ToolError, ToolFacts, ToolResult};
use starweaver_core::BoxFuture;

use super::session::{OfferedTool, Session};

/// A tool of an MCP server. It holds its session weakly: the toolset owns
/// the server, and a tool kept past its toolset reports the server gone.
pub(crate) struct McpTool {
    session: Weak<Session>,
    offered: Arc<OfferedTool>,
}

impl McpTool {
    /// The tool for `offered`, calling through `session`.
    pub(crate) fn new(session: &Arc<Session>, offered: Arc<OfferedTool>) -> Self {
        Self {
            session: Arc::downgrade(session),
            offered,
        }
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.offered.mapped
    }

    fn definition(&self) -> ToolDefinition {
        self.offered.definition.clone()
    }

    fn facts(&self) -> ToolFacts {
        self.offered.facts.clone()
    }

    fn validates_arguments(&self) -> bool {
        false
    }

    /// Hidden once the server is unavailable or stopped offering it (a
    /// tool list change).
    fn is_available(&self, _context: &AgentContext) -> bool {
        self.session.upgrade().is_some_and(|session| {
            !session.is_unavailable() && session.snapshot().get(&self.offered.mapped).is_some()
        })
    }

    /// The definition as the server last listed it.
    fn prepare_definition(
        &self,
        _context: &AgentContext,
        definition: &Arc<ToolDefinition>,
    ) -> Option<Arc<ToolDefinition>> {
        let session = self.session.upgrade()?;
        let snapshot = session.snapshot();
        let current = snapshot.get(&self.offered.mapped)?;
        if Arc::ptr_eq(current, &self.offered) || current.definition == **definition {
            Some(definition.clone())
        } else {
            Some(Arc::new(current.definition.clone()))
        }
    }

    fn call<'a>(
        &'a self,
        ctx: ToolContext,
        arguments: &'a Value,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let Some(session) = self.session.upgrade() else {
                return Err(ToolError::user_error(format!(
                    "tool `{}` outlived its MCP toolset; keep the toolset while its tools are used",
                    self.offered.mapped
                )));
            };
            session.call(&self.offered.mapped, arguments, &ctx).await
        })
    }
}
