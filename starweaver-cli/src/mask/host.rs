//! The values an MCP toolset takes from the host (`env_from`, `headers_from_env`) are secrets
//! whatever their names: they are passed by name precisely so that they stay out of the
//! manifest, and a server is free to echo them in its stderr, its tool descriptions or its
//! results. A run and `starweaver tools` mask them like secret variables.

use starweaver_config::manifest::{Manifest, ToolsetSpec};

/// The `(variable, value)` pairs the manifest's `type: mcp` toolsets read from the host, each
/// read with `lookup` (`std::env::var`, or a test's table); an unset variable is left out (the
/// loader refuses it before any server starts).
#[must_use]
pub fn mcp_host_values(
    manifest: &Manifest,
    lookup: impl Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    manifest
        .toolsets
        .iter()
        .filter_map(|toolset| match toolset {
            ToolsetSpec::Mcp(spec) => Some(spec),
            _ => None,
        })
        .flat_map(|spec| {
            spec.env_from
                .iter()
                .chain(spec.headers_from_env.values())
                .cloned()
        })
        .filter_map(|variable| lookup(&variable).map(|value| (variable, value)))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn env_from_and_header_variables_are_read_whatever_their_names() {
        let yaml = "version: 1
name: servers
model: {id: test}
toolsets:
  - type: mcp
    name: local
    command: server
    env: {LOG_LEVEL: info}
    env_from: [PLAIN_SETTING, UNSET_ONE]
  - type: mcp
    name: remote
    url: 'http://127.0.0.1:9/mcp'
    headers_from_env: {Authorization: REMOTE_AUTH}
";
        let context = starweaver_config::validate::CheckContext::new();
        let (found, checked) =
            starweaver_config::validate::check_manifest(yaml.as_bytes(), &context);
        let manifest = checked
            .unwrap_or_else(|| panic!("{found:?}"))
            .manifest()
            .clone();
        let host = |name: &str| match name {
            "PLAIN_SETTING" => Some("value one".to_string()),
            "REMOTE_AUTH" => Some("Bearer two".to_string()),
            "LOG_LEVEL" => Some("from the host".to_string()),
            _ => None,
        };
        assert_eq!(
            mcp_host_values(&manifest, host),
            [
                ("PLAIN_SETTING".to_string(), "value one".to_string()),
                ("REMOTE_AUTH".to_string(), "Bearer two".to_string()),
            ]
        );
    }
}
