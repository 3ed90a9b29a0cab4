//! Agent manifests: the format's types (from which the JSON Schema and
//! the reference are generated), the position-keeping YAML reader, and
//! the checker that reports every problem with its line and column.

pub mod check;
pub mod diagnostics;
pub mod load;
pub mod manifest;
pub mod paths;
pub mod report;
pub mod template;
pub mod validate;
pub mod yaml;
