//! Timeouts, retries and allowed hosts of a model client.

use std::time::Duration;

use super::{HostPolicy, RetryPolicy};

/// How a model client talks HTTP: its timeouts, its retry policy and the hosts it may reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpOptions {
    /// Longest time to open a connection.
    pub connect_timeout: Duration,
    /// Longest time one attempt may take, from sending to the last byte of the answer
    /// (a streamed answer included).
    pub timeout: Duration,
    /// Which failures are tried again, how often and how long.
    pub retry: RetryPolicy,
    /// Hosts requests may go to.
    pub hosts: HostPolicy,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(600),
            retry: RetryPolicy::default(),
            hosts: HostPolicy::from_env(),
        }
    }
}

impl HttpOptions {
    /// These options with another connect timeout.
    #[must_use]
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// These options with another per-attempt timeout.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// These options with another retry policy.
    #[must_use]
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// These options with another host policy.
    #[must_use]
    pub fn with_hosts(mut self, hosts: HostPolicy) -> Self {
        self.hosts = hosts;
        self
    }
}
