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
/// `env_from` and `headers_from_env` are read from the host here ([`host_values`]); the prefix,
/// the name mapping and approvals (`destructive` needs the server's annotations) are the
/// client's, so the loader wraps nothing around it.
///
/// # Errors
/// [`LoadError::McpNotBuilt`] in a build without the MCP client;
/// [`LoadError::HostVariable`] for a variable `env_from` or `headers_from_env` names that is not
/// set; [`LoadError::McpTransport`] for an entry that names both or neither of `command` and
/// `url` (the checker refuses such a manifest, so only a host building unchecked entries meets
/// it).
#[cfg(feature = "mcp")]
pub fn mcp_toolset(spec: &McpToolsetSpec, base_dir: &Path) -> Result<DynToolset, LoadError> {
    use crate::manifest::{McpApprovalRequired, McpTransportSpec};
    use starweaver_mcp::client::{McpApproval, McpServerSpec, McpToolset, McpTransport};

    let host = |name: &str| std::env::var(name).ok();
    let transport = match spec.transport() {
        Some(McpTransportSpec::Stdio { command }) => {
            let mut env = spec.env.clone();
            let passed = spec
                .env_from
                .iter()
                .map(|name| (name.as_str(), name.as_str()));
            env.extend(host_values(&spec.name, passed, host)?);
            McpTransport::Stdio {
                command: command.to_string(),
                args: spec.args.clone(),
                env,
                cwd: spec.cwd_in(base_dir),
            }
        }
        Some(McpTransportSpec::Http { url }) => {
            let wanted = spec
                .headers_from_env
                .iter()
                .map(|(header, variable)| (header.as_str(), variable.as_str()));
            McpTransport::Http {
                url: url.to_string(),
                headers: host_values(&spec.name, wanted, host)?,
            }
        }
        None => {
            return Err(LoadError::McpTransport {
                name: spec.name.clone(),
            })
        }
    };
    let approval = match &spec.approval_required {
        McpApprovalRequired::All(false) => McpApproval::Never,
        McpApprovalRequired::All(true) => McpApproval::All,
        McpApprovalRequired::Tools(tools) if tools.is_empty() => McpApproval::Never,
        McpApprovalRequired::Tools(tools) => McpApproval::Tools(tools.clone()),
        McpApprovalRequired::Annotated(_) => McpApproval::Destructive,
    };
    let mut server = McpServerSpec::new(spec.name.clone(), transport)
        .with_approval(approval)
        .with_startup_timeout(spec.startup_timeout())
        .with_call_timeout(spec.call_timeout());
    if let Some(tools) = &spec.tools {
        server = server.with_tools(tools.iter().cloned());
    }
    if let Some(prefix) = &spec.prefix {
        server = server.with_prefix(prefix.clone());
    }
    if let Some(sandbox) = &spec.sandbox {
        server = server.with_sandbox(super::sandbox_policy_of(Some(sandbox)));
    }
    Ok(Arc::new(McpToolset::new(server)))
}

/// In a build without the MCP client every `type: mcp` entry is [`LoadError::McpNotBuilt`].
///
/// # Errors
/// Always [`LoadError::McpNotBuilt`].
#[cfg(not(feature = "mcp"))]
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

    #[cfg(not(feature = "mcp"))]
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
