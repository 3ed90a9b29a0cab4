//! The manifest's JSON Schema, generated once from the types.

use std::sync::LazyLock;

use serde_json::Value;
use starweaver_core::tools::schema_for_type;

use crate::manifest::Manifest;

/// The schema of [`Manifest`] with every subschema inlined, so the walk never follows `$ref`s.
static MANIFEST: LazyLock<Value> = LazyLock::new(schema_for_type::<Manifest>);

/// The schema the structure pass walks.
pub(super) fn manifest() -> &'static Value {
    &MANIFEST
}
