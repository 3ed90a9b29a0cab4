//! `environment:`: the folder or in-memory tree the agent works in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which environment provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EnvironmentKind {
    /// A folder on disk (`LocalEnvironmentProvider`).
    Local,
    /// An in-memory tree (`VirtualEnvironmentProvider`).
    Virtual,
}

/// The environment section.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentSpec {
    /// `local` or `virtual`.
    #[serde(rename = "type")]
    pub kind: EnvironmentKind,
    /// The folder of a local environment, relative to the manifest's
    /// folder (default `.`). It may leave that folder (`..` for the
    /// repository an agent sits in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
}
