//! Provider-neutral message parts. The tool layer uses the tool call and
//! tool return parts; the agent runtime adds the rest of the conversation.

mod tool_call;
mod tool_return;

pub use tool_call::{ToolCallArguments, ToolCallPart};
pub use tool_return::{ToolReturnKind, ToolReturnPart};
