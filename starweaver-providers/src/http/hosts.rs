//! Which hosts a model client may reach: every host, or only the listed ones (loopback in
//! tests, an egress allowlist on a platform).

use std::net::IpAddr;

/// Environment variable that restricts the hosts model clients may reach: `loopback`, or a
/// comma-separated list of host names (where `loopback` may be one entry). Unset: any host.
pub const MODEL_HOSTS_VARIABLE: &str = "STARWEAVER_MODEL_HOSTS";

/// The hosts a model client may send requests to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum HostPolicy {
    /// Any host.
    #[default]
    Any,
    /// Only these host names; the entry `loopback` stands for `localhost`, `127.0.0.0/8` and `::1`.
    Only(Vec<String>),
}

impl HostPolicy {
    /// Loopback addresses only: what tests use so a forgotten `base_url` fails at once
    /// instead of reaching a real provider.
    #[must_use]
    pub fn loopback() -> Self {
        Self::Only(vec!["loopback".to_string()])
    }

    /// The policy [`MODEL_HOSTS_VARIABLE`] asks for.
    #[must_use]
    pub fn from_env() -> Self {
        match std::env::var(MODEL_HOSTS_VARIABLE) {
            Ok(text) if !text.trim().is_empty() => Self::Only(
                text.split(',')
                    .map(|host| host.trim().to_ascii_lowercase())
                    .filter(|host| !host.is_empty())
                    .collect(),
            ),
            _ => Self::Any,
        }
    }

    /// Whether `host` (as it appears in a URL, IPv6 in brackets or not) may be reached.
    #[must_use]
    pub fn allows(&self, host: &str) -> bool {
        let Self::Only(allowed) = self else {
            return true;
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        allowed.iter().any(|entry| {
            if entry == "loopback" {
                host.eq_ignore_ascii_case("localhost")
                    || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
            } else {
                entry.eq_ignore_ascii_case(host)
            }
        })
    }

    /// The allowed hosts, for an error message.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Self::Any => "any host".to_string(),
            Self::Only(hosts) => hosts.join(", "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_allows_only_local_addresses() {
        let policy = HostPolicy::loopback();
        for host in ["127.0.0.1", "127.9.0.1", "localhost", "[::1]", "::1"] {
            assert!(policy.allows(host), "{host}");
        }
        for host in ["api.openai.com", "10.0.0.1", "localhost.evil.com", "[::2]"] {
            assert!(!policy.allows(host), "{host}");
        }
        assert!(HostPolicy::Any.allows("api.openai.com"));
        let listed = HostPolicy::Only(vec!["api.anthropic.com".to_string()]);
        assert!(listed.allows("API.anthropic.com"));
        assert!(!listed.allows("127.0.0.1"));
    }
}
