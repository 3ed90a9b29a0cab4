//! The expansion: the cleaned function, the argument struct, `NAME_tool()`
//! and the catalog registration.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Ident, ItemFn};

use crate::docs::{doc, normalize, Doc};
use crate::errors::Errors;
use crate::facade::{facade, Facade};
use crate::options::{check_name, ToolOptions};
use crate::params::{analyse, Field, Params, Slot};
use crate::returns::{output, Output};

/// `T` of an `Option<T>` as written.
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let segment = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(arguments) = &segment.arguments else {
        return None;
    };
    match arguments.args.first() {
        Some(syn::GenericArgument::Type(inner)) if arguments.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// The argument type of a tool, as the tool uses it and as the helpers see it.
struct Shape {
    /// The type with the written argument types: `__lookup_args<String, Option<String>>`.
    concrete: TokenStream,
    /// The same with the helpers' parameters: `__lookup_args<__A0, __A1>`.
    generic: TokenStream,
    /// The parameters, one per argument type checked.
    params: Vec<Ident>,
    /// The written types they stand for, each with its own span.
    types: Vec<TokenStream>,
    /// The struct and its default functions (nothing for an `#[args]` type).
    tokens: TokenStream,
}

/// Expands `#[starweaver::tool(attr)] item`. On misuse it still emits
/// the cleaned function, so the only errors are the macro's own.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut function: ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(error) => {
            let error = syn::Error::new(
                error.span(),
                "`#[starweaver::tool]` goes on a function (`async fn name(..)` or `fn name(..)`)",
            )
            .to_compile_error();
            return quote!(#error #item);
        }
    };
    let mut errors = Errors::default();
    let options = ToolOptions::parse(attr).unwrap_or_else(|error| {
        errors.push(error);
        ToolOptions::default()
    });
    let generics = &function.sig.generics;
    if !generics.params.is_empty() || generics.where_clause.is_some() {
        let span = generics
            .params
            .first()
            .map(Spanned::span)
            .or_else(|| generics.where_clause.as_ref().map(Spanned::span))
            .unwrap_or_else(|| generics.span());
        errors.push(syn::Error::new(
            span,
            "a tool function cannot be generic: its argument and return types must be concrete \
             for the schema",
        ));
    }
    if let Some(unsafety) = &function.sig.unsafety {
        errors.push(syn::Error::new(
            unsafety.span,
            "a tool function cannot be `unsafe`: the tool calls it with no way to uphold its \
             safety contract; make it safe and keep the `unsafe` block inside",
        ));
    }
    let params = analyse(&mut function.sig, &mut errors);
    let tool = Tool::new(&function, options, params, &mut errors);
    if !errors.is_empty() {
        let compile_errors = errors.to_compile_errors();
        return quote!(#function #compile_errors);
    }
    let generated = tool.map(|tool| tool.generate(&function, &facade()));
    quote!(#function #generated)
}

/// The closure's context parameter, out of reach of the user's names.
fn context_ident() -> Ident {
    Ident::new("__ctx", Span::mixed_site())
}

/// The closure's arguments parameter, out of reach of the user's names.
fn args_ident() -> Ident {
    Ident::new("__args", Span::mixed_site())
}

/// Everything the generated items need, checked.
struct Tool {
    name: String,
    description: Doc,
    options: ToolOptions,
    params: Params,
    output: Output,
}

impl Tool {
    fn new(
        function: &ItemFn,
        options: ToolOptions,
        params: Params,
        errors: &mut Errors,
    ) -> Option<Self> {
        let ident = &function.sig.ident;
        let name = match &options.name {
            Some(name) => name.value(),
            None => {
                let name = ident.unraw().to_string();
                if let Err(error) = check_name(&name, ident.span()) {
                    errors.push(error);
                }
                name
            }
        };
        let description = match &options.description {
            Some(text) => Doc::Text(normalize(&[text.value()])),
            None => doc(&function.attrs),
        };
        if description.is_empty() {
            let span = options
                .description
                .as_ref()
                .map_or_else(|| ident.span(), syn::LitStr::span);
            errors.push(syn::Error::new(
                span,
                format!(
                    "tool `{name}` has no description: add a `///` doc comment to the function \
                     or `description = \"..\"` to the attribute (the model reads it to choose \
                     the tool)"
                ),
            ));
        }
        let output = output(&function.sig.output);
        if let Some(span) = options.return_schema {
            let typed = match &output {
                Output::Result(success) => success.is_some(),
                Output::Value(_) => true,
                Output::ToolResult | Output::ResultOfToolResult => false,
            };
            if !typed {
                errors.push(syn::Error::new(
                    span,
                    "`return_schema` needs a typed success value (`T` or `Result<T, E>`); \
                     a `ToolResult` (or `Result<ToolResult, E>`) return has no type to describe",
                ));
            }
        }
        Some(Self {
            name,
            description,
            options,
            params,
            output,
        })
    }

    fn generate(&self, function: &ItemFn, facade: &Facade) -> TokenStream {
        let fw = &facade.path;
        let vis = &function.vis;
        let fn_ident = &function.sig.ident;
        let base = fn_ident.unraw();
        let tool_fn = format_ident!("{}_tool", base, span = fn_ident.span());
        let Shape {
            concrete: args_ty,
            generic: generic_ty,
            params,
            types,
            tokens: args_struct,
        } = self.args_struct(function, facade);
        let call = self.call(function, fw);
        let ctx_pat = if self
            .params
            .slots
            .iter()
            .any(|slot| matches!(slot, Slot::Context { .. }))
        {
            let ctx = context_ident();
            quote!(#ctx)
        } else {
            quote!(_)
        };
        let args = args_ident();
        let name = &self.name;
        let description = self.description.tokens(fw);
        // `line!()` spanned on the function's name is the function's line,
        // not the attribute's.
        let line = quote_spanned!(fn_ident.span()=> line!());
        let builders = self.builders(fw);
        let doc = format!("The `{name}` tool, made from [`{base}`] by `#[starweaver::tool]`.");
        let make = format_ident!("__{}_make", base);
        let checked = format_ident!("__{}_checked", base);
        let dynamic = format_ident!("__{}_dyn", base);
        // Each argument type is a generic parameter of these helpers, bounded by the traits
        // whose messages name the missing derive: a type without them is an error on the type
        // as written (the turbofish below carries its span), and nothing else fails.
        let bounds = quote!(
            #fw::__private::DeserializeArgument
                + #fw::__private::SchemaArgument
                + ::std::marker::Send
                + 'static
        );
        let generics = quote!(#(#params: #bounds),*);
        let turbofish = if types.is_empty() {
            TokenStream::new()
        } else {
            quote!(::<#(#types),*>)
        };
        quote! {
            #args_struct

            #[doc(hidden)]
            fn #checked<#generics>() {}

            #[doc(hidden)]
            fn #make<#(#params: #bounds,)* __F, __Fut>(__f: __F) -> #fw::tools::TypedFunctionTool<#generic_ty>
            where
                __F: ::std::ops::Fn(#fw::tools::ToolContext, #generic_ty) -> __Fut
                    + ::std::marker::Send
                    + ::std::marker::Sync
                    + 'static,
                __Fut: ::std::future::Future<
                        Output = ::std::result::Result<#fw::tools::ToolResult, #fw::tools::ToolError>,
                    > + ::std::marker::Send
                    + 'static,
            {
                #fw::tools::typed_tool::<#generic_ty, _, _>(
                    #name,
                    ::std::option::Option::Some(::std::string::String::from(#description)),
                    __f,
                )
                #builders
            }

            #[doc(hidden)]
            fn #dynamic<#generics>(__tool: #fw::tools::TypedFunctionTool<#generic_ty>) -> #fw::tools::DynTool {
                ::std::sync::Arc::new(__tool)
            }

            #[doc = #doc]
            #[allow(deprecated)]
            #vis fn #tool_fn() -> #fw::tools::TypedFunctionTool<#args_ty> {
                #checked #turbofish();
                #make::<#(#types,)* _, _>(
                    |#ctx_pat: #fw::tools::ToolContext, #args: #args_ty| async move { #call },
                )
            }

            const _: () = {
                fn __build() -> #fw::tools::DynTool {
                    #checked #turbofish();
                    #dynamic #turbofish(#tool_fn())
                }
                #fw::__private::inventory::submit! {
                    #fw::__private::CatalogEntry::new(#name, __build, file!(), #line)
                }
            };
        }
    }

    /// The argument type and, unless it is an `#[args]` type, its struct
    /// (with one default function per `#[arg(default = ..)]`). The struct is
    /// generic over the type of each field without a default, so its derived
    /// impls are bounded by those types' traits and never fail inside: a type
    /// without the derives fails only at the helpers' bounds, on the type.
    fn args_struct(&self, function: &ItemFn, facade: &Facade) -> Shape {
        if let Some(whole) = &self.params.whole {
            let param = Ident::new("__A0", Span::call_site());
            return Shape {
                concrete: quote!(#whole),
                generic: quote!(#param),
                params: vec![param],
                types: vec![quote!(#whole)],
                tokens: TokenStream::new(),
            };
        }
        let fw = &facade.path;
        let base = function.sig.ident.unraw();
        let ident = format_ident!("__{}_args", base);
        let vis = &function.vis;
        let serde_crate = format!("{}::__private::serde", facade.text);
        let schemars_crate = format!("{}::__private::schemars", facade.text);
        let mut defaults = Vec::new();
        let mut params = Vec::new();
        let mut types = Vec::new();
        let fields = self.params.fields.iter().map(|field| {
            let Field {
                ident: field_ident,
                ty,
                docs,
                ..
            } = field;
            let mut attrs = Vec::new();
            match &field.description {
                Some(text) => attrs.push(quote!(#[schemars(description = #text)])),
                None => attrs.push(quote!(#(#docs)*)),
            }
            if let Some(rename) = &field.rename {
                attrs.push(quote!(#[serde(rename = #rename)]));
            }
            if field.optional {
                attrs.push(quote!(#[serde(default)]));
            }
            if let Some(expr) = &field.default {
                let default_fn = format_ident!("__{}_default_{}", base, field_ident.unraw());
                let path = default_fn.to_string();
                attrs.push(quote!(#[serde(default = #path)] #[schemars(default = #path)]));
                defaults.push(quote! {
                    #[doc(hidden)]
                    fn #default_fn() -> #ty { #expr }
                });
            }
            // A default function returns the written type, so that field stays concrete.
            if field.default.is_some() {
                return quote!(#(#attrs)* #field_ident: #ty);
            }
            let param = Ident::new(&format!("__A{}", params.len()), Span::call_site());
            // An `Option<T>` stays an `Option` (absent is `None`, which needs no bound): the
            // parameter stands for `T`.
            // Its schema's `default: null` is written out: schemars shows a default only for a
            // type it knows to be `Serialize`, which a parameter is not.
            let (field_ty, checked) = match field.optional.then(|| option_inner(ty)).flatten() {
                Some(inner) => {
                    attrs.push(quote!(#[schemars(extend("default" = null))]));
                    (quote!(::std::option::Option<#param>), quote!(#inner))
                }
                None => (quote!(#param), quote!(#ty)),
            };
            params.push(param);
            types.push(checked);
            quote!(#(#attrs)* #field_ident: #field_ty)
        });
        let fields: Vec<TokenStream> = fields.collect();
        let bound = |path: &str| {
            let each: Vec<String> = params
                .iter()
                .map(|param| format!("{param}: {path}"))
                .collect();
            each.join(", ")
        };
        let serde_bound = bound(&format!(
            "{}::__private::serde::de::DeserializeOwned",
            facade.text
        ));
        let schemars_bound = bound(&format!("{}::__private::schemars::JsonSchema", facade.text));
        let tokens = quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            #[derive(#fw::__private::serde::Deserialize, #fw::__private::schemars::JsonSchema)]
            #[serde(crate = #serde_crate, deny_unknown_fields, bound = #serde_bound)]
            #[schemars(crate = #schemars_crate, bound = #schemars_bound)]
            #vis struct #ident<#(#params),*> {
                #(#fields),*
            }

            #(#defaults)*
        };
        Shape {
            concrete: quote!(#ident<#(#types),*>),
            generic: quote!(#ident<#(#params),*>),
            params,
            types,
            tokens,
        }
    }

    /// The closure body: unpack the arguments, call the function, convert.
    fn call(&self, function: &ItemFn, fw: &TokenStream) -> TokenStream {
        let fn_ident = &function.sig.ident;
        // The bindings are hygienic (`mixed_site`): a parameter named like
        // the function, `__ctx` or `__args` cannot shadow what the call
        // needs.
        let ctx = context_ident();
        let args = args_ident();
        let fields: Vec<&Ident> = self.params.fields.iter().map(|f| &f.ident).collect();
        let bindings: Vec<Ident> = (0..fields.len())
            .map(|index| Ident::new(&format!("__arg{index}"), Span::mixed_site()))
            .collect();
        let unpack = if self.params.whole.is_some() {
            TokenStream::new()
        } else {
            let ident = format_ident!("__{}_args", fn_ident.unraw());
            quote!(let #ident { #(#fields: #bindings),* } = #args;)
        };
        let values = self.params.slots.iter().map(|slot| match slot {
            Slot::Context { by_ref: false } => quote!(#ctx),
            Slot::Context { by_ref: true } => quote!(&#ctx),
            Slot::Field(index) => {
                let binding = &bindings[*index];
                quote!(#binding)
            }
            Slot::Whole => quote!(#args),
        });
        let invoke = quote!(#fn_ident(#(#values),*));
        // Spanned on the written return type, so an error type that is not
        // `Into<ToolError>` (or a value that is not `Serialize`) is reported
        // there, not on the attribute.
        let span = match &function.sig.output {
            syn::ReturnType::Type(_, ty) => ty.span(),
            syn::ReturnType::Default => fn_ident.span(),
        };
        let convert = match self.output {
            Output::Result(_) => quote_spanned!(span=> #fw::__private::output_of_result),
            Output::ResultOfToolResult => {
                quote_spanned!(span=> #fw::__private::output_of_result_tool_result)
            }
            Output::ToolResult => quote_spanned!(span=> #fw::__private::output_of_tool_result),
            Output::Value(_) => quote_spanned!(span=> #fw::__private::output_of_value),
        };
        // Hygienic, but located at the return type: the spot rustc names.
        let value = Ident::new("__value", Span::mixed_site().located_at(span));
        if function.sig.asyncness.is_some() {
            let converted = quote_spanned!(span=> #convert(#value));
            quote!(#unpack let #value = #invoke.await; #converted)
        } else {
            let converted = quote_spanned!(span=> #convert(#value));
            quote! {
                #unpack
                #fw::__private::run_blocking(move || #invoke)
                    .await
                    .and_then(|#value| #converted)
            }
        }
    }

    /// The chained `.with_*` calls, in the attribute's documented order.
    fn builders(&self, fw: &TokenStream) -> TokenStream {
        let options = &self.options;
        let mut chain = TokenStream::new();
        if let Some(value) = &options.timeout_ms {
            chain.extend(quote!(.with_timeout_ms(#value)));
        }
        if let Some(value) = &options.max_retries {
            chain.extend(quote!(.with_max_retries(#value)));
        }
        if let Some(tags) = &options.tags {
            chain.extend(quote!(.with_tags::<_, &str>([#(#tags),*])));
        }
        if let Some(tags) = &options.hidden_by_tags {
            chain.extend(quote!(.with_hidden_by_tags::<_, &str>([#(#tags),*])));
        }
        if let Some(kind) = &options.kind {
            chain.extend(quote!(.with_kind(#fw::tools::ToolKind::#kind)));
        }
        if let Some(strict) = options.strict {
            chain.extend(quote!(.with_strict_schema(#strict)));
        }
        if let Some(sequential) = options.sequential {
            chain.extend(quote!(.with_sequential(#sequential)));
        }
        if let Some(at_most_once) = options.at_most_once {
            chain.extend(quote!(.with_at_most_once(#at_most_once)));
        }
        if let Some(span) = options.return_schema {
            let success = match &self.output {
                Output::Result(Some(ty)) | Output::Value(ty) => quote!(#ty),
                _ => quote!(()),
            };
            chain.extend(
                quote_spanned!(span=> .with_return_schema(#fw::tools::schema_for_type::<#success>())),
            );
        }
        if let Some(deps) = &options.dependencies {
            let profile = &deps.profile;
            let host = &deps.host;
            let context = &deps.context;
            chain.extend(quote! {
                .with_dependencies(
                    #fw::tools::ToolDependencyRequirements::#profile::<_, &str>([#(#host),*])
                    #(.with_context_capability(#context))*
                )
            });
        }
        chain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(attr: TokenStream, item: TokenStream) -> String {
        expand(attr, item).to_string()
    }

    /// Prints one full expansion (`cargo test -p starweaver-macros --
    /// --nocapture`) and checks its parts.
    #[test]
    fn expands_to_the_function_a_struct_a_builder_chain_and_a_registration() {
        let text = expanded(
            quote!(timeout_ms = 1_000, tags("search"), max_retries = 2),
            quote! {
                /// Look up a value in the project's glossary.
                async fn lookup(
                    ctx: ToolContext,
                    /// Term to look up.
                    term: String,
                    /// Maximum number of results.
                    #[arg(default = 10)]
                    limit: usize,
                    /// Restrict to one section.
                    section: Option<String>,
                ) -> Result<Vec<Entry>, ToolError> { Ok(Vec::new()) }
            },
        );
        println!("{text}");
        for part in [
            "async fn lookup (ctx : ToolContext , term : String , limit : usize , section : Option < String > ,)",
            // Generic over each argument type without a default (an `Option`'s inner one), bounded on the impls only.
            "struct __lookup_args < __A0 , __A1 >",
            "# [serde (crate = \"::starweaver::__private::serde\" , deny_unknown_fields , bound = \"__A0: ::starweaver::__private::serde::de::DeserializeOwned, __A1: ::starweaver::__private::serde::de::DeserializeOwned\")]",
            "term : __A0",
            "# [serde (default = \"__lookup_default_limit\")] # [schemars (default = \"__lookup_default_limit\")] limit : usize",
            "# [serde (default)] # [schemars (extend (\"default\" = null))] section : :: std :: option :: Option < __A1 >",
            "fn __lookup_default_limit () -> usize { 10 }",
            "fn lookup_tool () -> :: starweaver :: tools :: TypedFunctionTool < __lookup_args < String , String > >",
            // The written types, each with its span, instantiate the checked helpers.
            "__lookup_checked :: < String , String > () ;",
            "__lookup_make :: < String , String , _ , _ >",
            "__lookup_dyn :: < String , String > (lookup_tool ())",
            "let __lookup_args { term : __arg0 , limit : __arg1 , section : __arg2 } = __args ;",
            "let __value = lookup (__ctx , __arg0 , __arg1 , __arg2) . await ; :: starweaver :: __private :: output_of_result (__value)",
            ". with_timeout_ms (1_000) . with_max_retries (2) . with_tags :: < _ , & str > ([\"search\"])",
            "CatalogEntry :: new (\"lookup\" , __build , file ! () , line ! ())",
            "# [allow (deprecated)] fn lookup_tool",
        ] {
            assert!(text.contains(part), "missing `{part}` in:\n{text}");
        }
    }

    #[test]
    fn sync_bodies_run_on_the_blocking_pool() {
        let text = expanded(
            quote!(),
            quote! {
                /// Words.
                fn words(text: String) -> Vec<String> { vec![text] }
            },
        );
        assert!(
            text.contains("run_blocking (move || words (__arg0)) . await . and_then (| __value | :: starweaver :: __private :: output_of_value (__value))"),
            "{text}"
        );
    }

    #[test]
    fn misuse_keeps_the_cleaned_function_beside_the_errors() {
        let text = expanded(
            quote!(timeout = 1),
            quote! {
                fn lookup(/// Doc.
                          #[arg(rename = "t")] term: String, #[context] ctx: Ctx) {}
            },
        );
        assert!(text.contains("compile_error !"), "{text}");
        assert!(
            text.contains("fn lookup (term : String , ctx : Ctx)"),
            "{text}"
        );
        assert!(!text.contains("lookup_tool"), "{text}");
    }
}
