//! The MCP client: any MCP server's tools as a toolset.
//!
//! An [`McpServerSpec`] says how to reach a server (a local program over
//! stdio, a streamable HTTP endpoint, or any byte stream), which of its
//! tools to offer, under which names and with which approvals.
//! [`McpToolset`] starts the server when the toolset enters, lists its
//! tools, maps their names to ones every provider accepts
//! ([`map_tool_name`]), and calls them under the registry's bounds; a
//! stdio server that dies is restarted with backoff, and its process
//! group is stopped when the toolset exits or is dropped.

mod bounded;
mod connection;
mod error;
mod info;
mod names;
mod process;
mod result;
mod session;
mod spec;
mod stderr;
mod tap;
mod tool;
mod toolset;

pub use error::McpError;
pub use info::{McpToolHints, McpToolInfo};
pub use names::map_tool_name;
pub use spec::{
    McpApproval, McpConnector, McpServerSpec, McpStream, McpTransport, DEFAULT_CALL_TIMEOUT,
    DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_STARTUP_TIMEOUT,
};
pub use toolset::McpToolset;
