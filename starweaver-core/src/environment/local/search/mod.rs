//! Native glob and grep for the local provider: ripgrep's parallel
//! walker over the real tree, files opened through the confined root.

use super::LocalEnvironmentProvider;
use crate::environment::{GlobOptions, GlobReport, GrepOptions, GrepReport, SearchError};

impl LocalEnvironmentProvider {
    /// [`crate::environment::glob`] run natively.
    pub(super) async fn search_glob(
        &self,
        pattern: &str,
        options: &GlobOptions,
    ) -> Result<GlobReport, SearchError> {
        crate::environment::generic_glob(self, pattern, options).await
    }

    /// [`crate::environment::grep`] run natively.
    pub(super) async fn search_grep(
        &self,
        pattern: &str,
        options: &GrepOptions,
    ) -> Result<GrepReport, SearchError> {
        crate::environment::generic_grep(self, pattern, options).await
    }
}
