//! What test doubles were sent.

use std::sync::{Mutex, PoisonError};

use super::{ModelMessage, ModelRequestParameters};

/// One request a test double received.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRequest {
    /// The conversation as sent.
    pub messages: Vec<ModelMessage>,
    /// Tools, instructions and settings as sent.
    pub parameters: ModelRequestParameters,
}

/// Thread-safe log of requests.
#[derive(Debug, Default)]
pub(crate) struct RequestLog(Mutex<Vec<RecordedRequest>>);

impl RequestLog {
    /// Records a request and returns its 0-based index.
    pub(crate) fn record(
        &self,
        messages: &[ModelMessage],
        parameters: &ModelRequestParameters,
    ) -> usize {
        let mut log = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        log.push(RecordedRequest {
            messages: messages.to_vec(),
            parameters: parameters.clone(),
        });
        log.len() - 1
    }

    pub(crate) fn all(&self) -> Vec<RecordedRequest> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Rough token count for test doubles: whitespace-separated words.
pub(crate) fn word_count(messages: &[ModelMessage]) -> u64 {
    let text = serde_json::to_string(messages).unwrap_or_default();
    text.split_whitespace().count() as u64
}
