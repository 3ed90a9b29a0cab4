//! Tool-call arguments nested too deeply to keep. A provider adapter or
//! a host model can hand the run loop a `serde_json::Value` of any depth;
//! cloning, serializing or dropping one recurses once per level, so the
//! run loop drops such arguments (without recursion) as soon as the
//! response arrives, before anything copies it into the history.

use serde_json::Value;

use crate::bounds::{drop_deep, exceeds_depth};
use crate::model::{ModelResponse, ResponsePart, ToolCallArguments, ToolCallPart};

/// Replaces every call's arguments that nest more than `max_depth`
/// levels with a string saying so. The call still gets a return: the
/// registry refuses a string as arguments and quotes it, so the model
/// learns what happened and can send a flatter object.
pub(crate) fn drop_deep_arguments(response: &mut ModelResponse, max_depth: usize) {
    for part in &mut response.parts {
        let ResponsePart::ToolCall(call) = part else {
            continue;
        };
        let ToolCallArguments::Json(arguments) = &mut call.arguments else {
            continue;
        };
        if exceeds_depth(arguments, max_depth) {
            let marker = Value::String(format!(
                "arguments dropped by the runtime: they nested more than {max_depth} levels deep"
            ));
            drop_deep(std::mem::replace(arguments, marker));
        }
    }
}

/// Drops a call whose arguments may be of any depth.
pub(crate) fn discard_call(call: ToolCallPart) {
    if let ToolCallArguments::Json(arguments) = call.arguments {
        drop_deep(arguments);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deep(depth: usize) -> Value {
        let mut value = Value::Null;
        for _ in 0..depth {
            value = Value::Array(vec![value]);
        }
        value
    }

    #[test]
    fn only_deep_arguments_are_replaced() {
        let mut wide = serde_json::Map::new();
        wide.insert("value".to_string(), deep(200_000));
        let mut response = ModelResponse::tool_calls([
            ToolCallPart::new("a", "t", Value::Object(wide)),
            ToolCallPart::new("b", "t", serde_json::json!({"ok": [1]})),
        ]);
        drop_deep_arguments(&mut response, 128);
        let calls: Vec<&ToolCallPart> = response.calls().collect();
        assert!(calls[0]
            .arguments
            .as_json()
            .and_then(Value::as_str)
            .is_some_and(|text| text.contains("128 levels")));
        assert_eq!(
            calls[1].arguments.as_json(),
            Some(&serde_json::json!({"ok": [1]}))
        );
        discard_call(ToolCallPart::new("c", "t", deep(200_000)));
    }
}
