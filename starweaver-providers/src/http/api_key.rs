//! The API key: read from a named variable, sent in one header, never printed.

use std::fmt;

/// Where a client gets its key: a variable read at each request (so a key exported after the
/// agent was built is seen), or a value given in code.
#[derive(Clone)]
pub(crate) enum ApiKey {
    /// The environment variable holding the key.
    Variable(String),
    /// A key given in code.
    Value(String),
}

impl ApiKey {
    /// The key, or the variable that should have held it.
    pub(crate) fn resolve(&self) -> Result<String, String> {
        match self {
            Self::Variable(name) => match std::env::var(name) {
                Ok(key) if !key.trim().is_empty() => Ok(key.trim().to_string()),
                _ => Err(name.clone()),
            },
            Self::Value(key) => Ok(key.clone()),
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Variable(name) => write!(f, "ApiKey::Variable({name})"),
            Self::Value(_) => f.write_str("ApiKey::Value(***)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_a_key() {
        let shown = format!("{:?}", ApiKey::Value("sk-secret-123".to_string()));
        assert!(!shown.contains("sk-secret"), "{shown}");
    }
}
