//! `type: mcp` entries: what the schema cannot say about a server's settings. Exactly one of
//! `command` and `url`, a `url` that is `http(s)`, settings of a local server on an HTTP one
//! (or the reverse), a `prefix` providers refuse, a `cwd` that is not a folder
//! ([`settings`]); literal values that look like secrets ([`secrets`]); the server's sandbox,
//! by the rules of `shell.sandbox` ([`sandbox`]). Nothing here starts a server: the server's
//! own tool list is unknown to the checker, so its names are judged only where `tools:` lists
//! them (in the rules for names, beside those of every toolset).

mod sandbox;
mod secrets;
mod settings;

use super::toolsets::Entry;
use super::CheckContext;
use crate::diagnostics::Diagnostic;

/// Every problem of every `mcp` entry's own settings.
pub(super) fn check(entries: &[Entry<'_>], context: &CheckContext) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for entry in entries.iter().filter(|entry| entry.is_mcp()) {
        found.extend(settings::check(entry, context));
        found.extend(secrets::check(entry));
        found.extend(sandbox::check(entry, context));
    }
    found
}
