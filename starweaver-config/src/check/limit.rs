//! How large a manifest file may be. Manifests are small and every one is untrusted, so files
//! over the limit are refused before they are parsed; a generated manifest that is
//! legitimately larger needs a way to say so: the command line's `--max-manifest-bytes`
//! ([`MAX_MANIFEST_BYTES_FLAG`]), which every command that reads manifests takes, so the name
//! the error message gives is the name each command takes.

use crate::yaml::Budgets;

/// The command-line option that raises the size limit, as error messages name it.
pub const MAX_MANIFEST_BYTES_FLAG: &str = "--max-manifest-bytes";

/// The default size limit of a manifest file, in bytes (4 MiB).
pub const DEFAULT_MAX_MANIFEST_BYTES: u64 = Budgets::DEFAULT_MAX_DOCUMENT_BYTES as u64;

/// The size limit of the manifest files a command reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ManifestLimit {
    /// The largest manifest file read, in bytes; a larger one is refused before it is parsed.
    pub max_manifest_bytes: u64,
}

impl Default for ManifestLimit {
    fn default() -> Self {
        Self {
            max_manifest_bytes: DEFAULT_MAX_MANIFEST_BYTES,
        }
    }
}

impl ManifestLimit {
    /// The YAML reader's budgets with this document size (the other budgets at their defaults).
    #[must_use]
    pub fn budgets(self) -> Budgets {
        Budgets::default()
            .with_max_document_bytes(usize::try_from(self.max_manifest_bytes).unwrap_or(usize::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_readers_default() {
        assert_eq!(ManifestLimit::default().budgets(), Budgets::default());
        let raised = ManifestLimit {
            max_manifest_bytes: 60_000_000,
        };
        assert_eq!(raised.budgets().max_document_bytes, 60_000_000);
    }
}
