//! The model providers this framework speaks to, and what each accepts. The clients live in
//! their own crate (`starweaver-providers`); these facts stay here, so `check` knows every
//! provider's rules even in a build without its client.

/// A model provider's wire protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    /// OpenAI Chat Completions, also spoken by compatible servers (Ollama, vLLM, llama.cpp's
    /// server, LM Studio, OpenRouter) through a base URL.
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

/// Settings every provider takes: the typed fields of `ModelSettings`.
const COMMON_SETTINGS: [&str; 4] = ["temperature", "top_p", "max_tokens", "stop"];

impl ProviderKind {
    /// Every provider, in documentation order.
    pub const ALL: [Self; 2] = [Self::OpenAi, Self::Anthropic];

    /// The provider a model id names, and the provider's own model name: `openai:gpt-4o` is
    /// `(OpenAi, "gpt-4o")`. `None` for other ids (and for an empty model name).
    #[must_use]
    pub fn from_model_id(id: &str) -> Option<(Self, &str)> {
        let (prefix, model) = id.split_once(':')?;
        let kind = Self::ALL.into_iter().find(|kind| kind.prefix() == prefix)?;
        (!model.trim().is_empty()).then_some((kind, model))
    }

    /// The model id prefix (`openai`).
    #[must_use]
    pub const fn prefix(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
        }
    }

    /// The provider's name in messages.
    #[must_use]
    pub const fn display_name(self) -> &'static str {
        match self {
            Self::OpenAi => "OpenAI Chat Completions",
            Self::Anthropic => "Anthropic Messages",
        }
    }

    /// The cargo feature (of the `starweaver` facade and the config crate) that builds this
    /// provider's client.
    #[must_use]
    pub const fn feature(self) -> &'static str {
        self.prefix()
    }

    /// The variable the key is read from unless the manifest names another.
    #[must_use]
    pub const fn default_api_key_variable(self) -> &'static str {
        match self {
            Self::OpenAi => "OPENAI_API_KEY",
            Self::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// The provider's own endpoint, used when no base URL is given.
    #[must_use]
    pub const fn default_base_url(self) -> &'static str {
        match self {
            Self::OpenAi => "https://api.openai.com/v1",
            Self::Anthropic => "https://api.anthropic.com/v1",
        }
    }

    /// Settings this provider takes besides the common ones, passed through as given.
    #[must_use]
    pub const fn extra_settings(self) -> &'static [&'static str] {
        match self {
            Self::OpenAi => &[
                "seed",
                "frequency_penalty",
                "presence_penalty",
                "parallel_tool_calls",
                "reasoning_effort",
                "verbosity",
                "service_tier",
                "user",
                "logit_bias",
            ],
            Self::Anthropic => &["top_k", "parallel_tool_calls", "service_tier"],
        }
    }

    /// Whether `setting` is one this provider takes.
    #[must_use]
    pub fn takes_setting(self, setting: &str) -> bool {
        COMMON_SETTINGS.contains(&setting) || self.extra_settings().contains(&setting)
    }

    /// Every setting this provider takes, for help texts.
    #[must_use]
    pub fn settings(self) -> Vec<&'static str> {
        COMMON_SETTINGS
            .iter()
            .chain(self.extra_settings())
            .copied()
            .collect()
    }
}

/// Whether `url` can be a provider's base URL: `http://` or `https://`, a host, no spaces,
/// no query or fragment (the protocol's path is appended to it).
///
/// # Errors
/// What is wrong with the URL.
pub fn check_base_url(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| "it must start with `http://` or `https://`".to_string())?;
    let host = rest.split(['/', ':']).next().unwrap_or_default();
    if host.is_empty() || host.starts_with('[') && !rest.contains(']') {
        return Err("it names no host".to_string());
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("it holds spaces or control characters".to_string());
    }
    if url.contains(['?', '#']) {
        return Err(
            "it holds a query or fragment; give the URL up to the API's version path".to_string(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids_name_a_provider_and_a_model() {
        assert_eq!(
            ProviderKind::from_model_id("openai:gpt-4o"),
            Some((ProviderKind::OpenAi, "gpt-4o"))
        );
        assert_eq!(
            ProviderKind::from_model_id("anthropic:claude-sonnet-4-5"),
            Some((ProviderKind::Anthropic, "claude-sonnet-4-5"))
        );
        assert_eq!(
            ProviderKind::from_model_id("openai:org/model:tag"),
            Some((ProviderKind::OpenAi, "org/model:tag"))
        );
        for id in ["test", "openai:", "gemini:x", "openai: "] {
            assert_eq!(ProviderKind::from_model_id(id), None, "{id}");
        }
    }

    #[test]
    fn base_urls_need_a_scheme_and_a_host() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "https://api.example.com/v1/",
            "http://[::1]:9/v1",
            "http://localhost",
        ] {
            assert_eq!(check_base_url(url), Ok(()), "{url}");
        }
        for url in [
            "127.0.0.1:8080",
            "ftp://x",
            "http://",
            "http:///v1",
            "http://a b",
            "http://h/v1?x=1",
        ] {
            assert!(check_base_url(url).is_err(), "{url}");
        }
    }

    #[test]
    fn seed_is_an_openai_setting_only() {
        assert!(ProviderKind::OpenAi.takes_setting("seed"));
        assert!(!ProviderKind::Anthropic.takes_setting("seed"));
        assert!(ProviderKind::Anthropic.takes_setting("top_k"));
        assert!(ProviderKind::Anthropic.takes_setting("temperature"));
    }
}
