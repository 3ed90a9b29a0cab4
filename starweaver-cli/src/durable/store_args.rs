//! `--store URL` (or `STARWEAVER_STORE`): the run store every store-facing command opens
//! first, so a store that cannot be reached fails the command at once.

use std::sync::Arc;

use starweaver_core::runs::RunStore;
use starweaver_store::StoreUrl;

use crate::run::Stop;

/// The variable a store URL is read from when `--store` is not given.
pub const STORE_VARIABLE: &str = "STARWEAVER_STORE";

/// Where runs are kept.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct StoreArgs {
    /// The run store: `sqlite:PATH` (a file, created when missing) or
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE`.
    #[arg(long = "store", value_name = "URL", env = STORE_VARIABLE, hide_env_values = true)]
    pub store: Option<String>,
}

impl StoreArgs {
    /// Whether a store was given.
    #[must_use]
    pub fn given(&self) -> bool {
        self.store.is_some()
    }

    /// The store's URL, parsed.
    ///
    /// # Errors
    /// Status 2 when no store was given or the URL is not one.
    pub fn url(&self) -> Result<StoreUrl, Stop> {
        let Some(text) = &self.store else {
            return Err(Stop::usage(format!(
                "no run store: give --store sqlite:PATH (or postgres://...), or set {STORE_VARIABLE}"
            )));
        };
        StoreUrl::parse(text).map_err(|error| Stop::usage(error.to_string()))
    }

    /// Opens the store.
    ///
    /// # Errors
    /// Status 2 for a missing or malformed URL; status 1 when the store cannot be opened
    /// (the message names the URL with its password masked).
    pub async fn open(&self) -> Result<Arc<dyn RunStore>, Stop> {
        let url = self.url()?;
        url.open().await.map_err(|error| Stop {
            message: error.to_string(),
            status: 1,
        })
    }
}
