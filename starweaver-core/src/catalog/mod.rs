//! The process-wide tool catalog: every `#[starweaver::tool]` registers
//! itself here by name at link time, and manifests name tools from it.
//!
//! Registration uses `inventory`: each annotated function submits a
//! [`CatalogEntry`] from wherever it is compiled, with no list to keep
//! and no declaration the user must write (a `linkme` slice has to be
//! declared in one crate and named by every submitter). Tools built by
//! hand join with [`register`].
//!
//! Two tools with one name are a conflict: neither is returned by
//! [`get`], and [`conflicts`] (and [`to_json`]) name both source
//! locations, so a manifest naming it fails loudly instead of getting
//! whichever registered last.

mod entry;
mod registry;

pub use entry::CatalogEntry;
pub use registry::{
    conflicts, definitions, get, names, register, to_json, CatalogConflict, CATALOG_FORMAT_VERSION,
};
