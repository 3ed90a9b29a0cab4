//! `--max-manifest-bytes`: how large a manifest file may be. Manifests are small and every one
//! is untrusted, so files over the limit are refused before they are parsed; a generated
//! manifest that is legitimately larger needs a way to say so. The option is defined here once
//! and flattened into every command that reads manifests (`check`, `run`, `tools`), so the
//! name the error message gives is the name each command takes.

use crate::yaml::Budgets;

/// The command-line option that raises the size limit, as error messages name it.
pub const MAX_MANIFEST_BYTES_FLAG: &str = "--max-manifest-bytes";

/// The default size limit of a manifest file, in bytes (4 MiB).
pub const DEFAULT_MAX_MANIFEST_BYTES: u64 = Budgets::DEFAULT_MAX_DOCUMENT_BYTES as u64;

/// The size limit of the manifest files a command reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct ManifestLimit {
    /// The largest manifest file read, in bytes; a larger one is refused before it is parsed.
    #[cfg_attr(
        feature = "cli",
        arg(
            long = "max-manifest-bytes",
            value_name = "BYTES",
            default_value_t = DEFAULT_MAX_MANIFEST_BYTES
        )
    )]
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
