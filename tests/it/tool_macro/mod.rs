//! `#[starweaver::tool]`: each macro tool's definition equals the same
//! tool built by hand with `typed_tool` and the builders, it runs
//! through the registry, and it is in the catalog.

mod catalog;
mod definitions;
mod execution;
mod regressions;
mod tools;
