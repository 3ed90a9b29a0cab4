//! Starweaver's Model Context Protocol side, on the official Rust SDK
//! (`rmcp`).
//!
//! [`client`] turns any MCP server, a local program over stdio or a
//! streamable HTTP endpoint, into a toolset: its tools are listed when the
//! toolset enters, mapped to names every provider accepts, gated,
//! bounded and called like any other tool.
//!
//! The crate depends on `starweaver-core` only: the core never names MCP,
//! and the facade's `mcp` feature brings this crate in.

pub mod client;
