//! What one MCP server is: how to reach it, which of its tools to offer
//! and under which names, which need approval, and how long it may take.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use starweaver_core::environment::SandboxPolicy;
use starweaver_core::BoxFuture;
use tokio::io::{AsyncRead, AsyncWrite};

/// How long a server may take to start, answer `initialize` and list its
/// tools, when the spec names no other bound: 10 s.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one tool call may take, when the spec names no other bound:
/// 60 s.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest JSON-RPC message read from a server: 16 MiB. A larger
/// answer fails the call it answers instead of filling memory; what
/// reaches the model is bounded again by the registry's return limit.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// One MCP server as a toolset: the input [`super::McpToolset::new`]
/// takes. Build it with [`McpServerSpec::stdio`] or [`McpServerSpec::http`]
/// and the `with_*` methods; fields stay public for reading.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct McpServerSpec {
    /// The toolset's name (its id): proxies, tool search and deferred
    /// entries name the toolset by it.
    pub name: String,
    /// How the server is reached.
    pub transport: McpTransport,
    /// The server's own tool names to offer; `None` offers all of them.
    pub tools: Option<Vec<String>>,
    /// Put before every mapped name, joined with `_` (`ev` and `get-sum`
    /// make `ev_get-sum`).
    pub prefix: Option<String>,
    /// Which tools need a human's approval before they run.
    pub approval: McpApproval,
    /// Bound on starting the server, its `initialize` handshake and the
    /// first tool list.
    pub startup_timeout: Duration,
    /// Bound on one tool call; a call past it is cancelled on the server.
    pub call_timeout: Duration,
    /// The kernel sandbox a stdio server starts under; `None` starts it
    /// unconfined, on purpose: most servers need the network and their
    /// caches. HTTP servers are not started here and ignore it.
    pub sandbox: Option<SandboxPolicy>,
    /// The largest JSON-RPC message read from the server
    /// ([`DEFAULT_MAX_MESSAGE_BYTES`]).
    pub max_message_bytes: usize,
}

impl McpServerSpec {
    /// A spec for `name` reached over `transport`, with every default:
    /// all tools, no prefix, no approvals, 10 s to start, 60 s a call, no
    /// sandbox.
    pub fn new(name: impl Into<String>, transport: McpTransport) -> Self {
        Self {
            name: name.into(),
            transport,
            tools: None,
            prefix: None,
            approval: McpApproval::Never,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            sandbox: None,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
        }
    }

    /// A local server started as `command` with `args`, in `cwd`, speaking
    /// over its stdin and stdout.
    pub fn stdio(
        name: impl Into<String>,
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
        cwd: impl Into<PathBuf>,
    ) -> Self {
        Self::new(
            name,
            McpTransport::Stdio {
                command: command.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: BTreeMap::new(),
                cwd: cwd.into(),
            },
        )
    }

    /// A server at a streamable HTTP endpoint.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self::new(
            name,
            McpTransport::Http {
                url: url.into(),
                headers: BTreeMap::new(),
            },
        )
    }

    /// Offers only these tools (the server's own names).
    #[must_use]
    pub fn with_tools(mut self, tools: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Puts `prefix` and `_` before every mapped name.
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Sets which tools need approval.
    #[must_use]
    pub fn with_approval(mut self, approval: McpApproval) -> Self {
        self.approval = approval;
        self
    }

    /// Sets the startup bound.
    #[must_use]
    pub fn with_startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Sets the per-call bound.
    #[must_use]
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// Starts a stdio server under this kernel sandbox.
    #[must_use]
    pub fn with_sandbox(mut self, policy: SandboxPolicy) -> Self {
        self.sandbox = Some(policy);
        self
    }

    /// Sets the largest message read from the server.
    #[must_use]
    pub fn with_max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Adds a variable to a stdio server's environment (over the scrubbed
    /// base the shell uses); ignored for other transports.
    #[must_use]
    pub fn with_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::Stdio { env, .. } = &mut self.transport {
            env.insert(name.into(), value.into());
        }
        self
    }

    /// Adds a header to every HTTP request; ignored for other
    /// transports.
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::Http { headers, .. } = &mut self.transport {
            headers.insert(name.into(), value.into());
        }
        self
    }
}

/// How a server is reached.
#[derive(Clone)]
#[non_exhaustive]
pub enum McpTransport {
    /// A local program, started by the toolset, speaking over its stdin
    /// and stdout; its stderr is kept in a bounded buffer for messages.
    Stdio {
        /// A name looked up on the server's `PATH`, or a path.
        command: String,
        /// Its arguments, passed literally (no shell).
        args: Vec<String>,
        /// Variables set over the scrubbed base environment, values
        /// already resolved.
        env: BTreeMap<String, String>,
        /// The folder it starts in.
        cwd: PathBuf,
    },
    /// A streamable HTTP endpoint (`http://host:port/mcp`).
    Http {
        /// The endpoint's URL, `http` or `https`.
        url: String,
        /// Headers sent with every request, values already resolved.
        headers: BTreeMap<String, String>,
    },
    /// Any byte stream the host opens itself: a server in this process
    /// over a duplex pipe, a socket. Each (re)connection calls the
    /// connector again.
    Stream(McpConnector),
}

impl fmt::Debug for McpTransport {
    /// Header and variable values may be secrets: only their names show.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio {
                command,
                args,
                env,
                cwd,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &env.keys().collect::<Vec<_>>())
                .field("cwd", cwd)
                .finish(),
            Self::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", url)
                .field("headers", &headers.keys().collect::<Vec<_>>())
                .finish(),
            Self::Stream(_) => f.write_str("Stream(..)"),
        }
    }
}

/// The two halves of a byte stream to a server.
pub struct McpStream {
    /// What the server writes.
    pub read: Box<dyn AsyncRead + Send + Unpin>,
    /// What the server reads.
    pub write: Box<dyn AsyncWrite + Send + Unpin>,
}

type Connect = dyn Fn() -> BoxFuture<'static, std::io::Result<McpStream>> + Send + Sync;

/// Opens a fresh [`McpStream`] for [`McpTransport::Stream`].
#[derive(Clone)]
pub struct McpConnector(Arc<Connect>);

impl McpConnector {
    /// A connector that calls `connect` for every connection.
    pub fn new(
        connect: impl Fn() -> BoxFuture<'static, std::io::Result<McpStream>> + Send + Sync + 'static,
    ) -> Self {
        Self(Arc::new(connect))
    }

    /// Opens a stream.
    pub(crate) fn connect(&self) -> BoxFuture<'static, std::io::Result<McpStream>> {
        (self.0)()
    }
}

/// Which of a server's tools need a human's approval before they run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpApproval {
    /// None of them.
    #[default]
    Never,
    /// Every one.
    All,
    /// These, by the server's own names.
    Tools(Vec<String>),
    /// Those the server marks destructive: `destructiveHint` true, or
    /// unset while `readOnlyHint` is not true (MCP's default for a tool
    /// that says nothing is "may destroy").
    Destructive,
}

impl McpApproval {
    /// Whether the tool named `server_name` (with these annotations)
    /// needs approval.
    pub(crate) fn requires(&self, server_name: &str, hints: &super::McpToolHints) -> bool {
        match self {
            Self::Never => false,
            Self::All => true,
            Self::Tools(names) => names.iter().any(|name| name == server_name),
            Self::Destructive => hints.is_destructive(),
        }
    }
}
