//! The bounds every `#[starweaver::tool]` argument type meets, each stated by a trait whose
//! message names the derive that provides it. The expansion bounds a generic parameter per
//! argument type by them and instantiates it with the written type, so a type without a
//! derive is one error on that type, saying which derive to add, instead of errors from
//! inside the generated serde and schemars code.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// A type the model's JSON arguments deserialize into.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `serde::Deserialize`",
    label = "add `#[derive(serde::Deserialize)]` to `{Self}`",
    note = "tool arguments are read from the model's JSON: a type of your own derives \
            `serde::Deserialize`, and its crate depends on `serde` with the `derive` feature \
            (see docs/tool-macro.md)"
)]
pub trait DeserializeArgument: DeserializeOwned {}

impl<T: DeserializeOwned> DeserializeArgument for T {}

/// A type the tool's JSON Schema can describe to the model.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `schemars::JsonSchema`",
    label = "add `#[derive(schemars::JsonSchema)]` to `{Self}`",
    note = "the model is shown each argument's JSON Schema: a type of your own derives \
            `schemars::JsonSchema`, and its crate depends on `schemars` 1 (see docs/tool-macro.md)"
)]
pub trait SchemaArgument: JsonSchema {}

impl<T: JsonSchema> SchemaArgument for T {}
