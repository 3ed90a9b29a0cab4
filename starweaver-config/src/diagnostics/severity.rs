//! How serious a diagnostic is.

use std::fmt;

/// Whether a problem stops the manifest from loading or is only worth a look.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The manifest cannot be loaded as written.
    Error,
    /// The manifest loads, but something in it is likely a mistake.
    Warning,
}

impl Severity {
    /// The lowercase name printed in reports (`error`, `warning`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
