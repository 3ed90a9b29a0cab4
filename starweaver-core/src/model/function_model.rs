//! A model whose answers come from a function, for tests.

use std::sync::Arc;

use super::recorded::RequestLog;
use super::{
    Model, ModelError, ModelMessage, ModelRequestParameters, ModelResponse, RecordedRequest,
};
use crate::BoxFuture;

type Respond = Arc<
    dyn Fn(&[ModelMessage], &ModelRequestParameters) -> Result<ModelResponse, ModelError>
        + Send
        + Sync,
>;

/// Answers every request by calling a function of the conversation and
/// the request parameters. Records what it was sent.
pub struct FunctionModel {
    name: String,
    respond: Respond,
    log: RequestLog,
}

impl std::fmt::Debug for FunctionModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionModel")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl FunctionModel {
    /// A model named `function` answering with `respond`.
    pub fn new<F>(respond: F) -> Self
    where
        F: Fn(&[ModelMessage], &ModelRequestParameters) -> Result<ModelResponse, ModelError>
            + Send
            + Sync
            + 'static,
    {
        Self {
            name: "function".to_string(),
            respond: Arc::new(respond),
            log: RequestLog::default(),
        }
    }

    /// Renames the model.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Requests received so far.
    #[must_use]
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.log.all()
    }
}

impl Model for FunctionModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn request<'a>(
        &'a self,
        messages: &'a [ModelMessage],
        parameters: &'a ModelRequestParameters,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async move {
            self.log.record(messages, parameters);
            let mut response = (self.respond)(messages, parameters)?;
            response.usage.requests = response.usage.requests.max(1);
            response.model_name.get_or_insert_with(|| self.name.clone());
            Ok(response)
        })
    }
}
