//! Starweaver core runtime: tools, the tool registry, toolsets and the
//! agent context they run against.
//!
//! Each item has one path here, in the module of its layer
//! (`starweaver_core::tools::ToolRegistry`); nothing is re-exported at the
//! root. Users reach these types through the `starweaver` facade crate,
//! which has a module per layer and keeps the names a first program types
//! at its root.

pub mod agent;
pub mod bounds;
pub mod bundles;
pub mod catalog;
pub mod context;
pub mod environment;
#[doc(hidden)]
pub mod macro_support;
pub mod model;
pub mod runs;
pub mod schedule;
pub mod skills;
pub mod telemetry;
pub mod tools;
pub mod toolsets;

/// Boxed, sendable future used by the dyn-compatible traits of this crate.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// JSON object map used for tool metadata.
pub type JsonMap = serde_json::Map<String, serde_json::Value>;
