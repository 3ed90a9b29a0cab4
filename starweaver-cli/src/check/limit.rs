//! `--max-manifest-bytes`: how large a manifest file may be, as the option every command that
//! reads manifests (`check`, `run`, `tools`) flattens in, so the name the error message gives
//! ([`MAX_MANIFEST_BYTES_FLAG`](starweaver_config::check::MAX_MANIFEST_BYTES_FLAG)) is the name each command takes.

use starweaver_config::check::{ManifestLimit, DEFAULT_MAX_MANIFEST_BYTES};
use starweaver_config::yaml::Budgets;

/// The size limit of the manifest files a command reads, as a command-line option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::Args)]
pub struct ManifestLimitArgs {
    /// The largest manifest file read, in bytes; a larger one is refused before it is parsed.
    #[arg(
        long = "max-manifest-bytes",
        value_name = "BYTES",
        default_value_t = DEFAULT_MAX_MANIFEST_BYTES
    )]
    pub max_manifest_bytes: u64,
}

impl Default for ManifestLimitArgs {
    fn default() -> Self {
        Self::from(ManifestLimit::default())
    }
}

impl From<ManifestLimit> for ManifestLimitArgs {
    fn from(limit: ManifestLimit) -> Self {
        Self {
            max_manifest_bytes: limit.max_manifest_bytes,
        }
    }
}

impl ManifestLimitArgs {
    /// The limit the option gives, as the manifest library takes it.
    #[must_use]
    pub fn limit(self) -> ManifestLimit {
        ManifestLimit {
            max_manifest_bytes: self.max_manifest_bytes,
        }
    }

    /// The YAML reader's budgets with this document size (the other budgets at their defaults).
    #[must_use]
    pub fn budgets(self) -> Budgets {
        self.limit().budgets()
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use starweaver_config::check::MAX_MANIFEST_BYTES_FLAG;

    use super::*;

    #[derive(Parser)]
    struct Probe {
        #[command(flatten)]
        limit: ManifestLimitArgs,
    }

    #[test]
    fn the_option_defaults_to_the_readers_limit_and_is_named_as_errors_name_it() {
        let given = Probe::parse_from(["probe"]).limit;
        assert_eq!(given, ManifestLimitArgs::default());
        assert_eq!(given.budgets(), Budgets::default());
        let raised = Probe::parse_from(["probe", MAX_MANIFEST_BYTES_FLAG, "60000000"]).limit;
        assert_eq!(raised.limit().max_manifest_bytes, 60_000_000);
    }
}
