//! Dependency profiles: how much of the run a tool may see.
//!
//! * Legacy (no metadata): ambient dependencies, every host capability,
//!   the broad [`AgentContextHandle`] and shell values in the runtime
//!   snapshot.
//! * Filtered: typed dependencies, only the requested host capabilities,
//!   no broad handle, shell values only through the dedicated
//!   [`ShellEnvironmentSnapshot`] when requested, requested context handles.
//! * Strict: no ambient dependencies; requested authority intersected
//!   with the host's [`crate::context::ToolCapabilityGrant`] for the tool.
//!
//! Malformed metadata fails closed to Strict with nothing requested.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::{
    AgentContext, AgentContextHandle, ContextHandoffHandle, Dependencies, HostCapabilities,
    ShellEnvironmentSnapshot, TaskContextHandle, ToolCapabilityGrant, ToolRuntimeSnapshot,
    ToolSearchContextHandle, UsageContextHandle, CONTEXT_HANDOFF_CAPABILITY,
    CONTEXT_TASKS_CAPABILITY, CONTEXT_TOOL_SEARCH_CAPABILITY, CONTEXT_USAGE_CAPABILITY,
};
use crate::JsonMap;

/// Reserved metadata key holding a tool's dependency requirements.
pub const TOOL_DEPENDENCIES_METADATA_KEY: &str = "starweaver_tool_dependencies";

/// The three dependency profiles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolDependencyProfile {
    /// Compatibility default: broad access.
    #[default]
    Legacy,
    /// Named host capabilities only, no broad context handle.
    Filtered,
    /// Least authority: only what the host granted.
    Strict,
}

/// What a tool asks for. Build it with [`Self::filtered`] or
/// [`Self::strict`] and store it with [`Self::to_metadata_value`]
/// (the tool builders' `with_dependencies` does that for you).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolDependencyRequirements {
    /// The profile.
    pub profile: ToolDependencyProfile,
    /// Host capability names (keys given to
    /// [`AgentContext::insert_named_dependency`]).
    #[serde(default)]
    pub host_capabilities: Vec<String>,
    /// Whether the tool wants the [`ShellEnvironmentSnapshot`].
    #[serde(default)]
    pub shell_environment: bool,
    /// Mutable context capabilities (`starweaver.context.*`).
    #[serde(default)]
    pub context_capabilities: Vec<String>,
}

fn names<I, S>(names: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    names.into_iter().map(Into::into).collect()
}

impl ToolDependencyRequirements {
    /// The Legacy profile (what a tool without metadata gets).
    #[must_use]
    pub fn legacy() -> Self {
        Self::default()
    }

