//! `starweaver runs list`.

use serde_json::Value;

use super::view::{summary, table};
use super::{print, print_json, refused, Listing};
use crate::run::Stop;

/// Lists every run in the store.
pub(super) async fn list(args: &Listing) -> Result<u8, Stop> {
    let store = args.store.open().await?;
    let runs = store.list().await.map_err(|error| refused(&error))?;
    if args.json {
        return print_json(&Value::Array(runs.iter().map(summary).collect()));
    }
    print(&table(&runs))
}
