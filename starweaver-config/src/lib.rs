//! Agent manifests: the format's types (from which the JSON Schema and
//! the reference are generated), and, as they land, loading, diagnostics
//! and checks.

pub mod manifest;
pub mod yaml;
