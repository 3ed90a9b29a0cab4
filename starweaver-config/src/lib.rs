//! Manifest types, loading, diagnostics and checks. The manifest format lands with the manifest issue; this crate is its reserved home.
