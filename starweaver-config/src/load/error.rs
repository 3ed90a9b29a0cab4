//! `LoadError`: why a checked manifest could not become an agent, where, and how to fix it.

use thiserror::Error;

/// A manifest that reads fine but cannot be assembled. Each message names the field and says
/// what to change.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LoadError {
    /// `model.id` names a model this build cannot create.
    #[error("model.id: unknown model `{id}`; use `test` (the embedded offline model), `script` (a file of turns), `openai:<model>` or `anthropic:<model>`")]
    UnknownModel {
        /// The id as written.
        id: String,
    },
    /// The `script` model's file cannot be played: outside the manifest's folder, unreadable,
    /// or not a list of well-formed turns.
    #[error("model.script: {message}")]
    Script {
        /// What is wrong, where in the script, and how to fix it.
        message: String,
    },
    /// `model.id` names a provider whose client this build leaves out.
    #[error("model.id: `{id}` needs the `{feature}` feature of starweaver, which this build was made without; build with it (it is on by default)")]
    ProviderNotBuilt {
        /// The id as written.
        id: String,
        /// The cargo feature.
        feature: String,
    },
    /// A setting the runtime has no way to honour.
    #[error("{field}: not supported: {reason}; remove it")]
    Unsupported {
        /// Where, as a manifest path (`runtime.max_tokens`).
        field: String,
        /// Why it cannot be honoured.
        reason: String,
    },
    /// A value of the right YAML type that the runtime cannot use.
    #[error("{field}: expected {expected}; fix the value")]
    InvalidValue {
        /// Where (`model.settings.temperature`).
        field: String,
        /// What it must be.
        expected: String,
    },
    /// `instructions` is not a valid template or does not render.
    #[error("instructions: {message}; check the template syntax and the names it uses (`vars.NAME`, `name`)")]
    Template {
        /// The template engine's message.
        message: String,
    },
    /// The environment could not be opened.
    #[error("environment.root: cannot open `{root}`: {message}; point it at an existing folder (relative to the manifest's folder)")]
    Environment {
        /// The folder tried.
        root: String,
        /// Why it failed.
        message: String,
    },
    /// A toolset names a tool that does not exist.
    #[error("{field}: unknown tool `{tool}`; {help}")]
    UnknownTool {
        /// Where (`toolsets[0].tools`).
        field: String,
        /// The name as written.
        tool: String,
        /// The names available, or how to register the tool.
        help: String,
    },
    /// A proxy or search names a toolset that is not declared (or cannot be wrapped).
    #[error("{field}: unknown toolset `{toolset}`; name a `tools`, `filesystem`, `shell`, `user_input` or `deferred` toolset declared in `toolsets`")]
    UnknownToolset {
        /// Where (`toolsets[4].toolsets`).
        field: String,
        /// The name as written.
        toolset: String,
    },
    /// Two toolsets share a name, so proxies and diagnostics could not tell them apart.
    #[error("{field}: toolset name `{name}` is already used; give each toolset its own `name`")]
    DuplicateToolset {
        /// Where the second one is.
        field: String,
        /// The shared name.
        name: String,
    },
    /// A setting that needs another section that is missing.
    #[error("{field}: needs `{needs}`; {help}")]
    Missing {
        /// The setting.
        field: String,
        /// The section it needs.
        needs: String,
        /// How to fix it.
        help: String,
    },
    /// Skill scanning failed (an unusable scope path).
    #[error("skills.scopes: {message}; use a folder inside the environment")]
    Skills {
        /// The scanner's message.
        message: String,
    },
}
