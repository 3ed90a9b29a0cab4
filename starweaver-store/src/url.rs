//! [`StoreUrl`]: which run store to open, as one string a user can put in a flag, a variable or
//! a config file: `sqlite:PATH` for a file on this machine, `postgres://...` for a server many
//! machines share.
//!
//! A URL may hold a password, so nothing here prints the URL as given: [`StoreUrl::masked`]
//! (and `Display`, and `Debug`) show it with the password replaced by `***`, and every error
//! about a store names it that way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use starweaver_core::runs::{RunStore, StoreError};

use crate::{PgRunStore, SqliteRunStore};

/// The forms a store URL may take, for error messages.
const ACCEPTED: &str =
    "`sqlite:PATH` (a file, e.g. `sqlite:runs.db` or `sqlite:///var/lib/runs.db`) \
     or `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (also `postgresql://`)";

/// The longest store URL accepted: a URL is a few hundred bytes; anything far longer is not one.
const MAX_LEN: usize = 4096;

/// A run store's location, parsed: a SQLite file or a PostgreSQL server.
#[derive(Clone, PartialEq, Eq)]
pub struct StoreUrl {
    kind: Kind,
    /// The URL as shown to people, password masked.
    masked: String,
}

#[derive(Clone, PartialEq, Eq)]
enum Kind {
    Sqlite(PathBuf),
    /// The URL as given (it may hold the password; never shown).
    Postgres(String),
}

/// A string that is not a store URL this crate opens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{shown}` is not a run store URL: {reason}; use {ACCEPTED}")]
pub struct StoreUrlError {
    /// The string, password masked when it has one.
    shown: String,
    /// What is wrong with it.
    reason: &'static str,
}

impl StoreUrl {
    /// Parses `url`: `sqlite:PATH` or `sqlite://PATH` (a relative or absolute path), or
    /// `postgres://...` / `postgresql://...` (any URL PostgreSQL's clients accept).
    ///
    /// # Errors
    /// [`StoreUrlError`] for any other form, saying which forms are accepted.
    pub fn parse(url: &str) -> Result<Self, StoreUrlError> {
        let refuse = |reason| StoreUrlError {
            shown: mask(url),
            reason,
        };
        if url.len() > MAX_LEN {
            return Err(StoreUrlError {
                shown: format!("{}...", mask(truncate(url, 64))),
                reason: "it is longer than any store URL",
            });
        }
        if let Some(rest) = strip_scheme(url, "sqlite") {
            let path = rest.strip_prefix("//").unwrap_or(rest);
            if path.is_empty() {
                return Err(refuse("it names no file"));
            }
            return Ok(Self {
                kind: Kind::Sqlite(PathBuf::from(path)),
                masked: url.to_string(),
            });
        }
        if strip_scheme(url, "postgres").is_some() || strip_scheme(url, "postgresql").is_some() {
            let Some(rest) = url.split_once("://").map(|(_, rest)| rest) else {
                return Err(refuse("a PostgreSQL URL starts with `postgres://`"));
            };
            if rest.is_empty() {
                return Err(refuse("it names no server"));
            }
            return Ok(Self {
                kind: Kind::Postgres(url.to_string()),
                masked: mask(url),
            });
        }
        Err(refuse("its scheme is not one this program opens"))
    }

    /// The URL with any password replaced by `***`: the only form to show or log.
    #[must_use]
    pub fn masked(&self) -> &str {
        &self.masked
    }

    /// The SQLite file, when this names one.
    #[must_use]
    pub fn sqlite_path(&self) -> Option<&Path> {
        match &self.kind {
            Kind::Sqlite(path) => Some(path),
            Kind::Postgres(_) => None,
        }
    }

    /// Whether this names a PostgreSQL server.
    #[must_use]
    pub fn is_postgres(&self) -> bool {
        matches!(self.kind, Kind::Postgres(_))
    }

    /// The URL as given, password and all: only for handing to the database driver.
    pub(crate) fn secret(&self) -> &str {
        match &self.kind {
            Kind::Sqlite(_) => &self.masked,
            Kind::Postgres(url) => url,
        }
    }

