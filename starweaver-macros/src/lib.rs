//! The `#[starweaver::tool]` attribute macro. The attribute itself lands with the macro issue; this crate is the reserved home for it.
