//! `schema-compat`: a tool whose argument schema the manifest's model provider cannot take as
//! declared. Providers refuse a whole request over one bad tool schema, so the run leaves such a
//! tool out (an error here); a tool that asks for OpenAI strict mode and would lose meaning in
//! the strict rewrite is a warning listing each loss.
//!
//! The provider comes from `model.id` (`openai:...`, `anthropic:...`); other ids are not
//! checked. Code tools are checked when the context has their definitions (a catalog file, or
//! the linked catalog); first-party tools always, from the real bundle builders. Toolsets behind
//! a proxy are reached only through `call_tool`, so their schemas are never sent and not
//! checked. Tool names are checked by the `invalid-value` rule, not here.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::Value;
use starweaver_core::agent::OUTPUT_TOOL_NAME;
use starweaver_core::bundles::{filesystem_tools, shell_tools, user_input_tools};
use starweaver_core::model::{adapt_schema, SchemaChange, SchemaDialect, ToolDefinition};
use starweaver_core::tools::DynToolset;
use starweaver_core::toolsets::{tool_proxy_toolset, tool_search_toolset};

use super::model::short;
use super::toolsets::{called_by_name, Entry};
use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::Node;

/// The providers whose tool-schema rules are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Provider {
    OpenAi,
    Anthropic,
}

/// The provider `model.id` names, if its rules are known.
fn provider(root: &Node) -> Option<Provider> {
    let id = root.get("model")?.get("id")?.as_str()?;
    let (provider, model) = id.split_once(':')?;
    if model.is_empty() {
        return None;
    }
    match provider {
        "openai" => Some(Provider::OpenAi),
        "anthropic" => Some(Provider::Anthropic),
        _ => None,
    }
}

/// The first-party tools' definitions by name, from the real builders, built once per process.
pub(super) fn first_party() -> &'static BTreeMap<String, ToolDefinition> {
    static DEFINITIONS: OnceLock<BTreeMap<String, ToolDefinition>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| {
        let proxy: DynToolset = tool_proxy_toolset(Vec::<DynToolset>::new());
        let search: DynToolset = tool_search_toolset(Vec::<DynToolset>::new());
        [
            filesystem_tools(),
            shell_tools(),
            user_input_tools(),
            proxy,
            search,
        ]
        .iter()
        .flat_map(|toolset| toolset.get_tools())
        .map(|tool| {
            let definition = tool.definition();
            (definition.name.clone(), definition)
        })
        .collect()
    })
}

