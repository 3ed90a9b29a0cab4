//! `model:`: which model, where, with which settings.

use std::collections::BTreeMap;
use std::num::NonZeroU64;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The model section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// `test` (the embedded model), `script` (plays the turns of the file `script` names),
    /// `openai:<model>` (OpenAI Chat Completions, and servers that speak it through
    /// `base_url`) or `anthropic:<model>` (Anthropic Messages).
    #[schemars(example = &"test")]
    pub id: String,
    /// The file of turns the `script` model plays, relative to the manifest's folder and
    /// inside it: each turn is `calls: [{tool, args}]` or `answer: TEXT`, and an answer or a
    /// string argument can quote what earlier calls returned (`{{ calls[0].result }}`). CI
    /// can then run an agent's tools end to end with no network (the format is in
    /// docs/models.md). Unset: no script; `id: script` needs one, and any other id refuses
    /// it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"repo-helper.script.yaml")]
    pub script: Option<String>,
    /// Base URL of a server speaking the provider's protocol (for `openai:`, an
    /// OpenAI-compatible server such as Ollama, vLLM or LM Studio), up to but not including
    /// `/chat/completions` or `/messages`. Unset: the provider's own endpoint. The `test`
    /// and `script` models make no requests and refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"http://localhost:8000/v1")]
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key, never the key
    /// itself (a manifest is committed; a key must not be). Unset: the
    /// provider's usual variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`). The `test` and
    /// `script` models refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"OPENAI_API_KEY")]
    pub api_key_env: Option<String>,
    /// Request settings: `temperature` and `top_p` (numbers), `max_tokens` (a whole
    /// number), `stop` (a string or a list) for every provider; `seed` (a whole number),
    /// `frequency_penalty`, `presence_penalty`, `parallel_tool_calls`, `reasoning_effort`,
    /// `verbosity`, `service_tier`, `user` and `logit_bias` for `openai:`; `top_k`,
    /// `parallel_tool_calls` and `service_tier` for `anthropic:`. A setting the provider does
    /// not have is an error; one a given model refuses is left out of the request with a
    /// reason in the run's events. The `test` and `script` models ignore settings. Unset: the
    /// model's defaults.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(example = serde_json::json!({"temperature": 0.2, "max_tokens": 2048}))]
    pub settings: BTreeMap<String, serde_json::Value>,
    /// Whether answers are streamed as they are written (`true`, the default) or
    /// requested whole. Unset: streamed. The `test` and `script` models refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &false)]
    pub stream: Option<bool>,
    /// Longest time one request may take, the whole streamed answer included, in
    /// milliseconds. Unset: 600000 (10 minutes). The `test` and `script` models refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &120000)]
    pub timeout_ms: Option<NonZeroU64>,
    /// Longest time to open a connection, in milliseconds. Unset: 10000. The `test` and
    /// `script` models refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &5000)]
    pub connect_timeout_ms: Option<NonZeroU64>,
    /// Retries of a request the provider refused for now (rate limit, overload, a server
    /// error) or that could not connect; a request that timed out or broke mid-answer is
    /// never sent again, since it may have been billed. Unset: 3. The `test` and `script`
    /// models refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &3)]
    pub max_retries: Option<u32>,
    /// Total time the attempts and the waits between them may take, in milliseconds; a
    /// retry that would wait past it (the server's `retry-after` included) is not made.
    /// Unset: 120000. The `test` and `script` models refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &60000)]
    pub retry_budget_ms: Option<NonZeroU64>,
}

impl ModelSpec {
    /// The keys that only a provider's client uses; the `test` and `script` models make no
    /// requests and refuse them.
    pub const CLIENT_KEYS: [&'static str; 7] = [
        "base_url",
        "api_key_env",
        "stream",
        "timeout_ms",
        "connect_timeout_ms",
        "max_retries",
        "retry_budget_ms",
    ];
}
