//! What fails before any request: a key variable that is not set, and a
//! host the host policy does not allow (a model left on the provider's
//! own endpoint under the loopback policy the tests use).

use starweaver::model::{ModelError, ModelSettings};
use starweaver::AgentError;

use super::{patiently, project, Provider, Setup, PROMPT};
use crate::common::loopback::LoopbackServer;

/// A variable no test sets.
const UNSET: &str = "STARWEAVER_TEST_UNSET_VAR";

#[tokio::test]
async fn a_missing_key_variable_fails_before_any_request_naming_it() {
    assert!(std::env::var_os(UNSET).is_none(), "{UNSET} must stay unset");
    for provider in Provider::ALL {
        for streamed in [false, true] {
            let server = LoopbackServer::start(vec![provider.json("final")]);
            let model = Setup::new(provider, &server)
                .streaming(streamed)
                .key_from(UNSET)
                .build();
            let mut workspace = project(model, ModelSettings::default());
            let result = if streamed {
                patiently(workspace.session.run_stream(PROMPT))
                    .await
                    .map(|_| ())
            } else {
                patiently(workspace.session.run(PROMPT)).await.map(|_| ())
            };
            let error = result.unwrap_err();
            match &error {
                AgentError::Model(ModelError::ApiKeyMissing { variable, model }) => {
                    assert_eq!(variable, UNSET);
                    assert_eq!(model, &format!("{}:{}", provider.dir(), provider.model()));
                }
                other => panic!("{provider:?}: expected ApiKeyMissing, got {other:?}"),
            }
            let message = error.to_string();
            assert!(message.contains(UNSET), "{message}");
            assert!(message.contains("model.api_key_env"), "{message}");
            assert!(server.requests().is_empty());
            assert_eq!(server.connections(), 0);
        }
    }
}

#[tokio::test]
async fn the_host_policy_refuses_the_providers_own_endpoint_under_loopback() {
    for (provider, host) in [
        (Provider::OpenAi, "api.openai.com"),
        (Provider::Anthropic, "api.anthropic.com"),
    ] {
        for streamed in [false, true] {
            let server = LoopbackServer::start(Vec::new());
            let model = Setup::new(provider, &server)
                .streaming(streamed)
                .without_base_url()
                .build();
            let mut workspace = project(model, ModelSettings::default());
            let result = if streamed {
                patiently(workspace.session.run_stream(PROMPT))
                    .await
                    .map(|_| ())
            } else {
                patiently(workspace.session.run(PROMPT)).await.map(|_| ())
            };
            // The refusal comes from the policy, before any connection:
            // not a connect error, not a timeout.
            let error = result.unwrap_err();
            assert!(
                matches!(error, AgentError::Model(ModelError::Request { .. })),
                "{error:?}"
            );
            let message = error.to_string();
            for part in [
                format!("host `{host}` is not allowed"),
                "allowed: loopback".to_string(),
                "STARWEAVER_MODEL_HOSTS".to_string(),
            ] {
                assert!(message.contains(&part), "{provider:?}: {message}");
            }
            assert!(!message.contains("cannot connect"), "{message}");
        }
    }
}
