//! Starweaver and the Model Context Protocol, on the official Rust SDK (`rmcp`).
//!
//! - [`client`]: any MCP server, a local program over stdio or a streamable HTTP endpoint, as a
//!   toolset: its tools are listed when the toolset enters, mapped to names every provider
//!   accepts, gated, bounded and called like any other tool.
//! - [`server`]: a manifest's toolsets served to any MCP client over stdio or streamable
//!   HTTP, every call going through the same registry dispatch as an agent run (hooks,
//!   bounds, approvals, timeouts, cancellation), so a tool behaves the same whoever calls it.
//!
//! The crate depends on the core alone: the core never names MCP, and the facade's `mcp`
//! feature brings this crate in. The command line (`starweaver mcp serve`) loads the manifest
//! and hands the loaded registry, context and agent to [`server::McpServer`].

pub mod client;
pub mod server;
