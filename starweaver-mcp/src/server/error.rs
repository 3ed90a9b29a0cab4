//! Why serving cannot start or stops early.

/// A server that could not start, or whose transport failed. A failed tool call is never one
/// of these: it is a tool error result the client sees.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The agent tool's name is already a served tool's.
    #[error(
        "the agent tool `{name}` has the name of a served tool; rename the tool or serve \
         without --agent"
    )]
    NameCollision {
        /// The name both have.
        name: String,
    },
    /// The HTTP address is not a loopback address and remote clients were not allowed.
    #[error(
        "{addr} is not a loopback address; serve on 127.0.0.1 or [::1], or allow remote \
         clients explicitly (anyone who can reach the port can call every served tool)"
    )]
    NotLoopback {
        /// The address asked for.
        addr: std::net::SocketAddr,
    },
    /// The HTTP address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The client never finished the MCP handshake, or the transport failed.
    #[error("the MCP session failed: {0}")]
    Session(String),
}
