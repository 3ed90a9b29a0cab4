//! What the function returns, and how it becomes a tool result.

use syn::{GenericArgument, PathArguments, ReturnType, Type};

use crate::params::segment_of;

/// The three return forms.
pub(crate) enum Output {
    /// `Result<T, E>`: `T` is the success type (`None` when the alias
    /// names no type argument).
    Result(Option<Type>),
    /// `Result<ToolResult, E>`: the success used as it is, not
    /// serialized into another result's content.
    ResultOfToolResult,
    /// `ToolResult`, used as it is.
    ToolResult,
    /// Any other `T`, `()` included.
    Value(Type),
}

/// Classifies by the return type's last path segment.
pub(crate) fn output(ret: &ReturnType) -> Output {
    let ty = match ret {
        ReturnType::Default => return Output::Value(syn::parse_quote!(())),
        ReturnType::Type(_, ty) => ty,
    };
    match segment_of(ty) {
        Some(segment) if segment.ident == "Result" => {
            let success = match &segment.arguments {
                PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
                    GenericArgument::Type(ty) => Some(ty.clone()),
                    _ => None,
                }),
                _ => None,
            };
            match &success {
                Some(ty) if segment_of(ty).is_some_and(|s| s.ident == "ToolResult") => {
                    Output::ResultOfToolResult
                }
                _ => Output::Result(success),
            }
        }
        Some(segment) if segment.ident == "ToolResult" => Output::ToolResult,
        _ => Output::Value((**ty).clone()),
    }
}
