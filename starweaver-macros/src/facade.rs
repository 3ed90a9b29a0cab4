//! Where the facade crate lives from the user's crate: it may be renamed
//! in their `Cargo.toml` (`sw = { package = "starweaver" }`).

use proc_macro2::{Span, TokenStream};
use proc_macro_crate::{crate_name, FoundCrate};
use quote::quote;

/// The facade's path, as tokens (`::starweaver`) and as text for the
/// string-valued `crate = ".."` attributes of serde and schemars.
pub(crate) struct Facade {
    /// `::name`.
    pub(crate) path: TokenStream,
    /// `"::name"`.
    pub(crate) text: String,
}

/// Finds the facade. Inside the facade's own package (its tests and
/// examples) and when it cannot be found, it is `::starweaver`.
pub(crate) fn facade() -> Facade {
    let name = match crate_name("starweaver") {
        Ok(FoundCrate::Name(name)) => name,
        Ok(FoundCrate::Itself) | Err(_) => "starweaver".to_string(),
    };
    let ident = syn::Ident::new(&name, Span::call_site());
    Facade {
        path: quote!(::#ident),
        text: format!("::{name}"),
    }
}
