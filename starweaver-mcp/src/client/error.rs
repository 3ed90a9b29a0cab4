//! Why a server could not be started, reached or used.

use std::time::Duration;

/// What went wrong with an MCP server. The messages name the server's
/// toolset and end with the tail of its stderr where it has one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The program could not be started at all.
    #[error("MCP server `{toolset}`: could not start `{command}`: {source}")]
    Spawn {
        /// The toolset's name.
        toolset: String,
        /// The command as given.
        command: String,
        /// Why not.
        #[source]
        source: std::io::Error,
    },
    /// The server's process ended.
    #[error("MCP server `{toolset}` {status}{}", tail(.stderr))]
    Exited {
        /// The toolset's name.
        toolset: String,
        /// `exited with status N` or `was killed by signal N`.
        status: String,
        /// The end of what it wrote to stderr.
        stderr: String,
    },
    /// Starting, `initialize` and the first tool list took too long.
    #[error(
        "MCP server `{toolset}` did not finish starting (initialize and tools/list) within {} ms{}",
        .timeout.as_millis(),
        tail(.stderr)
    )]
    StartupTimeout {
        /// The toolset's name.
        toolset: String,
        /// The bound that passed.
        timeout: Duration,
        /// The end of what it wrote to stderr.
        stderr: String,
    },
    /// The connection failed: a refused handshake, a closed transport,
    /// an HTTP error, an unexpected answer.
    #[error("MCP server `{toolset}`: {message}{}", tail(.stderr))]
    Protocol {
        /// The toolset's name.
        toolset: String,
        /// What happened.
        message: String,
        /// The end of what it wrote to stderr (empty for HTTP).
        stderr: String,
    },
    /// Two of the server's tools map to one provider name.
    #[error(
        "MCP server `{toolset}`: tools `{first}` and `{second}` both map to `{mapped}`; \
         offer only one of them (`tools:`) or rename one on the server"
    )]
    NameCollision {
        /// The toolset's name.
        toolset: String,
        /// The tool that took the name first.
        first: String,
        /// The tool that maps to it too.
        second: String,
        /// The name both map to.
        mapped: String,
    },
    /// `tools:` names a tool the server does not list.
    #[error(
        "MCP server `{toolset}` has no tool `{missing}`; it lists: {}",
        .available.join(", ")
    )]
    MissingTool {
        /// The toolset's name.
        toolset: String,
        /// The name that is not there.
        missing: String,
        /// What the server lists (bounded).
        available: Vec<String>,
    },
    /// The spec cannot be used as given (a URL that is not http(s), a
    /// header that is not valid HTTP, a sandbox that cannot be set up).
    #[error("MCP server `{toolset}`: {message}")]
    Invalid {
        /// The toolset's name.
        toolset: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The server failed too often: the toolset is unavailable for the
    /// rest of its life.
    #[error("MCP server `{toolset}` is unavailable after {restarts} restarts: {last}")]
    Unavailable {
        /// The toolset's name.
        toolset: String,
        /// Restarts tried.
        restarts: u32,
        /// The last failure.
        last: String,
    },
}

/// ``; its stderr ends with: ...`` when there is a tail.
fn tail(stderr: &str) -> String {
    let trimmed = stderr.trim_end();
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("; its stderr ends with:\n{trimmed}")
    }
}
