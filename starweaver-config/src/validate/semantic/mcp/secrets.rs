//! `literal-secret`: a value in an `mcp` entry that looks like a secret. `env` takes literal
//! values, which stay in the file and its history; a token belongs in `env_from` (passed from
//! the host by name, masked like a secret). A password in `url` belongs in `headers_from_env`.

use super::super::model::short;
use super::super::toolsets::Entry;
use super::settings::set;
use crate::diagnostics::{Diagnostic, Rule};
use crate::secrets::secret_sign;
use crate::yaml::Node;

/// A warning per `env` value that looks like a secret, and one for a password in `url`.
pub(super) fn check(entry: &Entry<'_>) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let env = set(entry, "env").and_then(|(_, value)| value.as_mapping());
    for (key, value) in env.unwrap_or_default() {
        let (Some(name), Some(text)) = (key.as_str(), value.as_str()) else {
            continue;
        };
        let Some(sign) = secret_sign(name, text) else {
            continue;
        };
        found.push(
            Diagnostic::warning(
                Rule::LiteralSecret,
                value.span,
                format!(
                    "`env.{}` looks like a secret written into the manifest: {}",
                    short(name),
                    sign.describe()
                ),
            )
            .with_help(format!(
                "set `{}` on the host and list it in `env_from: [{}]` instead",
                short(name),
                short(name)
            )),
        );
    }
    if let Some(url) = set(entry, "url").map(|(_, value)| value) {
        found.extend(url_password(url));
    }
    found
}

/// A `user:password@` in a URL's authority.
fn url_password(url: &Node) -> Option<Diagnostic> {
    let text = url.as_str()?;
    let rest = text.split_once("://").map_or(text, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let (userinfo, _) = authority.rsplit_once('@')?;
    let (_, password) = userinfo.split_once(':')?;
    if password.is_empty() {
        return None;
    }
    Some(
        Diagnostic::warning(
            Rule::LiteralSecret,
            url.span,
            "`url` holds a password: it is written into the manifest",
        )
        .with_help(
            "drop it from the URL and send it from the host: `headers_from_env: {Authorization: \
             VARIABLE}`",
        ),
    )
}
