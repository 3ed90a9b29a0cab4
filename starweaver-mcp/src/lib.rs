//! Starweaver and the Model Context Protocol, on the official Rust SDK (`rmcp`).
//!
//! - [`server`]: a manifest's toolsets served to any MCP client over stdio or streamable
//!   HTTP, every call going through the same registry dispatch as an agent run (hooks,
//!   bounds, approvals, timeouts, cancellation), so a tool behaves the same whoever calls it.
//!
//! The crate depends on the core alone; the command line (`starweaver mcp serve`) loads the
//! manifest and hands the loaded registry, context and agent to [`server::McpServer`].

pub mod server;
