//! The builder methods every provider client shares, written once: a client is a struct with
//! an `endpoint: Endpoint` field, and this macro gives it `with_base_url`, `with_api_key_env`,
//! `with_api_key`, `with_http_options` and `with_streaming`.

/// Implements the shared builders on `$client`; `$path` is the protocol's path after the base
/// URL and `$variable` the key's usual variable, both for the docs.
macro_rules! client_builders {
    ($client:ty, $path:literal, $variable:literal) => {
        impl $client {
            #[doc = concat!("Another server speaking the protocol: the URL before `", $path, "`")]
            /// (`http://localhost:11434/v1`).
            #[must_use]
            pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
                self.endpoint.base_url = base_url.into();
                self
            }

            #[doc = concat!("Reads the key from this variable instead of `", $variable, "`.")]
            #[must_use]
            pub fn with_api_key_env(mut self, variable: impl Into<String>) -> Self {
                self.endpoint.key = $crate::model::http::ApiKey::Variable(variable.into());
                self
            }

            /// Uses this key (never printed, never put in errors).
            #[must_use]
            pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
                self.endpoint.key = $crate::model::http::ApiKey::Value(key.into());
                self
            }

            /// Timeouts, retries and allowed hosts.
            #[must_use]
            pub fn with_http_options(mut self, options: $crate::model::http::HttpOptions) -> Self {
                self.endpoint.set_http_options(options);
                self
            }

            /// Whether streamed runs ask for a streamed answer (the default) or one whole
            /// answer.
            #[must_use]
            pub fn with_streaming(mut self, streaming: bool) -> Self {
                self.endpoint.streaming = streaming;
                self
            }
        }
    };
}

pub(crate) use client_builders;
