//! `model:`: which model, where, with which settings.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The model section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// `test` (the embedded model), `openai:<model>` or
    /// `anthropic:<model>`.
    #[schemars(example = &"test")]
    pub id: String,
    /// Base URL of an OpenAI-compatible server. Unset: the provider's own
    /// endpoint. The `test` model makes no requests and refuses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"http://localhost:8000/v1")]
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key, never the key
    /// itself (a manifest is committed; a key must not be). Unset: the
    /// provider's usual variable. The `test` model refuses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"OPENAI_API_KEY")]
    pub api_key_env: Option<String>,
    /// Request settings: `temperature` and `top_p` (numbers), `max_tokens`
    /// (a whole number), `stop` (a string or a list); any other key (such
    /// as `seed`) is passed to the model as is. Unset: the model's defaults.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(example = serde_json::json!({"temperature": 0.2, "max_tokens": 2048}))]
    pub settings: BTreeMap<String, serde_json::Value>,
}
