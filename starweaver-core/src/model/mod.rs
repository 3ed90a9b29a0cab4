//! Provider-neutral messages and parts, the [`Model`] trait, and the test
//! doubles [`TestModel`] and [`FunctionModel`].

mod definition;
mod function_model;
mod messages;
mod model_trait;
mod provider_kind;
mod recorded;
mod request_notice;
mod schema_compat;
mod schema_sample;
mod settings;
mod test_model;
mod tool_call;
mod tool_return;

pub use definition::ToolDefinition;
pub use function_model::FunctionModel;
pub use messages::{
    InstructionsPart, ModelMessage, ModelRequest, ModelResponse, RequestPart, ResponsePart,
    RetryPromptPart, TextPart, UserPromptPart,
};
pub use model_trait::{
    response_as_stream, DynModel, Model, ModelError, ModelResponseStream, ModelStreamEvent,
};
pub use provider_kind::{check_base_url, ProviderKind};
pub use recorded::RecordedRequest;
pub use request_notice::{RequestNotice, RequestNoticeKind};
pub use schema_compat::{
    adapt_schema, check_tool_name, AdaptedSchema, SchemaChange, SchemaDialect, SchemaIncompatible,
};
pub use schema_sample::sample_value;
pub use settings::{FinishReason, ModelRequestParameters, ModelSettings, Usage};
pub use test_model::TestModel;
pub use tool_call::{ToolCallArguments, ToolCallPart};
pub(crate) use tool_return::from_name;
pub use tool_return::{ToolReturnKind, ToolReturnPart};
