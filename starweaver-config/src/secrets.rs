//! What looks like a secret written into a manifest. A token pasted as a literal value ends up
//! in version control and in every copy of the file; the checker warns (`literal-secret`) so it
//! moves to a host variable passed by name. Two signs count: the variable's name (its last
//! word is a secret word, the rule `starweaver run` masks variables by, stated in
//! `docs/cli.md`), and the value's shape (a known token prefix, or a long random-looking
//! string).

/// Last words that make a variable's name a secret's (compared case-insensitively).
pub const SECRET_WORDS: [&str; 6] = [
    "key",
    "token",
    "secret",
    "password",
    "passwd",
    "credentials",
];

/// Values shorter than this are never called secrets (they would match ordinary words).
pub const MIN_SECRET_CHARS: usize = 4;

/// Prefixes that well-known services put on their tokens and keys.
const TOKEN_PREFIXES: [&str; 18] = [
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "sk-",
    "sk_live_",
    "rk_live_",
    "AKIA",
    "ASIA",
    "AIza",
    "Bearer ",
    "Basic ",
];

/// The shortest value judged by its shape alone.
const MIN_RANDOM_CHARS: usize = 24;

/// Why a value looks like a secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretSign {
    /// The variable's name ends in a secret word (`GITHUB_TOKEN`).
    Name,
    /// The value starts like a known service's token (`ghp_`, `sk-`, `Bearer `).
    TokenPrefix,
    /// The value is long, has no spaces, and mixes upper-case letters, lower-case letters and
    /// digits, as generated keys do.
    Random,
}

impl SecretSign {
    /// The sign in words, for a diagnostic.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Self::Name => "its name says it holds a secret",
            Self::TokenPrefix => "its value starts like an access token",
            Self::Random => "its value looks like a generated key",
        }
    }
}

/// The words of a variable name: split at `_`, `-`, where a lower-case letter or digit is
/// followed by an upper-case one, and before the last capital of a run of capitals followed by
/// a lower-case letter (`apiKey` and `APIKey` end in `Key`; `GITHUB_TOKEN` is `GITHUB`, `TOKEN`).
fn name_words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (index, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' {
            words.push(std::mem::take(&mut word));
            continue;
        }
        let previous = index.checked_sub(1).and_then(|i| chars.get(i));
        let next = chars.get(index + 1);
        let boundary = c.is_uppercase()
            && previous.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if boundary {
            words.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    words.push(word);
    words.retain(|word| !word.is_empty());
    words
}

/// Whether the variable `name` holds a secret by its name alone: its last word is one of
/// [`SECRET_WORDS`].
#[must_use]
pub fn is_secret_name(name: &str) -> bool {
    name_words(name).last().is_some_and(|last| {
        let last = last.to_lowercase();
        SECRET_WORDS.contains(&last.as_str())
    })
}

/// Why the variable `name` set to the literal `value` looks like a secret, if it does.
///
/// ```
/// use starweaver_config::secrets::{secret_sign, SecretSign};
///
/// assert_eq!(secret_sign("LOG_LEVEL", "info"), None);
/// assert_eq!(secret_sign("GITHUB_TOKEN", "abcd1234"), Some(SecretSign::Name));
/// assert_eq!(secret_sign("AUTH", "ghp_0123456789abcdef"), Some(SecretSign::TokenPrefix));
/// assert_eq!(secret_sign("X", "q8ZrT2vLk9WmX4pA7sD1fG6h"), Some(SecretSign::Random));
/// ```
#[must_use]
pub fn secret_sign(name: &str, value: &str) -> Option<SecretSign> {
    let value = value.trim();
    if value.chars().count() < MIN_SECRET_CHARS {
        return None;
    }
    if is_secret_name(name) {
        return Some(SecretSign::Name);
    }
    if TOKEN_PREFIXES
        .iter()
        .any(|prefix| value.len() >= prefix.len() + 8 && value.starts_with(prefix))
    {
        return Some(SecretSign::TokenPrefix);
    }
    let keyish = |c: char| c.is_ascii_alphanumeric() || "+/=_-.".contains(c);
    let random = value.chars().count() >= MIN_RANDOM_CHARS
        && value.chars().all(keyish)
        && !value.starts_with('/')
        && !value.starts_with('.')
        && value.chars().any(|c| c.is_ascii_uppercase())
        && value.chars().any(|c| c.is_ascii_lowercase())
        && value.chars().any(|c| c.is_ascii_digit());
    random.then_some(SecretSign::Random)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_secret_when_its_last_word_is_a_secret_word() {
        for name in [
            "GITHUB_TOKEN",
            "api_key",
            "apiKey",
            "APIKey",
            "ClientSecret",
            "client_secret",
            "db_password",
            "db-password",
            "db-passwd",
            "aws_secret",
            "aws_credentials",
            "sort_key",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "keyring",
            "monkey",
            "tone",
            "audience",
            "key_name",
            "tokens",
            "tokens_used",
            "secretive",
            "LOG_LEVEL",
            "",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }

    #[test]
    fn ordinary_values_are_not_secrets() {
        for value in [
            "info",
            "production",
            "/usr/local/share/mcp/servers/everything",
            "http://127.0.0.1:3001/mcp",
            "0f8fad5b-d9cb-469f-a165-70867728950e",
            "some words with spaces in them all along",
            "ALL_CAPS_SETTING_NAME_THAT_IS_LONG",
        ] {
            assert_eq!(secret_sign("SETTING", value), None, "{value}");
        }
        // A secret name with a value too short to be one.
        assert_eq!(secret_sign("API_KEY", "x"), None);
    }

    #[test]
    fn tokens_are_told_by_their_prefix_or_their_shape() {
        assert_eq!(
            secret_sign("AUTH", "Bearer abcdefgh12"),
            Some(SecretSign::TokenPrefix)
        );
        assert_eq!(
            secret_sign("AWS", "AKIAIOSFODNN7EXAMPLE"),
            Some(SecretSign::TokenPrefix)
        );
        // A prefix alone, without the token after it, is not one.
        assert_eq!(secret_sign("MODE", "sk-x"), None);
        assert_eq!(
            secret_sign("X", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            Some(SecretSign::Random)
        );
    }
}
