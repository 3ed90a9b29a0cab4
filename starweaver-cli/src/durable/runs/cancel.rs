//! `starweaver runs cancel ID`.

use serde_json::json;
use starweaver_core::context::RunId;

use super::{print, print_json, refused, OneRun};
use crate::run::Stop;

/// Cancels a run that has not ended; a worker holding it loses its lease and stops.
pub(super) async fn cancel(args: &OneRun) -> Result<u8, Stop> {
    let store = args.store.open().await?;
    let id = RunId::new(args.id.clone());
    store.cancel(&id).await.map_err(|error| refused(&error))?;
    if args.json {
        return print_json(&json!({"id": id.as_str(), "status": "cancelled"}));
    }
    print(&format!("run {} cancelled\n", id.as_str()))
}
