//! Tools: definitions, results, errors, function and typed tools, the
//! registry that dispatches calls, hooks and dependency profiles.

mod context;
mod dependency_profile;
mod error;
mod facts;
mod function;
mod hooks;
pub(crate) mod instruction;
mod lifecycle;
mod limits;
mod list_changes;
pub(crate) mod metadata;
pub(crate) mod name;
mod nested;
mod options;
pub(crate) mod panic_guard;
mod progress;
mod registry;
mod result;
mod result_metadata;
mod schema;
mod tool;
mod toolset;
mod typed;
mod user_input;
pub(crate) mod wrapped;

pub use context::ToolContext;
pub use dependency_profile::{
    ToolDependencyProfile, ToolDependencyRequirements, TOOL_DEPENDENCIES_METADATA_KEY,
};
pub use error::ToolError;
pub use facts::{ToolFacts, FACT_METADATA_KEYS};
pub use function::{string_tool, FunctionTool, TypedFunctionTool};
pub use hooks::{ToolExecutionHook, ToolExecutionOutcome, ToolHookInput, ToolHookOutput};
pub use instruction::ToolInstruction;
pub use lifecycle::{ToolsetLifecyclePolicy, ToolsetLifecycleReport, ToolsetLifecycleStatus};
pub use limits::{
    ToolLimits, DEFAULT_MAX_ARGUMENT_DEPTH, DEFAULT_MAX_ECHO_BYTES, DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_MAX_RETURN_BYTES,
};
pub use list_changes::ToolListChanges;
pub use metadata::{
    tool_metadata_hidden_by_tags, tool_metadata_kind, tool_metadata_requires_approval,
    tool_metadata_tags, ToolKind, APPROVAL_REQUEST_KIND_METADATA_KEY,
    APPROVAL_REQUIRED_METADATA_KEY, DEFERRED_CALL_METADATA_KEY, HIDDEN_BY_TAGS_METADATA_KEY,
    HITL_ARGUMENTS_METADATA_KEY, TAGS_METADATA_KEY, TOOL_KIND_METADATA_KEY,
};
pub(crate) use metadata::{
    DEFERRED_CALL_REQUEST_KIND, INTERRUPTED_CALL_REQUEST_KIND, TOOL_APPROVAL_REQUEST_KIND,
};
pub use name::{validate_tool_name, MAX_TOOL_NAME_CHARS};
pub(crate) use nested::{NestedRecord, NestedRecordSink};
pub use progress::{
    ToolProgress, ToolProgressReport, ToolProgressSink, MAX_PROGRESS_MESSAGE_CHARS,
};
pub(crate) use registry::{
    is_loaded_in, is_usable_in, prepare_definition_in, InheritedLimits, ToolEntry,
};
pub use registry::{
    AvailabilityReport, ToolCallOutcome, ToolRegistry, ToolsUnavailableError, ToolsetRefreshReport,
    DEFAULT_MAX_RETRIES,
};
pub use result::ToolResult;
pub use result_metadata::ResultMetadata;
pub use schema::{schema_for_type, schema_problems, CompiledSchema};
pub use tool::{DynTool, Tool};
pub use toolset::{DynToolset, IntoDynToolset, Toolset};
pub use typed::typed_tool;
pub use user_input::ToolUserInputPreprocessResult;
