//! Tool argument schemas adapted to what each model provider accepts.
//!
//! Providers reject tool schemas that use JSON Schema they do not
//! support, and a rejected schema fails the whole request. Each
//! [`SchemaDialect`] has one transform, applied when a request is built;
//! every change it makes is reported as a [`SchemaChange`], and a change
//! that loses meaning says what is lost. A schema that cannot be sent at
//! all is a [`SchemaIncompatible`] naming where and how to fix it.
//!
//! What the transforms decide, keyword by keyword:
//!
//! - The root must be an object schema for every provider. A root with
//!   no `type` but with `properties` (or nothing type-specific) gets
//!   `type: object`; a root that is only a local `$ref` gets the target
//!   inlined; a root `allOf` of plain object schemas is merged. All three
//!   are lossless: tool arguments are always an object.
//! - Even beside `type: object`, OpenAI refuses `anyOf`, `oneOf`,
//!   `allOf`, `enum` and `not` at the top, and Anthropic `anyOf`, `oneOf`
//!   and `allOf`: such a root is a [`SchemaIncompatible`] (the usual
//!   cause is arguments that are an enum; make them a struct with the
//!   enum in a field).
//! - [`SchemaDialect::OpenAi`] gives every array schema without `items`
//!   the items `{}` (any item), losslessly: OpenAI refuses a function
//!   schema with an array that has none, strict or not. Otherwise it and
//!   [`SchemaDialect::Anthropic`] change nothing else.
//! - [`SchemaDialect::OpenAiStrict`] rewrites the whole schema to the
//!   strict subset. Lossless, and reported as changes without loss:
//!   `additionalProperties: false` on an object that declares
//!   `properties`; every optional property made required and nullable
//!   (`type: [T, "null"]` for a scalar `T`, `anyOf: [..., {type: null}]`
//!   for objects, arrays and schemas without a plain `type`), which [`AdaptedSchema::restore_arguments`] undoes
//!   on the answer (an optional property that already accepted null is
//!   only made required); `oneOf` replaced by `anyOf` (the branches a
//!   schema generator emits for a Rust enum are disjoint, and the tool
//!   still checks its arguments against its own schema); a `$ref` with
//!   sibling keywords moved into a one-branch `anyOf` (strict mode refuses
//!   `$ref` beside other keywords), and a one-schema `allOf` turned into
//!   one too; an `allOf` of plain objects merged; `$defs`, `definitions`
//!   and `#` recursion kept; `default`, `examples`, `minLength`,
//!   `maxLength`, `uniqueItems`, `deprecated`, `contentEncoding`,
//!   `contentMediaType` and the string formats strict mode lacks (it
//!   enforces `date-time`, `time`, `date`, `duration`, `email`,
//!   `hostname`, `ipv4`, `ipv6` and `uuid`) moved into the description
//!   (the model reads them there, and the tool still validates against
//!   the original schema); the integer and number formats schema
//!   generators add for Rust widths (`uint`, `int64`, `double`, ...),
//!   `default: null`, and the `$schema`, `$id`, `$comment`, `readOnly`,
//!   `writeOnly` annotations dropped; a `false` optional property dropped
//!   (it can never be sent).
//! - Lossy under strict mode, each reported with what is lost: an object
//!   that allowed extra properties (`additionalProperties: true` or a
//!   schema, as for a `HashMap` field) or was free-form (no
//!   `properties`); an object with properties beside `anyOf`/`oneOf`
//!   alternatives (a flattened enum), where each side then forbids the
//!   other's properties; "any value" schemas (`true`, or no type at all) and
//!   arrays without `items`, narrowed to scalars (strict mode cannot say
//!   "any object"); tuples (`prefixItems`), whose positions become one
//!   `anyOf` item schema; a non-mergeable `allOf`; `not`, `if`/`then`/
//!   `else`, `patternProperties`, `propertyNames`, `unevaluated*`,
//!   `dependent*`/`dependencies`, `contains`/`minContains`/`maxContains`,
//!   `minProperties`/`maxProperties`; unknown keywords.
//! - Strict mode also refuses, as [`SchemaIncompatible`]: a remote
//!   `$ref`, a local one that names nothing in the schema, a required
//!   property whose schema is `false`, and what passes the limits the
//!   provider documents: more than 5000 properties, objects nested more
//!   than 10 levels below the root, more than 1000 enum values in all,
//!   an enum of more than 250 strings holding more than 15,000
//!   characters, or more than 120,000 characters of property names,
//!   definition names and enum and const values together.

mod items;
mod name;
mod pointer;
mod restore;
mod root;
mod strict;

#[cfg(test)]
mod tests;

use serde_json::Value;

use crate::bounds::{exceeds_depth, MAX_JSON_DEPTH};

pub use name::check_tool_name;
use restore::Restore;

/// Which provider's rules a schema is adapted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaDialect {
    /// OpenAI function calling with `strict: true`: the structured-output
    /// subset of JSON Schema, every property required, no extra keys.
    OpenAiStrict,
    /// OpenAI function calling without strict mode: any JSON Schema with
    /// an object root and no top-level combinator, `enum` or `not`.
    OpenAi,
    /// Anthropic tool use: an object root with no top-level combinator.
    Anthropic,
}

