//! The `script` model: a model that plays a file of turns instead of thinking, so a CI job (or
//! a newcomer) can run an agent's real tools end to end with no network and no key, and watch
//! the same events, usage, approvals and retries a real model goes through.
//!
//! A manifest names it with `model: {id: script, script: FILE}`, FILE relative to the
//! manifest's folder and inside it. The file is a YAML list of turns; each is the model's
//! answer to one request:
//!
//! ```yaml
//! - calls:
//!     - { tool: grep, args: { pattern: "pub fn load", path: src } }
//! - calls:
//!     - { tool: read_file, args: { path: "{{ calls[0].result.matches[0].path }}" } }
//! - answer: "The loader is in {{ calls[0].result.matches[0].path }}."
//! ```
//!
//! `calls:` lists tool calls (`tool`, the name the model sees, and `args`, an object; nothing
//! else); `answer:` is the final text. Every string of an answer or an argument is a template
//! on the manifests' engine, reading `calls`, `prompt` and `turn` (see [`ScriptModel`] and
//! `docs/models.md`). `starweaver check` reads the script too: the turns, the tools they name,
//! and the arguments against the tools' schemas.

mod conversation;
mod error;
pub(crate) mod model;
pub(crate) mod parse;
pub(crate) mod template;
#[cfg(test)]
mod tests;
mod turn;

pub use error::ScriptError;
pub use model::ScriptModel;
pub use turn::{ScriptCall, ScriptTurn};

/// The largest script file read, in bytes (1 MiB).
pub const MAX_SCRIPT_BYTES: usize = 1024 * 1024;

/// The most turns a script may have.
pub const MAX_TURNS: usize = 1000;

/// The most calls one turn may make.
pub const MAX_CALLS_PER_TURN: usize = 64;
