//! Search over an environment (`glob`, `grep`, walks), as library calls
//! and as the bundle's tools.

mod fuzz;
mod glob;
mod grep;
mod walk;

use starweaver::environment::{glob, EnvironmentProvider, GlobOptions};

/// The paths `glob` finds for `pattern`, in walk order.
async fn glob_paths(
    provider: &dyn EnvironmentProvider,
    pattern: &str,
    options: &GlobOptions,
) -> Vec<String> {
    glob(provider, pattern, options)
        .await
        .unwrap()
        .entries
        .into_iter()
        .map(|entry| entry.path)
        .collect()
}
