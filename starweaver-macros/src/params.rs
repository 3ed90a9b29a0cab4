//! The function's parameters: which is the context, which become
//! argument fields, and the helper attributes (`#[arg(..)]`, `#[args]`,
//! `#[context]`) that are removed from the function.

use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, Expr, FnArg, Ident, LitStr, Pat, Signature, Type};

use crate::docs::is_doc;
use crate::errors::Errors;
use crate::suggest::unknown_key;

/// Every key `#[arg(..)]` takes.
const ARG_KEYS: &[&str] = &["default", "rename", "description"];

/// One argument field (one non-context parameter).
pub(crate) struct Field {
    /// The parameter's name, also the field's.
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    /// The parameter's `///` lines.
    pub(crate) docs: Vec<Attribute>,
    pub(crate) rename: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) default: Option<Expr>,
    /// An `Option<T>`: optional, absent is `None`.
    pub(crate) optional: bool,
}

/// What goes in each parameter position of the call.
pub(crate) enum Slot {
    /// The injected `ToolContext`, by value or (`&ToolContext`) borrowed.
    Context {
        /// Written `&ToolContext`.
        by_ref: bool,
    },
    /// Field `n` of the argument struct.
    Field(usize),
    /// The whole argument struct (`#[args]`).
    Whole,
}

/// The parameters, analysed.
#[derive(Default)]
pub(crate) struct Params {
    pub(crate) slots: Vec<Slot>,
    pub(crate) fields: Vec<Field>,
    /// The `#[args]` parameter's type.
    pub(crate) whole: Option<Type>,
}

/// Helper attributes found on one parameter.
#[derive(Default)]
struct Helpers {
    docs: Vec<Attribute>,
    context: bool,
    /// Where `#[args]` was written.
    args: Option<proc_macro2::Span>,
    /// Where the first `#[arg(..)]` was written.
    arg: Option<proc_macro2::Span>,
    rename: Option<LitStr>,
    description: Option<LitStr>,
    default: Option<(Expr, proc_macro2::Span)>,
}

/// Analyses `sig`'s parameters and strips the helper attributes (and
/// the parameters' doc comments, which Rust rejects on parameters) from
/// it, whatever errors are found.
pub(crate) fn analyse(sig: &mut Signature, errors: &mut Errors) -> Params {
    let mut params = Params::default();
    let mut context_seen = false;
    let mut whole_seen = false;
    // Non-context parameters that are not `#[args]`, for the mix check.
    let mut plain: Vec<proc_macro2::Span> = Vec::new();
    for input in &mut sig.inputs {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                errors.push(syn::Error::new(
                    receiver.self_token.span,
                    "a tool cannot take `self`: write a free function (the tool has no receiver to call it on)",
                ));
                continue;
            }
            FnArg::Typed(typed) => typed,
        };
        let helpers = take_helpers(&mut typed.attrs, errors);
        let (context_ty, by_ref) = match &*typed.ty {
            Type::Reference(reference) => (&*reference.elem, Some(reference)),
            ty => (ty, None),
        };
        if helpers.context || is_tool_context(context_ty) {
            if let Some(span) = helpers.arg {
                errors.push(syn::Error::new(
                    span,
                    "`#[arg(..)]` describes an argument property, and the context is not an \
                     argument: remove it",
                ));
            }
            if let Some(span) = helpers.args {
                errors.push(syn::Error::new(
                    span,
                    "a parameter is either the context or `#[args]`, not both",
                ));
            }
            if let Some(mutability) = by_ref.and_then(|reference| reference.mutability) {
                errors.push(syn::Error::new(
                    mutability.span,
                    "the context is shared: take it as `ToolContext` or `&ToolContext`, \
                     not `&mut`",
                ));
            }
            if context_seen {
                errors.push(syn::Error::new(
                    typed.span(),
                    "a tool takes at most one context parameter; this is the second",
                ));
                continue;
            }
            context_seen = true;
            params.slots.push(Slot::Context {
                by_ref: by_ref.is_some(),
            });
            continue;
        }
        if let Some(span) = helpers.args {
            if let Some(arg) = helpers.arg {
                errors.push(syn::Error::new(
                    arg,
                    "`#[arg(..)]` has no effect on an `#[args]` parameter: put `#[serde(..)]` \
                     and `#[schemars(..)]` attributes on the struct's fields instead",
                ));
            }
            if whole_seen {
                errors.push(syn::Error::new(span, "only one parameter can be `#[args]`"));
                continue;
            }
            whole_seen = true;
            params.whole = Some((*typed.ty).clone());
            params.slots.push(Slot::Whole);
            continue;
        }
        let Pat::Ident(pat) = &*typed.pat else {
            errors.push(syn::Error::new(
                typed.pat.span(),
                "a tool parameter must be a plain name (`term: String`), not a pattern: \
                 its name is the argument's name",
            ));
            continue;
        };
        plain.push(pat.ident.span());
        check_owned(&typed.ty, errors);
        let optional = is_option(&typed.ty);
        if let (true, Some((_, span))) = (optional, &helpers.default) {
            errors.push(syn::Error::new(
                *span,
                "`#[arg(default = ..)]` on an `Option` parameter: an absent `Option` is already \
                 `None`; drop the default or the `Option`",
            ));
        }
        params.slots.push(Slot::Field(params.fields.len()));
        params.fields.push(Field {
            ident: pat.ident.clone(),
            ty: (*typed.ty).clone(),
            docs: helpers.docs,
            rename: helpers.rename,
            description: helpers.description,
            default: helpers.default.map(|(expr, _)| expr),
            optional,
        });
    }
    if whole_seen {
        for span in plain {
            errors.push(syn::Error::new(
                span,
                "with an `#[args]` parameter the tool's arguments are that struct; \
                 move this parameter into it (only the context may stay beside it)",
            ));
        }
    }
    params
}

