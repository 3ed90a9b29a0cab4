//! What test doubles were sent.

use std::sync::{Mutex, PoisonError};

use super::{ModelMessage, ModelRequestParameters, ModelResponse, ResponsePart, Usage};

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

impl Usage {
    /// The rough usage the offline models report for one request: the words of the
    /// conversation sent as input, the words answered plus five per tool call as output. No
    /// tokenizer is involved, so the counts are deterministic and cost nothing; a host's
    /// scripted or test model reports the same way through this.
    #[must_use]
    pub fn estimated(messages: &[ModelMessage], response: &ModelResponse) -> Self {
        let words = |text: &str| text.split_whitespace().count() as u64;
        let sent = serde_json::to_string(messages).unwrap_or_default();
        let answered = response
            .parts
            .iter()
            .map(|part| match part {
                ResponsePart::Text(text) => words(&text.content),
                ResponsePart::ToolCall(_) => 5,
            })
            .sum();
        Self {
            requests: 1,
            input_tokens: words(&sent),
            output_tokens: answered,
            tool_calls: 0,
        }
    }
}
