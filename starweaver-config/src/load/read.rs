//! `read`: manifest bytes to a [`Manifest`], refusing exactly what the checker refuses.

use crate::diagnostics::{Diagnostic, Rule, Severity};
use crate::manifest::Manifest;
use crate::validate::{check_document, to_json, CheckContext};

/// Reads a manifest file's bytes: the checker runs first, and any error it reports refuses the
/// file with every diagnostic (warnings included, so a host can show them all). A file the
/// checker accepts is converted from its YAML tree to JSON strictly and deserialized; a
/// deserialize failure the checker missed comes back as one `invalid-value` diagnostic.
///
/// # Errors
/// The checker's diagnostics when one is an error, or the single safety-net diagnostic.
pub fn read(bytes: &[u8]) -> Result<Manifest, Vec<Diagnostic>> {
    read_with_warnings(bytes).map(|(manifest, _)| manifest)
}

/// Like [`read`], but also returns the checker's warnings for a manifest it accepts, so a host
/// can show them before running the agent.
///
/// # Errors
/// As [`read`].
pub fn read_with_warnings(bytes: &[u8]) -> Result<(Manifest, Vec<Diagnostic>), Vec<Diagnostic>> {
    read_with_context(bytes, &CheckContext::new())
}

/// Like [`read_with_warnings`], checking with what the host knows beyond the file: the
/// manifest's folder (so environment roots and skill scopes are verified before loading), the
/// tool catalog, host variables and model ids. A host that runs a manifest file should read it
/// this way, with the folder it will load it from.
///
/// # Errors
/// As [`read`].
pub fn read_with_context(
    bytes: &[u8],
    context: &CheckContext,
) -> Result<(Manifest, Vec<Diagnostic>), Vec<Diagnostic>> {
    let (document, found) = check_document(bytes, context);
    if found.iter().any(|d| d.severity == Severity::Error) {
        return Err(found);
    }
    // A file the checker could not read as YAML always has a `syntax` error.
    let Some(document) = document else {
        return Err(found);
    };
    let json = to_json(&document.root).map_err(|d| vec![d])?;
    let manifest = serde_json::from_value(json).map_err(|error| {
        vec![Diagnostic::error(
            Rule::InvalidValue,
            document.root.span,
            format!("the manifest does not match the format: {error}"),
        )
        .with_help("fix the value named above; `starweaver check` shows the format's rules")]
    })?;
    Ok((manifest, found))
}
