//! Request settings, usage and finish reasons.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::ToolDefinition;
use crate::JsonMap;

/// Sampling and length settings; `None` leaves the provider default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Most output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Sampling seed, for providers that offer repeatable sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Provider-specific extras.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub extra: JsonMap,
}

impl ModelSettings {
    /// Settings from `other` override these where set.
    #[must_use]
    pub fn merged(&self, other: &Self) -> Self {
        let mut extra = self.extra.clone();
        extra.extend(other.extra.clone());
        Self {
            temperature: other.temperature.or(self.temperature),
            top_p: other.top_p.or(self.top_p),
            max_tokens: other.max_tokens.or(self.max_tokens),
            stop: if other.stop.is_empty() {
                self.stop.clone()
            } else {
                other.stop.clone()
            },
            seed: other.seed.or(self.seed),
            extra,
        }
    }
}

/// What a model sees besides the messages.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelRequestParameters {
    /// Tools the model may call, shared with the registry that prepared
    /// them (a request does not copy their schemas).
    pub tools: Vec<Arc<ToolDefinition>>,
    /// System instructions, in order.
    pub instructions: Vec<String>,
    /// Settings.
    pub settings: ModelSettings,
}

/// Tokens and requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    /// Model requests.
    pub requests: u64,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Tool calls executed.
    pub tool_calls: u64,
}

impl Usage {
    /// Adds another usage to this one.
    pub fn add(&mut self, other: &Self) {
        // Counters saturate: a provider reporting absurd numbers must not
        // crash the run.
        self.requests = self.requests.saturating_add(other.requests);
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.tool_calls = self.tool_calls.saturating_add(other.tool_calls);
    }
}

/// Why a model stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// Natural end.
    Stop,
    /// The model called tools.
    ToolCalls,
    /// The token limit was reached.
    Length,
    /// A content filter stopped the model.
    ContentFilter,
    /// The provider reported an error.
    Error,
}
