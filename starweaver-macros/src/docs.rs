//! Reading `///` doc comments.

use syn::{Attribute, Expr, Lit, Meta};

/// Whether `attr` is a doc comment (`///` or `#[doc = ".."]`).
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

/// The doc comment's text: every line (one leading space dropped, as
/// rustdoc does) joined with newlines, then trimmed. Empty when there
/// is none.
pub(crate) fn doc_text(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| is_doc(attr))
        .filter_map(|attr| match &attr.meta {
            Meta::NameValue(pair) => match &pair.value {
                Expr::Lit(expr) => match &expr.lit {
                    Lit::Str(text) => Some(text.value()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).to_string())
        .collect();
    lines.join("\n").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            doc_text(&item.attrs),
            "Look up a term.\n\n  Indented second paragraph."
        );
    }
}
