//! What the `check` command is built on, as a library: which files to read (collection and
//! the size limit), the tool catalogs a check is given, and the manifest's JSON Schema. The
//! command itself (arguments, exit statuses, reports and `check_main`) is the command line's,
//! in the `starweaver-cli` crate.

mod catalog;
mod collect;
mod limit;
mod schema;

pub use catalog::{read_catalog, CatalogError, CatalogNames};
pub use collect::{collect_files, CollectError, DEFAULT_PATH, MAX_FILES};
pub use limit::{ManifestLimit, DEFAULT_MAX_MANIFEST_BYTES, MAX_MANIFEST_BYTES_FLAG};
pub use schema::{manifest_schema, SCHEMA_DIALECT};