/// One diagnostic per tool the provider cannot take, or would take with losses in strict mode.
pub(super) fn check(root: &Node, entries: &[Entry<'_>], context: &CheckContext) -> Vec<Diagnostic> {
    let Some(provider) = provider(root) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (_, entry) in called_by_name(entries) {
        for tool in entry.tools() {
            let definition = match entry.kind {
                "tools" => context.catalog_definition(tool.text),
                "deferred" => first_party()
                    .get(tool.text)
                    .or_else(|| context.catalog_definition(tool.text)),
                _ if entry.bundle_tools().is_some() => first_party().get(tool.text),
                // An MCP server's schemas are the server's, known when it starts.
                _ => None,
            };
            let Some(definition) = definition else {
                continue;
            };
            let final_name = entry.final_name(tool.text);
            if let Some(diagnostic) = check_tool(provider, definition, &final_name, tool.span) {
                found.push(diagnostic);
            }
        }
    }
    found
}

/// The diagnostic for the output tool's arguments schema `parameters` (`output:`), reported at
/// `span`, if the manifest's model provider cannot take it as declared.
pub(super) fn check_output(
    root: &Node,
    parameters: &Value,
    span: crate::yaml::Span,
) -> Option<Diagnostic> {
    let provider = provider(root)?;
    let definition = ToolDefinition::new(OUTPUT_TOOL_NAME, None, parameters.clone());
    check_tool(provider, &definition, OUTPUT_TOOL_NAME, span)
}

/// The diagnostic for one tool, if any.
fn check_tool(
    provider: Provider,
    definition: &ToolDefinition,
    name: &str,
    span: crate::yaml::Span,
) -> Option<Diagnostic> {
    let (dialect, shown) = match provider {
        Provider::OpenAi if definition.strict == Some(true) => {
            (SchemaDialect::OpenAiStrict, "OpenAI in strict mode")
        }
        Provider::OpenAi => (SchemaDialect::OpenAi, "OpenAI"),
        Provider::Anthropic => (SchemaDialect::Anthropic, "Anthropic"),
    };
    match adapt_schema(&definition.parameters, dialect) {
        Err(error) => {
            let place = if error.path.is_empty() {
                String::new()
            } else {
                format!("at `{}` in its arguments schema, ", short(&error.path))
            };
            Some(
                Diagnostic::error(
                    Rule::SchemaCompat,
                    span,
                    format!(
                        "{shown} cannot take tool `{}`, so the run would leave it out: {place}{}",
                        short(name),
                        error.reason
                    ),
                )
                .with_help(error.help),
            )
        }
        Ok(adapted) if !adapted.is_lossless() => {
            let losses: Vec<String> = adapted
                .lossy_changes()
                .map(|change| describe_loss(&definition.parameters, change))
                .collect();
            Some(
                Diagnostic::warning(
                    Rule::SchemaCompat,
                    span,
                    format!(
                        "tool `{}` asks for strict mode, and OpenAI's strict rewrite of its arguments schema loses meaning: {}",
                        short(name),
                        losses.join("; ")
                    ),
                )
                .with_help(
                    "change the argument type so strict mode can express it (a struct instead of a map, a typed field instead of any value), or stop asking for strict mode",
                ),
            )
        }
        Ok(_) => None,
    }
}

/// One loss as `` `PATH` (field `f` of `Struct`): CHANGE, losing LOST ``.
fn describe_loss(schema: &Value, change: &SchemaChange) -> String {
    let field = rust_field(schema, &change.path)
        .map(|field| format!(" ({field})"))
        .unwrap_or_default();
    let path = if change.path.is_empty() {
        "the root".to_string()
    } else {
        format!("`{}`", short(&change.path))
    };
    format!(
        "{path}{field}: {}, losing {}",
        change.change,
        change.lost.as_deref().unwrap_or("nothing")
    )
}

/// The Rust field a JSON Pointer into a schema ends in: the last `properties/NAME` on the way,
/// with the struct name when the object holding it has a `title` (schema generators put the
/// type's name there).
fn rust_field(schema: &Value, path: &str) -> Option<String> {
    let mut node = schema;
    let mut field: Option<(String, Option<String>)> = None;
    let mut tokens = path.split('/').skip(1).map(unescape);
    while let Some(token) = tokens.next() {
        if token == "properties" && node.is_object() {
            let Some(name) = tokens.next() else { break };
            let title = node.get("title").and_then(Value::as_str).map(str::to_owned);
            let Some(next) = node
                .get("properties")
                .and_then(|properties| properties.get(&name))
            else {
                break;
            };
            field = Some((name, title));
            node = next;
            continue;
        }
        node = match node {
            Value::Object(map) => match map.get(&token) {
                Some(next) => next,
                None => break,
            },
            Value::Array(items) => match token.parse::<usize>().ok().and_then(|i| items.get(i)) {
                Some(next) => next,
                None => break,
            },
            _ => break,
        };
    }
    let (name, title) = field?;
    Some(match title {
        Some(title) => format!("field `{}` of `{}`", short(&name), short(&title)),
        None => format!("field `{}`", short(&name)),
    })
}

/// A JSON Pointer token unescaped (`~1` is `/`, `~0` is `~`).
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::rust_field;
    use crate::validate::{catalog_definitions, CheckContext};

    #[test]
    fn catalog_files_give_definitions_with_their_strict_preference() {
        let json = br#"{"version": 1, "tools": [
            {"name": "a", "description": "A.", "parameters": {"type": "object"}, "strict": true},
            {"name": "b", "parameters": null},
            {"name": "c"},
            {"name": "a", "parameters": {"type": "string"}}
        ]}"#;
        let definitions = catalog_definitions(json).unwrap();
        let names: Vec<&str> = definitions.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["a", "a"]);
        assert_eq!(definitions[0].strict, Some(true));
        assert_eq!(definitions[0].description.as_deref(), Some("A."));
        assert!(catalog_definitions(b"{}").is_err());

        let context = CheckContext::new()
            .with_catalog_json(std::str::from_utf8(json).unwrap())
            .unwrap();
        // The first definition of a name wins; a tool without parameters has none.
        assert_eq!(
            context.catalog_definition("a").unwrap().parameters,
            json!({"type": "object"})
        );
        assert!(context.catalog_definition("c").is_none());
        assert!(context.catalog().unwrap().contains("c"));
        let copy = context.clone();
        assert_eq!(copy, context);
        assert!(CheckContext::new().catalog_definition("a").is_none());
    }

    #[test]
    fn fields_are_named_with_their_struct_when_titled() {
        let schema = json!({
            "title": "Args",
            "type": "object",
            "properties": {
                "env": {"type": "object", "additionalProperties": {"type": "string"}},
                "a/b": {"type": "string"},
                "inner": {"$ref": "#/$defs/Inner"}
            },
            "$defs": {"Inner": {"title": "Inner", "type": "object", "properties": {"m": {"type": "object"}}}}
        });
        assert_eq!(
            rust_field(&schema, "/properties/env/additionalProperties").as_deref(),
            Some("field `env` of `Args`")
        );
        assert_eq!(
            rust_field(&schema, "/properties/a~1b").as_deref(),
            Some("field `a/b` of `Args`")
        );
        assert_eq!(
            rust_field(&schema, "/$defs/Inner/properties/m").as_deref(),
            Some("field `m` of `Inner`")
        );
        assert_eq!(rust_field(&schema, "").as_deref(), None);
        assert_eq!(rust_field(&schema, "/$defs/Inner").as_deref(), None);
        assert_eq!(
            rust_field(&json!({"properties": {"x": {}}}), "/properties/x").as_deref(),
            Some("field `x`")
        );
        assert_eq!(rust_field(&schema, "/properties/missing").as_deref(), None);
    }
}
