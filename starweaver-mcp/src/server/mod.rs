//! Serving a manifest's tools to MCP clients (`starweaver mcp serve`).
//!
//! [`McpServer::start`] takes the registry and context a loaded manifest's agent session has,
//! sets its toolsets up, and serves over stdio ([`McpServer::serve_stdio`]) or streamable
//! HTTP ([`McpServer::bind_http`], then [`HttpListener::run`]).
//!
//! - Tools keep their own names (no toolset prefix) and their JSON Schema; an object return
//!   schema is the `outputSchema`, and the result's object is its `structuredContent`; the
//!   facts (read-only, mutating, approval, external) become annotations.
//! - Deferred tools are not served: their calls wait for an outside worker.
//! - A call goes through the registry's `execute_call`, as in an agent run: hooks, argument
//!   depth, return size, timeouts and retries apply; the client's cancellation cancels it.
//! - A call that needs approval asks the client's user through elicitation; a client that
//!   cannot be asked gets an error saying approval is required, unless the server approves
//!   everything ([`ServeOptions::with_approve_all`]).
//! - [`AgentTool`] adds `run_<name>`, the agent itself, reporting its steps as progress.
//!
//! Only protocol versions with an `initialize` handshake are offered (up to 2025-11-25): the
//! later stateless protocol forbids the server-to-client requests elicitation needs.

mod agent_tool;
mod annotations;
mod approval;
mod error;
mod handler;
mod http;
mod listing;
mod mcp_server;
mod options;
mod progress;
mod returns;

mod shared;

pub use agent_tool::AgentTool;
pub use error::ServeError;
pub use http::{check_http_address, HttpListener, MCP_PATH};
pub use mcp_server::{McpServer, StartupReport};
pub use options::ServeOptions;
