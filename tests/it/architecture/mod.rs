//! The shape of the code base: crates and the core's layers depend only
//! downwards, the HTTP clients and the MCP SDK stay out of the core, each crate carries
//! only its own dependencies, no two sibling modules import each other,
//! examples use public APIs, and the public surface is the committed list.

mod circles;
mod crates;
mod examples;
mod layers;
mod mcp;
mod providers;
mod public_api;
mod secrets;
mod store;