    /// The Filtered profile with these host capabilities.
    pub fn filtered<I, S>(host_capabilities: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            profile: ToolDependencyProfile::Filtered,
            host_capabilities: names(host_capabilities),
            ..Self::default()
        }
    }

    /// The Strict profile requesting these host capabilities.
    pub fn strict<I, S>(host_capabilities: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            profile: ToolDependencyProfile::Strict,
            host_capabilities: names(host_capabilities),
            ..Self::default()
        }
    }

    /// Requests the dedicated shell environment snapshot.
    #[must_use]
    pub fn with_shell_environment(mut self, requested: bool) -> Self {
        self.shell_environment = requested;
        self
    }

    /// Requests a mutable context capability, such as
    /// [`crate::context::CONTEXT_TASKS_CAPABILITY`].
    #[must_use]
    pub fn with_context_capability(mut self, name: impl Into<String>) -> Self {
        self.context_capabilities.push(name.into());
        self
    }

    /// The metadata value for [`TOOL_DEPENDENCIES_METADATA_KEY`].
    #[must_use]
    pub fn to_metadata_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// Reads requirements from tool metadata: missing means Legacy; a
    /// present but malformed value fails closed to Strict with nothing
    /// requested. Unknown fields are ignored.
    #[must_use]
    pub fn from_metadata(metadata: &JsonMap) -> Self {
        metadata
            .get(TOOL_DEPENDENCIES_METADATA_KEY)
            .map_or_else(Self::legacy, Self::from_metadata_value)
    }

    /// Reads the value of [`TOOL_DEPENDENCIES_METADATA_KEY`]: a malformed
    /// value fails closed to Strict with nothing requested. The one place
    /// that rule lives.
    pub(crate) fn from_metadata_value(value: &Value) -> Self {
        Self::deserialize(value).unwrap_or_else(|_| Self {
            profile: ToolDependencyProfile::Strict,
            ..Self::default()
        })
    }

    /// True when the tool asks for any mutable context capability (such
    /// calls run sequentially).
    #[must_use]
    pub fn requests_mutable_context(&self) -> bool {
        !self.context_capabilities.is_empty()
    }

    /// Builds the dependencies a tool receives for one call, under the
    /// caller's read of the ambient `context` (`ambient` is its handle).
    ///
    /// `base` are the dependencies already on the call's context; the
    /// ambient context supplies the rest according to the profile.
    pub(crate) fn resolve_in(
        &self,
        tool: &str,
        base: &Dependencies,
        context: &AgentContext,
        ambient: &AgentContextHandle,
        mut runtime: ToolRuntimeSnapshot,
    ) -> Dependencies {
        let mut dependencies = base.clone();
        if self.profile == ToolDependencyProfile::Legacy {
            dependencies.extend(&context.dependencies);
            // Every named capability: share the context's bag as is.
            dependencies.insert(HostCapabilities::from_dependencies(
                context.dependencies.clone(),
            ));
            runtime.shell.clone_from(&context.shell_environment);
            dependencies.insert(runtime);
            dependencies.insert(ambient.clone());
            return dependencies;
        }
        let empty = ToolCapabilityGrant::default();
        let grant = match self.profile {
            ToolDependencyProfile::Strict => context.tool_capability_grant(tool).unwrap_or(&empty),
            _ => &empty,
        };
        let strict = self.profile == ToolDependencyProfile::Strict;
        // Capabilities may come from the host's context or the call's base.
        let mut sources = base.clone();
        sources.extend(&context.dependencies);
        if strict {
            // Least authority: nothing ambient, nothing from the base bag.
            dependencies = Dependencies::default();
        } else {
            dependencies.extend_typed(&context.dependencies);
        }
        // Filtered and Strict never see the broad handle, even one a host
        // attached as a dependency.
        dependencies.remove::<AgentContextHandle>();
        let host: Vec<&String> = self
            .host_capabilities
            .iter()
            .filter(|name| !strict || grant.host_capabilities.contains(name))
            .collect();
        dependencies.insert(HostCapabilities::from_dependencies(
            sources.select_named(host),
        ));
        runtime.shell = None;
        dependencies.insert(runtime);
        let shell_allowed = self.shell_environment && (!strict || grant.shell_environment);
        if let (true, Some(shell)) = (shell_allowed, &context.shell_environment) {
            dependencies.insert::<ShellEnvironmentSnapshot>(shell.clone());
        }
        for capability in &self.context_capabilities {
            if strict && !grant.context_capabilities.contains(capability) {
                continue;
            }
            insert_context_handle(&mut dependencies, capability, ambient);
        }
        dependencies
    }
}

/// Inserts the narrow handle for a known capability; unknown names grant
/// nothing.
fn insert_context_handle(
    dependencies: &mut Dependencies,
    capability: &str,
    ambient: &AgentContextHandle,
) {
    let handle = ambient.clone();
    match capability {
        CONTEXT_HANDOFF_CAPABILITY => dependencies.insert(ContextHandoffHandle::new(handle)),
        CONTEXT_TASKS_CAPABILITY => dependencies.insert(TaskContextHandle::new(handle)),
        CONTEXT_USAGE_CAPABILITY => dependencies.insert(UsageContextHandle::new(handle)),
        CONTEXT_TOOL_SEARCH_CAPABILITY => dependencies.insert(ToolSearchContextHandle::new(handle)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_round_trip_and_fail_closed() {
        let requirements = ToolDependencyRequirements::filtered(["db"])
            .with_shell_environment(true)
            .with_context_capability(CONTEXT_TASKS_CAPABILITY);
        let mut metadata = JsonMap::new();
        metadata.insert(
            TOOL_DEPENDENCIES_METADATA_KEY.to_string(),
            requirements.to_metadata_value(),
        );
        assert_eq!(
            ToolDependencyRequirements::from_metadata(&metadata),
            requirements
        );

        assert_eq!(
            ToolDependencyRequirements::from_metadata(&JsonMap::new()).profile,
            ToolDependencyProfile::Legacy
        );

        metadata.insert(
            TOOL_DEPENDENCIES_METADATA_KEY.to_string(),
            serde_json::json!("filtered"),
        );
        let malformed = ToolDependencyRequirements::from_metadata(&metadata);
        assert_eq!(malformed.profile, ToolDependencyProfile::Strict);
        assert!(malformed.host_capabilities.is_empty());

        metadata.insert(
            TOOL_DEPENDENCIES_METADATA_KEY.to_string(),
            serde_json::json!({"profile": "filtered", "host_capabilities": ["db"], "future_field": 1}),
        );
        let extended = ToolDependencyRequirements::from_metadata(&metadata);
        assert_eq!(extended.profile, ToolDependencyProfile::Filtered);
        assert_eq!(extended.host_capabilities, vec!["db"]);
    }
}
