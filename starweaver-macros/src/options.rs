//! The attribute's own keys: `#[starweaver::tool(timeout_ms = 1_000, ..)]`.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, LitBool, LitInt, LitStr, Token};

use crate::suggest::unknown_key;

/// Every key the attribute takes.
const KEYS: &[&str] = &[
    "name",
    "description",
    "timeout_ms",
    "max_retries",
    "tags",
    "hidden_by_tags",
    "kind",
    "strict",
    "sequential",
    "at_most_once",
    "return_schema",
    "dependencies",
];

/// Tool kinds by their attribute spelling, with the `ToolKind` variant.
const KINDS: &[(&str, &str)] = &[
    ("function", "Function"),
    ("output", "Output"),
    ("external", "External"),
    ("unapproved", "Unapproved"),
    ("deferred", "Deferred"),
];

/// `dependencies = filtered(..)` or `strict(..)`.
pub(crate) struct Dependencies {
    /// `filtered` or `strict` (the constructor's name).
    pub(crate) profile: Ident,
    /// Host capability names.
    pub(crate) host: Vec<LitStr>,
    /// `context("..")` names.
    pub(crate) context: Vec<LitStr>,
}

/// What the attribute said; `None` is "not given".
#[derive(Default)]
pub(crate) struct ToolOptions {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) timeout_ms: Option<LitInt>,
    pub(crate) max_retries: Option<LitInt>,
    pub(crate) tags: Option<Vec<LitStr>>,
    pub(crate) hidden_by_tags: Option<Vec<LitStr>>,
    /// The `ToolKind` variant.
    pub(crate) kind: Option<Ident>,
    pub(crate) strict: Option<bool>,
    pub(crate) sequential: Option<bool>,
    pub(crate) at_most_once: Option<bool>,
    /// Where `return_schema` was written (for errors).
    pub(crate) return_schema: Option<Span>,
    pub(crate) dependencies: Option<Dependencies>,
}

impl ToolOptions {
    /// Parses the attribute's arguments; the first misuse is the error.
    pub(crate) fn parse(attr: TokenStream) -> syn::Result<Self> {
        let mut options = Self::default();
        let mut seen: Vec<String> = Vec::new();
        let parser = syn::meta::parser(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            if !KEYS.contains(&key.as_str()) {
                let shown = path_text(&meta.path);
                return Err(meta.error(unknown_key("attribute key", &shown, KEYS)));
            }
            if seen.contains(&key) {
                return Err(meta.error(format!("duplicate attribute key `{key}`")));
            }
            seen.push(key.clone());
            options.parse_key(&key, &meta)
        });
        parser.parse2(attr)?;
        Ok(options)
    }

    fn parse_key(&mut self, key: &str, meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
        match key {
            "name" => {
                let name: LitStr = meta.value()?.parse()?;
                check_name(&name.value(), name.span())?;
                self.name = Some(name);
            }
            "description" => self.description = Some(meta.value()?.parse()?),
            "timeout_ms" => {
                let value: LitInt = meta.value()?.parse()?;
                value.base10_parse::<u64>()?;
                self.timeout_ms = Some(value);
            }
            "max_retries" => {
                let value: LitInt = meta.value()?.parse()?;
                value.base10_parse::<u32>()?;
                self.max_retries = Some(value);
            }
            "tags" => self.tags = Some(string_list(meta.input)?),
            "hidden_by_tags" => self.hidden_by_tags = Some(string_list(meta.input)?),
            "kind" => self.kind = Some(kind(meta.value()?.parse()?)?),
            "strict" => self.strict = Some(flag(meta)?),
            "sequential" => self.sequential = Some(flag(meta)?),
            "at_most_once" => self.at_most_once = Some(flag(meta)?),
            "return_schema" => self.return_schema = Some(meta.path.require_ident()?.span()),
            _ => self.dependencies = Some(dependencies(meta.value()?)?),
        }
        Ok(())
    }
}

/// The path as written (`a::b`), for messages.
fn path_text(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// Tool names are what model providers accept: `^[A-Za-z0-9_-]{1,64}$`,
/// the rule `starweaver-names` holds for the runtime too. One message for
/// every way a name breaks it, since the span already points at the name.
pub(crate) fn check_name(name: &str, span: Span) -> syn::Result<()> {
    if !starweaver_names::is_valid_name(name) {
        return Err(syn::Error::new(
            span,
            format!(
                "invalid tool name `{name}`: a tool name is 1 to 64 ASCII letters, digits, \
                 `_` or `-`"
            ),
        ));
    }
    Ok(())
}

/// `("a", "b")`.
fn string_list(input: ParseStream<'_>) -> syn::Result<Vec<LitStr>> {
    let content;
    syn::parenthesized!(content in input);
    let list = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
    Ok(list.into_iter().collect())
}

/// `kind = "output"` -> the `ToolKind` variant.
fn kind(value: LitStr) -> syn::Result<Ident> {
    let text = value.value();
    match KINDS.iter().find(|(spelling, _)| *spelling == text) {
        Some((_, variant)) => Ok(Ident::new(variant, value.span())),
        None => {
            let allowed = KINDS
                .iter()
                .map(|(spelling, _)| format!("\"{spelling}\""))
                .collect::<Vec<_>>()
                .join(", ");
            Err(syn::Error::new(
                value.span(),
                format!("invalid tool kind \"{text}\"; expected one of {allowed}"),
            ))
        }
    }
}

/// `strict` alone is `true`; `strict = false` is allowed too.
fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        let value: LitBool = meta.value()?.parse()?;
        Ok(value.value)
    } else {
        Ok(true)
    }
}

/// `filtered("name", .., context("starweaver.context.tasks"))`.
fn dependencies(input: ParseStream<'_>) -> syn::Result<Dependencies> {
    let profile: Ident = input.parse()?;
    if profile != "filtered" && profile != "strict" {
        return Err(syn::Error::new(
            profile.span(),
            format!(
                "unknown dependency profile `{profile}`; expected `filtered(..)` or `strict(..)`"
            ),
        ));
    }
    let content;
    syn::parenthesized!(content in input);
    let mut found = Dependencies {
        profile,
        host: Vec::new(),
        context: Vec::new(),
    };
    while !content.is_empty() {
        if content.peek(LitStr) {
            found.host.push(content.parse()?);
        } else {
            let word: Ident = content.parse()?;
            if word != "context" {
                return Err(syn::Error::new(
                    word.span(),
                    "expected a host capability name (\"name\") or `context(\"starweaver.context..\")`",
                ));
            }
            let inner;
            syn::parenthesized!(inner in content);
            found.context.push(inner.parse()?);
        }
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(found)
}
