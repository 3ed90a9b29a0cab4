//! The `#[starweaver::tool]` attribute macro.

use proc_macro::TokenStream;

/// Placeholder until the attribute lands: passes the item through.
#[proc_macro_attribute]
pub fn tool(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
