//! Reading `///` doc comments.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Expr, Lit, Meta};

/// Whether `attr` is a doc comment (`///` or `#[doc = ".."]`).
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

/// A doc comment, as the description needs it.
pub(crate) enum Doc {
    /// Every line is a literal: the normalized text, known now.
    Text(String),
    /// Some line is an expression (`#[doc = include_str!("..")]`): the
    /// fragments, to be joined and normalized when the tool is built.
    Fragments(Vec<Expr>),
}

impl Doc {
    /// Whether the description is known to be empty.
    pub(crate) fn is_empty(&self) -> bool {
        matches!(self, Self::Text(text) if text.is_empty())
    }

    /// An expression of type `&str` or `String` for the description.
    pub(crate) fn tokens(&self, fw: &TokenStream) -> TokenStream {
        match self {
            Self::Text(text) => quote!(#text),
            Self::Fragments(parts) => quote!(#fw::__private::doc_text(&[#(#parts),*])),
        }
    }
}

/// The doc comment of `attrs` (only `#[doc = ..]` attributes count).
pub(crate) fn doc(attrs: &[Attribute]) -> Doc {
    let values: Vec<&Expr> = attrs
        .iter()
        .filter(|attr| is_doc(attr))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(pair) => Some(&pair.value),
            _ => None,
        })
        .collect();
    let literal = |value: &Expr| match value {
        Expr::Lit(expr) => match &expr.lit {
            Lit::Str(text) => Some(text.value()),
            _ => None,
        },
        _ => None,
    };
    match values
        .iter()
        .map(|value| literal(value))
        .collect::<Option<Vec<String>>>()
    {
        Some(lines) => Doc::Text(normalize(&lines)),
        None => Doc::Fragments(values.into_iter().cloned().collect()),
    }
}

/// The text a reader of the rendered docs sees: each fragment's first
/// space dropped (the one `///` adds), fragments joined by newlines, the
/// indentation common to every non-blank line removed (so an indented
/// multi-line `#[doc = ".."]` loses its margin), trailing spaces and leading/trailing blank lines
/// dropped; paragraphs and deeper indentation stay. The facade's
/// `__private::doc_text` does the same at run time; keep them in step.
pub(crate) fn normalize<S: AsRef<str>>(fragments: &[S]) -> String {
    let joined = fragments
        .iter()
        .map(|fragment| {
            let fragment = fragment.as_ref();
            fragment.strip_prefix(' ').unwrap_or(fragment)
        })
        .collect::<Vec<_>>()
        .join("\n");
    let lines: Vec<&str> = joined.lines().map(str::trim_end).collect();
    let margin = lines
        .iter()
        .filter(|line| !line.is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let text = lines
        .iter()
        .map(|line| line.get(margin..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    text.trim_matches('\n').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(item: &syn::ItemFn) -> String {
        match doc(&item.attrs) {
            Doc::Text(text) => text,
            Doc::Fragments(_) => String::from("<fragments>"),
        }
    }

    #[test]
    fn keeps_every_paragraph_and_trims() {
        let item: syn::ItemFn = syn::parse_quote! {
            /// Look up a term.
            ///
            ///   Indented second paragraph.
            ///
            fn f() {}
        };
        assert_eq!(
            text(&item),
            "Look up a term.\n\n  Indented second paragraph."
        );
    }

    #[test]
    fn removes_the_common_margin_as_rustdoc_does() {
        let item: syn::ItemFn = syn::parse_quote! {
            ///  Two spaces after the slashes.
            ///  Every line.
            fn f() {}
        };
        assert_eq!(text(&item), "Two spaces after the slashes.\nEvery line.");
        let item: syn::ItemFn = syn::parse_quote! {
            #[doc = "
                Look up a term.

                Second paragraph.
            "]
            fn f() {}
        };
        assert_eq!(text(&item), "Look up a term.\n\nSecond paragraph.");
    }

    #[test]
    fn an_expression_line_is_left_to_run_time() {
        let item: syn::ItemFn = syn::parse_quote! {
            /// Intro.
            #[doc = include_str!("x.md")]
            fn f() {}
        };
        assert!(matches!(doc(&item.attrs), Doc::Fragments(parts) if parts.len() == 2));
    }
}
