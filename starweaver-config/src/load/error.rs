//! `LoadError`: why a checked manifest could not become an agent.
//!
//! Every manifest rule is the checker's: a manifest the loader receives has passed them all
//! ([`crate::validate::Checked`]). What is left here is what only loading can meet: the build,
//! the host, the file system at load time and the values a run supplies. None of these is a
//! rule of the format, so none repeats a checker's message.

use thiserror::Error;

/// A checked manifest whose agent cannot be assembled here and now. Each message says what
/// failed and how to get past it.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LoadError {
    /// `model.id` names a provider whose client this build leaves out.
    #[error("`{id}` needs the `{feature}` feature of starweaver, which this build was made without; build with it (it is on by default)")]
    ProviderNotBuilt {
        /// The id as written.
        id: String,
        /// The cargo feature.
        feature: String,
    },
    /// `model.id` is one the host said it supplies (`CheckContext::with_model_ids`), and no
    /// model was given to the loader.
    #[error("the model `{id}` is supplied by the host, and none was given; pass it with `LoadOptions::with_model`")]
    ModelNotGiven {
        /// The id as written.
        id: String,
    },
    /// The instructions do not render with the run's variable values.
    #[error("the instructions do not render with this run's values: {message}")]
    Template {
        /// The template engine's message.
        message: String,
    },
    /// The environment's folder could not be opened.
    #[error("cannot open the environment folder `{root}`: {message}")]
    Environment {
        /// The folder tried.
        root: String,
        /// Why it failed.
        message: String,
    },
    /// The host's tool resolver has no tool of this name (the check may have run against
    /// another catalog, or none).
    #[error("{field}: the loader's tool resolver has no tool `{tool}`; register it in code (`starweaver_core::catalog::register`), or give the loader a resolver that knows it")]
    ToolNotResolved {
        /// Where it is named (`toolsets[0].tools`).
        field: String,
        /// The name as written.
        tool: String,
    },
    /// A `type: mcp` toolset in a build without the MCP client.
    #[error("toolset `{name}` is an MCP server, and this build has no MCP support; build with the `mcp` feature of starweaver (it is on for the `starweaver` binary)")]
    McpNotBuilt {
        /// The toolset's name.
        name: String,
    },
    /// An `mcp` entry that names both or neither of `command` and `url`, built without the
    /// checker (which refuses such a manifest).
    #[error("toolset `{name}` must name exactly one of `command` (a local server) or `url` (an HTTP server); `starweaver check` shows where")]
    McpTransport {
        /// The toolset's name.
        name: String,
    },
    /// A host variable an `mcp` toolset takes a value from (`env_from`, `headers_from_env`) is
    /// not set.
    #[error("toolset `{toolset}` passes the host variable `{variable}` to its MCP server, and it is not set; set it where the agent runs")]
    HostVariable {
        /// The toolset's name.
        toolset: String,
        /// The variable's name.
        variable: String,
    },
    /// Scanning the skill scopes failed when the agent was assembled.
    #[error("cannot scan the skills under `{scope}`: {message}")]
    Skills {
        /// The scope as written.
        scope: String,
        /// What went wrong.
        message: String,
    },
}