/// One change a transform made, so a caller can show it and decide
/// whether the loss is acceptable.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SchemaChange {
    /// JSON Pointer into the original schema (`""` is the root,
    /// `/properties/limit` a property).
    pub path: String,
    /// What was done, in a sentence fragment ("removed `not`").
    pub change: String,
    /// What the model no longer sees, or `None` when the change keeps the
    /// schema's meaning.
    pub lost: Option<String>,
}

/// A schema a provider can take, the changes made, and how to undo them
/// on the arguments the model returns.
#[derive(Clone, Debug, PartialEq)]
pub struct AdaptedSchema {
    /// The schema to send.
    pub schema: Value,
    /// Every change made, in schema order.
    pub changes: Vec<SchemaChange>,
    restore: Restore,
}

impl AdaptedSchema {
    /// True when no change loses meaning.
    #[must_use]
    pub fn is_lossless(&self) -> bool {
        self.changes.iter().all(|change| change.lost.is_none())
    }

    /// The changes that lose meaning.
    pub fn lossy_changes(&self) -> impl Iterator<Item = &SchemaChange> {
        self.changes.iter().filter(|change| change.lost.is_some())
    }

    /// Undoes the transform on the model's arguments. In strict mode every
    /// optional property is sent as required and nullable, so the model
    /// answers `"limit": null` for "absent"; this removes those nulls, at
    /// every depth the transform made a property nullable (nested objects,
    /// array items, `anyOf` branches, `$defs`), so a tool with
    /// `#[serde(default)] limit: usize` still deserializes. A property
    /// that was nullable in the original keeps its null. Arguments nested
    /// deeper than [`MAX_JSON_DEPTH`] are left as they are below it.
    pub fn restore_arguments(&self, arguments: &mut Value) {
        self.restore.apply(arguments);
    }
}

impl std::fmt::Display for SchemaChange {
    /// `` `/properties/limit`: made ... `` with `(loses ...)` when lossy;
    /// the root shows as `(root)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        write!(f, "`{path}`: {}", self.change)?;
        match &self.lost {
            Some(lost) => write!(f, " (loses {lost})"),
            None => Ok(()),
        }
    }
}

/// Why a schema cannot be sent at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at `{path}`: {reason}")]
pub struct SchemaIncompatible {
    /// JSON Pointer into the original schema (`""` is the root).
    pub path: String,
    /// What the provider does not accept.
    pub reason: String,
    /// How to change the tool so it can be sent.
    pub help: String,
}

impl SchemaIncompatible {
    pub(crate) fn new(
        path: impl Into<String>,
        reason: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        Self {
            path: path.into(),
            reason: reason.into(),
            help: help.into(),
        }
    }
}

/// Adapts a tool's argument schema to `dialect`.
///
/// ```
/// use serde_json::json;
/// use starweaver_core::model::{adapt_schema, SchemaDialect};
///
/// let schema = json!({"type": "object", "properties": {"limit": {"type": "integer"}}});
/// let adapted = adapt_schema(&schema, SchemaDialect::OpenAiStrict).unwrap();
/// assert_eq!(adapted.schema["required"], json!(["limit"]));
/// assert_eq!(adapted.schema["properties"]["limit"]["type"], json!(["integer", "null"]));
/// assert!(adapted.is_lossless());
/// assert_eq!(
///     adapted.changes[0].to_string(),
///     "`/properties/limit`: made optional property `limit` required and nullable"
/// );
///
/// // The model says "absent" with null; the tool sees no `limit` at all.
/// let mut answer = json!({"limit": null});
/// adapted.restore_arguments(&mut answer);
/// assert_eq!(answer, json!({}));
///
/// let error = adapt_schema(&json!({"type": "string"}), SchemaDialect::Anthropic).unwrap_err();
/// assert!(error.help.contains("make the arguments a struct"));
/// ```
///
/// Linear in the size of the schema; nothing is copied more than once
/// except a root `$ref` target, which is inlined once.
///
/// # Errors
/// [`SchemaIncompatible`] when the provider cannot take the schema in
/// any form: a root that is not an object schema, a root combinator the
/// provider refuses, nesting deeper than [`MAX_JSON_DEPTH`], and for
/// strict mode a remote `$ref` or one naming nothing, a required property whose schema is
/// `false`, or more properties, object nesting, enum values or name
/// characters than the provider allows.
pub fn adapt_schema(
    schema: &Value,
    dialect: SchemaDialect,
) -> Result<AdaptedSchema, SchemaIncompatible> {
    if exceeds_depth(schema, MAX_JSON_DEPTH) {
        return Err(SchemaIncompatible::new(
            "",
            format!("the schema nests more than {MAX_JSON_DEPTH} levels deep"),
            "flatten the argument types; no provider takes schemas this deep",
        ));
    }
    match dialect {
        SchemaDialect::OpenAiStrict => strict::adapt(schema),
        SchemaDialect::OpenAi | SchemaDialect::Anthropic => {
            let (mut schema, mut changes) = root::normalize(schema, dialect)?;
            if dialect == SchemaDialect::OpenAi {
                items::add_missing_items(&mut schema, "", &mut changes);
            }
            Ok(AdaptedSchema {
                schema,
                changes,
                restore: Restore::default(),
            })
        }
    }
}
