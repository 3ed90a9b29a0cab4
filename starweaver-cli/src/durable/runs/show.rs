//! `starweaver runs show ID`.

use super::view::{detail, text};
use super::{existing, print, print_json, OneRun};
use crate::run::Stop;

/// Shows one run.
pub(super) async fn show(args: &OneRun) -> Result<u8, Stop> {
    let store = args.store.open().await?;
    let run = existing(store.as_ref(), &args.id).await?;
    if args.json {
        return print_json(&detail(&run));
    }
    print(&text(&run))
}
