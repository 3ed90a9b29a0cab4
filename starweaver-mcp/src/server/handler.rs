//! One MCP session's handler: the handshake, `tools/list` and `tools/call`, answered from the
//! server's shared state.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{RoleServer, ServerHandler};

use super::shared::Shared;

/// The handler of one session; sessions share the server's registry and context.
#[derive(Clone)]
pub(crate) struct Session {
    shared: Arc<Shared>,
}

impl Session {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }
}

impl ServerHandler for Session {
    fn get_info(&self) -> ServerConfig {
        let options = &self.shared.options;
        // The list changes when a re-served MCP server's does; clients are told.
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let mut config = ServerConfig::new(capabilities).with_server_info(Implementation::new(
            options.name.clone(),
            options.version.clone(),
        ));
        if let Some(instructions) = &options.instructions {
            config = config.with_instructions(instructions.clone());
        }
        config
    }

    /// The versions with an `initialize` handshake: those where a server may ask its client
    /// (elicitation), which is how approvals reach the client's user.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(
            &ProtocolVersion::LATEST_WITH_INITIALIZE,
        ))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.shared.add_peer(context.peer);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.shared.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.shared
            .call(&request.name, request.arguments, &context)
            .await
            .map(Into::into)
    }
}