    /// Opens the store this names, creating its tables when they are not there yet.
    ///
    /// # Errors
    /// [`StoreError::Backend`] when it cannot be opened, within seconds when the server
    /// cannot be reached; the message names the masked URL and what to check.
    pub async fn open(&self) -> Result<Arc<dyn RunStore>, StoreError> {
        match &self.kind {
            Kind::Sqlite(path) => Ok(Arc::new(SqliteRunStore::open(path).await?)),
            Kind::Postgres(_) => Ok(Arc::new(PgRunStore::connect_url(self).await?)),
        }
    }

    /// `message` with the password (as written in the URL, or decoded), should the driver
    /// have echoed it, masked.
    pub(crate) fn scrub(&self, message: &str) -> String {
        let Some(secret) = password(self.secret()).filter(|secret| !secret.is_empty()) else {
            return message.to_string();
        };
        let decoded = percent_decoded(secret);
        message.replace(secret, "***").replace(&decoded, "***")
    }
}

impl std::str::FromStr for StoreUrl {
    type Err = StoreUrlError;

    fn from_str(url: &str) -> Result<Self, Self::Err> {
        Self::parse(url)
    }
}

impl std::fmt::Display for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.masked)
    }
}

impl std::fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("StoreUrl").field(&self.masked).finish()
    }
}

/// What follows `scheme:` in `url`, the scheme matched without regard to case.
fn strip_scheme<'u>(url: &'u str, scheme: &str) -> Option<&'u str> {
    let head = url.get(..scheme.len())?;
    let rest = url.get(scheme.len()..)?;
    if head.eq_ignore_ascii_case(scheme) {
        rest.strip_prefix(':')
    } else {
        None
    }
}

/// At most `max` bytes of `text`, cut on a character boundary.
fn truncate(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The user-info part of an authority URL (`user:password` before the host), with where it
/// sits in `url`: everything between `://` and the last `@` before the query. A host never
/// holds an `@`, so taking the last one masks too much rather than too little when a
/// password holds an unencoded `@` or `/`.
fn userinfo(url: &str) -> Option<(usize, &str)> {
    let start = url.find("://")? + 3;
    let end = url.find('?').unwrap_or(url.len()).max(start);
    let at = url[start..end].rfind('@')?;
    Some((start, &url[start..start + at]))
}

/// The password in `url`'s user info, still percent-encoded, if it has one.
fn password(url: &str) -> Option<&str> {
    let (_, info) = userinfo(url)?;
    info.split_once(':').map(|(_, password)| password)
}

/// `text` with `%XX` escapes decoded (invalid ones, and bytes that do not make UTF-8, kept as
/// written).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let escaped = (bytes[at] == b'%')
            .then(|| text.get(at + 1..at + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                at += 3;
            }
            None => {
                decoded.push(bytes[at]);
                at += 1;
            }
        }
    }
    String::from_utf8(decoded).unwrap_or_else(|_| text.to_string())
}

