//! `environment:`: the folder or in-memory tree the agent works in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which environment provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EnvironmentKind {
    /// A folder on disk: tools read and write real files below `root`.
    Local,
    /// An in-memory tree that starts empty and is gone after the run:
    /// nothing on disk is read or changed, and the shell runs deterministic
    /// simulated commands.
    Virtual,
}

/// The environment section.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnvironmentSpec {
    /// Which environment provider the tools act on.
    #[serde(rename = "type")]
    #[schemars(example = &"local")]
    pub kind: EnvironmentKind,
    /// The folder of a `local` environment, relative to the manifest's
    /// folder. Unset: the manifest's folder itself (`.`). It may leave that
    /// folder (`..` for the repository an agent sits in); tools cannot
    /// reach above it. A `virtual` environment has no folder and refuses
    /// it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"..")]
    pub root: Option<String>,
}
