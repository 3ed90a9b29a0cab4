//! Turning what a function returns into a tool result: the conversions
//! the `#[starweaver::tool]` expansion calls, one per return form.

use serde::Serialize;

use crate::tools::{ToolError, ToolResult};

/// A `Result<T, E>` return: the success's content is `T` serialized as
/// itself (a `Vec<String>` is the JSON array); the error converts into a
/// [`ToolError`], so `ModelRetry` and `Feedback` pass through.
///
/// # Errors
/// The function's error, or [`ToolError::Execution`] when `T` does not
/// serialize.
pub fn output_of_result<T: Serialize, E: Into<ToolError>>(
    result: Result<T, E>,
) -> Result<ToolResult, ToolError> {
    output_of_value(result.map_err(Into::into)?)
}

/// A plain `T` return, serialized as itself.
///
/// # Errors
/// [`ToolError::Execution`] when `T` does not serialize.
pub fn output_of_value<T: Serialize>(value: T) -> Result<ToolResult, ToolError> {
    serde_json::to_value(value)
        .map(ToolResult::new)
        .map_err(ToolError::execution_caused_by)
}

/// A `Result<ToolResult, E>` return: the success is used as it is (not
/// serialized into another result's content), the error converts.
///
/// # Errors
/// The function's error, converted.
pub fn output_of_result_tool_result<E: Into<ToolError>>(
    result: Result<ToolResult, E>,
) -> Result<ToolResult, ToolError> {
    result.map_err(Into::into)
}

/// A [`ToolResult`] return, used as it is.
///
/// # Errors
/// Never; the signature matches the other forms.
pub fn output_of_tool_result(result: ToolResult) -> Result<ToolResult, ToolError> {
    Ok(result)
}

/// Runs a synchronous tool body on the blocking pool, so it never holds
/// one of the runtime's worker threads.
///
/// # Errors
/// [`ToolError::Execution`] when the body panicked (the panic message is
/// kept) or the runtime shut down.
pub async fn run_blocking<T, F>(body: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    tokio::task::spawn_blocking(body).await.map_err(|error| {
        let message = if error.is_panic() {
            let payload = error.into_panic();
            crate::tools::panic_guard::panic_text(payload.as_ref())
        } else {
            "the runtime shut down before the tool finished".to_string()
        };
        ToolError::execution(message)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_content_is_the_value_itself() {
        let result = output_of_result::<_, ToolError>(Ok(vec!["a".to_string()]))
            .unwrap_or_else(|_| unreachable!());
        assert_eq!(result.content, serde_json::json!(["a"]));
        let retry = output_of_result::<(), _>(Err(ToolError::model_retry("again")));
        assert!(matches!(retry, Err(ToolError::ModelRetry { .. })));
        assert_eq!(
            output_of_value(3).map(|r| r.content).ok(),
            Some(serde_json::json!(3))
        );
    }
}