/// `url` with its password, in the user info or a `password` query parameter, replaced by
/// `***`.
fn mask(url: &str) -> String {
    let mut shown = match userinfo(url) {
        Some((start, info)) => match info.split_once(':') {
            Some((user, _)) => format!("{}{user}:***{}", &url[..start], &url[start + info.len()..]),
            None => url.to_string(),
        },
        None => url.to_string(),
    };
    if let Some(query_at) = shown.find('?') {
        let query = shown[query_at + 1..]
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if key.to_ascii_lowercase().contains("password") => {
                    format!("{key}=***")
                }
                _ => pair.to_string(),
            })
            .collect::<Vec<_>>()
            .join("&");
        shown.truncate(query_at + 1);
        shown.push_str(&query);
    }
    shown
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn masked(url: &str) -> String {
        StoreUrl::parse(url).unwrap().masked().to_string()
    }

    #[test]
    fn sqlite_urls_name_a_relative_or_absolute_file() {
        let relative = StoreUrl::parse("sqlite:runs.db").unwrap();
        assert_eq!(relative.sqlite_path(), Some(Path::new("runs.db")));
        assert!(!relative.is_postgres());
        let absolute = StoreUrl::parse("sqlite:/var/lib/runs.db").unwrap();
        assert_eq!(absolute.sqlite_path(), Some(Path::new("/var/lib/runs.db")));
        let slashes = StoreUrl::parse("sqlite://runs/x.db").unwrap();
        assert_eq!(slashes.sqlite_path(), Some(Path::new("runs/x.db")));
        let absolute = StoreUrl::parse("sqlite:///tmp/x.db").unwrap();
        assert_eq!(absolute.sqlite_path(), Some(Path::new("/tmp/x.db")));
        assert_eq!(absolute.to_string(), "sqlite:///tmp/x.db");
    }

    #[test]
    fn postgres_urls_in_either_spelling() {
        for url in [
            "postgres://sw:pw@127.0.0.1:5432/runs",
            "postgresql://localhost/runs",
            "POSTGRES://h/db",
        ] {
            let parsed = StoreUrl::parse(url).unwrap();
            assert!(parsed.is_postgres(), "{url}");
            assert_eq!(parsed.sqlite_path(), None);
        }
    }

    #[test]
    fn other_strings_are_refused_with_the_accepted_forms() {
        for url in [
            "",
            "runs.db",
            "mysql://h/db",
            "sqlite:",
            "sqlite://",
            "postgres:",
            "postgres://",
            "postgres:/h/db",
        ] {
            let error = StoreUrl::parse(url).unwrap_err().to_string();
            assert!(error.contains("sqlite:PATH"), "{url}: {error}");
            assert!(error.contains("postgres://"), "{url}: {error}");
        }
        let long = format!("postgres://u:secret@{}", "h".repeat(MAX_LEN));
        let error = StoreUrl::parse(&long).unwrap_err().to_string();
        assert!(!error.contains("secret"), "{error}");
        assert!(error.len() < 500, "{error}");
    }

    #[test]
    fn passwords_are_masked_everywhere_the_url_shows() {
        let url = StoreUrl::parse("postgres://sw:secret@127.0.0.1:1/nope").unwrap();
        assert_eq!(url.masked(), "postgres://sw:***@127.0.0.1:1/nope");
        assert_eq!(url.to_string(), "postgres://sw:***@127.0.0.1:1/nope");
        assert!(!format!("{url:?}").contains("secret"));
        let error = StoreUrl::parse("mysql://sw:secret@h/db").unwrap_err();
        assert!(!error.to_string().contains("secret"), "{error}");
        assert!(!format!("{error:?}").contains("secret"), "{error:?}");
    }

    #[test]
    fn encoded_and_unencoded_separators_in_passwords_stay_hidden() {
        assert_eq!(
            masked("postgres://sw:p%40ss%3Aw@h:5432/db"),
            "postgres://sw:***@h:5432/db"
        );
        assert_eq!(
            masked("postgres://sw:p@ss:w@h/db"),
            "postgres://sw:***@h/db"
        );
        assert_eq!(masked("postgres://sw:pa/ss@h/db"), "postgres://sw:***@h/db");
        assert_eq!(
            masked("postgres://h/db?user=sw&password=secret&sslmode=disable"),
            "postgres://h/db?user=sw&password=***&sslmode=disable"
        );
    }

    #[test]
    fn urls_without_a_password_or_user_show_as_given() {
        for url in [
            "postgres://sw@h/db",
            "postgres://h:5432/db",
            "postgresql://localhost",
            "postgres://h/db?sslmode=disable",
        ] {
            assert_eq!(masked(url), url);
        }
    }

    #[test]
    fn a_driver_message_echoing_the_password_is_scrubbed() {
        let url = StoreUrl::parse("postgres://sw:hunter2@h/db").unwrap();
        assert_eq!(url.scrub("bad hunter2 here"), "bad *** here");
        let bare = StoreUrl::parse("postgres://h/db").unwrap();
        assert_eq!(bare.scrub("as is"), "as is");
        let encoded = StoreUrl::parse("postgres://sw:p%40ss%3Aw%zz@h/db").unwrap();
        assert_eq!(
            encoded.scrub("got p@ss:w%zz and p%40ss%3Aw%zz"),
            "got *** and ***"
        );
    }

    #[tokio::test]
    async fn a_sqlite_url_opens_a_store_on_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.db");
        let url = StoreUrl::parse(&format!("sqlite:{}", path.display())).unwrap();
        let store = url.open().await.unwrap();
        let run = store
            .create(starweaver_core::runs::NewRun::new("helper", "hi"))
            .await
            .unwrap();
        assert!(path.exists());
        assert_eq!(store.get(&run.id).await.unwrap().unwrap().prompt, "hi");
    }
}