/// Removes doc, `#[arg]`, `#[args]` and `#[context]` attributes from a
/// parameter, returning what they said. Other attributes stay.
fn take_helpers(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> Helpers {
    let mut helpers = Helpers::default();
    let mut seen: Vec<String> = Vec::new();
    attrs.retain(|attr| {
        if is_doc(attr) {
            helpers.docs.push(attr.clone());
        } else if attr.path().is_ident("context") {
            helpers.context = true;
        } else if attr.path().is_ident("args") {
            helpers.args = Some(attr.path().span());
        } else if attr.path().is_ident("arg") {
            helpers.arg.get_or_insert(attr.path().span());
            if let Err(error) = parse_arg(attr, &mut helpers, &mut seen) {
                errors.push(error);
            }
        } else {
            return true;
        }
        false
    });
    helpers
}

/// `#[arg(default = EXPR, rename = "..", description = "..")]`.
fn parse_arg(attr: &Attribute, helpers: &mut Helpers, seen: &mut Vec<String>) -> syn::Result<()> {
    attr.parse_nested_meta(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if !ARG_KEYS.contains(&key.as_str()) {
            let shown = meta
                .path
                .segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect::<Vec<_>>()
                .join("::");
            return Err(meta.error(unknown_key("`#[arg]` key", &shown, ARG_KEYS)));
        }
        if seen.contains(&key) {
            return Err(meta.error(format!("duplicate `#[arg]` key `{key}`")));
        }
        seen.push(key.clone());
        let span = meta.path.span();
        let value = meta.value()?;
        match key.as_str() {
            "default" => helpers.default = Some((value.parse()?, span)),
            "rename" => helpers.rename = Some(value.parse()?),
            _ => helpers.description = Some(value.parse()?),
        }
        Ok(())
    })
}

/// Rejects what cannot be a field deserialized afresh for each call,
/// anywhere in the type: borrows (`&str`, `Vec<&str>`, `Cow<'a, str>`)
/// and `impl Trait`.
fn check_owned(ty: &Type, errors: &mut Errors) {
    struct Owned<'e> {
        errors: &'e mut Errors,
    }
    const BORROWED: &str = "a tool argument is deserialized from JSON, so it must be owned: \
                            take `String` instead of `&str`, `Vec<T>` instead of `&[T]`";
    impl<'ast> Visit<'ast> for Owned<'_> {
        fn visit_type_reference(&mut self, reference: &'ast syn::TypeReference) {
            self.errors
                .push(syn::Error::new(reference.and_token.span, BORROWED));
        }
        fn visit_lifetime(&mut self, lifetime: &'ast syn::Lifetime) {
            if lifetime.ident != "static" {
                self.errors.push(syn::Error::new(lifetime.span(), BORROWED));
            }
        }
        fn visit_type_impl_trait(&mut self, found: &'ast syn::TypeImplTrait) {
            self.errors.push(syn::Error::new(
                found.impl_token.span,
                "a tool argument cannot be `impl Trait`: its schema and deserialization need \
                 one concrete type (take `Vec<String>`, not `impl IntoIterator<Item = String>`)",
            ));
        }
    }
    Owned { errors }.visit_type(ty);
}

/// The last path segment's name, when `ty` is a path type.
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        Type::Paren(inner) => last_segment(&inner.elem),
        Type::Group(inner) => last_segment(&inner.elem),
        _ => None,
    }
}

/// `ToolContext` bare or as a path ending in it.
fn is_tool_context(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|segment| segment.ident == "ToolContext")
}

/// `Option<T>` (bare or `std::option::Option<T>`).
fn is_option(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|segment| {
        segment.ident == "Option"
            && matches!(segment.arguments, syn::PathArguments::AngleBracketed(_))
    })
}

/// Exposed for the return-type analysis.
pub(crate) fn segment_of(ty: &Type) -> Option<&syn::PathSegment> {
    last_segment(ty)
}
