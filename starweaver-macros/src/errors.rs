//! Collecting every misuse before reporting, so one build shows them all.

use proc_macro2::TokenStream;

/// The compile errors found so far.
#[derive(Default)]
pub(crate) struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    /// Records one error.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// Whether nothing went wrong.
    pub(crate) fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// One `compile_error!` per error, each spanned on its token.
    pub(crate) fn to_compile_errors(&self) -> TokenStream {
        self.errors
            .iter()
            .map(syn::Error::to_compile_error)
            .collect()
    }
}
