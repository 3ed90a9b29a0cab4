//! `type: mcp` entries to toolsets. [`mcp_toolset`] is the one place an entry becomes an MCP
//! client toolset; [`host_values`] reads the host variables an entry names (`env_from`,
//! `headers_from_env`) at load time, never at check time, so a manifest checks on a machine
//! without the secrets.
//!
//! A host that must not start servers (`starweaver check --explain`) gives the loader its own
//! builder ([`super::LoadOptions::with_mcp`]), which makes a stand-in instead.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use starweaver_core::tools::DynToolset;

use super::LoadError;
use crate::manifest::McpToolsetSpec;

/// Builds the toolset of one `type: mcp` entry from the entry and the manifest's folder (the
/// folder `cwd` is relative to). [`mcp_toolset`] unless a host gives its own.
pub type McpBuilder =
    Arc<dyn Fn(&McpToolsetSpec, &Path) -> Result<DynToolset, LoadError> + Send + Sync>;

/// The MCP client toolset of `spec`, whose `cwd` is relative to the manifest's folder
/// `base_dir`. Building it starts nothing: the server starts when the toolset enters a run.
///
/// THE WIRING POINT to the MCP client: this build has no MCP client, so every entry is
/// [`LoadError::McpNotBuilt`]. With the client, this function resolves the entry with
/// [`host_values`] (`env_from` into the program's environment beside `env`,
/// `headers_from_env` into headers), [`McpToolsetSpec::cwd_in`], the two timeouts and
/// [`super::sandbox_policy_of`], and returns the client's toolset; the prefix, the name mapping
/// and approvals (`destructive` needs the server's annotations) are the client's, so the
/// loader wraps nothing around it.
///
/// # Errors
/// [`LoadError::McpNotBuilt`] in a build without the MCP client; with it,
/// [`LoadError::HostVariable`] for a variable `env_from` or `headers_from_env` names that is not
/// set.
pub fn mcp_toolset(spec: &McpToolsetSpec, base_dir: &Path) -> Result<DynToolset, LoadError> {
    let _ = base_dir;
    Err(LoadError::McpNotBuilt {
        name: spec.name.clone(),
    })
}

/// The values of host variables, by the key each is wanted under: `wanted` maps a key (a
/// variable for the program, a header) to the host variable holding its value, and `lookup`
/// reads the host (`std::env::var`, or a test's table). An unset variable stops the load: a
/// server started without its token fails later, with a message about something else.
///
/// ```
/// use starweaver_config::load::host_values;
///
/// let host = |name: &str| (name == "MCP_TOKEN").then(|| "Bearer t0k3n".to_string());
/// let headers = host_values("docs", [("Authorization", "MCP_TOKEN")], host).unwrap();
/// assert_eq!(headers["Authorization"], "Bearer t0k3n");
/// assert!(host_values("docs", [("X-Other", "UNSET")], host).is_err());
/// ```
///
/// # Errors
/// [`LoadError::HostVariable`] naming the first variable that is not set.
pub fn host_values<'a>(
    toolset: &str,
    wanted: impl IntoIterator<Item = (&'a str, &'a str)>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<BTreeMap<String, String>, LoadError> {
    wanted
        .into_iter()
        .map(|(key, variable)| match lookup(variable) {
            Some(value) => Ok((key.to_string(), value)),
            None => Err(LoadError::HostVariable {
                toolset: toolset.to_string(),
                variable: variable.to_string(),
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn this_build_has_no_mcp_client_and_says_so() {
        let spec = McpToolsetSpec {
            name: "everything".into(),
            command: Some("mcp-server-everything".into()),
            ..McpToolsetSpec::default()
        };
        let Err(error) = mcp_toolset(&spec, Path::new(".")) else {
            panic!("an MCP toolset was built without the client");
        };
        let message = error.to_string();
        assert!(message.contains("`everything`"), "{message}");
        assert!(message.contains("no MCP support"), "{message}");
    }

    #[test]
    fn host_values_are_read_by_name_and_an_unset_one_is_named() {
        let host = |name: &str| match name {
            "GITHUB_TOKEN" => Some("ghp_x".to_string()),
            _ => None,
        };
        let env = host_values("gh", [("GITHUB_TOKEN", "GITHUB_TOKEN")], host).unwrap();
        assert_eq!(env["GITHUB_TOKEN"], "ghp_x");
        let error = host_values("gh", [("A", "GITHUB_TOKEN"), ("B", "NOPE")], host)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("`NOPE`") && error.contains("`gh`"),
            "{error}"
        );
    }
}
