//! The `#[starweaver::tool]` attribute macro: turns an annotated function
//! into a typed tool, with no hand-written argument struct.
//!
//! The expansion uses only the facade's public builders (`typed_tool` and
//! the `with_*` methods) plus a few hidden helpers, so a macro tool and a
//! tool built by hand are the same thing spelled two ways. See the
//! facade's `tool` re-export for the user-facing documentation.

mod docs;
mod errors;
mod expand;
mod facade;
mod options;
mod params;
mod returns;
mod suggest;

use proc_macro::TokenStream;

/// Turns a function into a tool: keeps the function, adds `NAME_tool()`
/// returning the tool, and registers it in the process-wide catalog.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}
