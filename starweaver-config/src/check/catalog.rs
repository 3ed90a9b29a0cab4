//! `--catalog FILE`: the tool names an application exports (`{version, tools: [{name, ...}]}`),
//! read so checks and the schema can know which tools exist.

use std::path::Path;

use crate::files::{read_limited, ReadLimitedError};

use starweaver_core::model::ToolDefinition;

use crate::validate::{catalog_definitions, catalog_names};

/// Catalog files larger than this are refused: a catalog lists names, not data.
pub const MAX_CATALOG_BYTES: u64 = 16 * 1024 * 1024;

/// The tool names of a catalog file, sorted and without repeats.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatalogNames {
    /// Every tool name the catalog lists.
    pub tools: Vec<String>,
}

/// Why a catalog file could not be used; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The file could not be read.
    #[error("cannot read catalog `{path}`: {source}")]
    Read {
        /// The catalog path.
        path: String,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_CATALOG_BYTES`].
    #[error("catalog `{path}` is larger than {MAX_CATALOG_BYTES} bytes")]
    TooLarge {
        /// The catalog path.
        path: String,
    },
    /// The file is not JSON, or not a catalog.
    #[error("catalog `{path}` is not a tool catalog: {reason} (export one with the catalog's `to_json`)")]
    Invalid {
        /// The catalog path.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl CatalogNames {
    /// Reads and parses a catalog file.
    ///
    /// # Errors
    /// When the file cannot be read, is too large, or is not a catalog.
    pub fn read(path: &Path) -> Result<Self, CatalogError> {
        let bytes = read_catalog(path)?;
        Self::parse(&bytes).map_err(|reason| CatalogError::Invalid {
            path: path.display().to_string(),
            reason,
        })
    }

    /// Reads a catalog file once for both its names and its tools' definitions (which the
    /// `schema-compat` rule checks against the manifest's provider).
    ///
    /// # Errors
    /// When the file cannot be read, is too large, or is not a catalog.
    pub fn read_with_definitions(path: &Path) -> Result<(Self, Vec<ToolDefinition>), CatalogError> {
        let bytes = read_catalog(path)?;
        let invalid = |reason: String| CatalogError::Invalid {
            path: path.display().to_string(),
            reason,
        };
        let names = Self::parse(&bytes).map_err(invalid)?;
        let definitions =
            catalog_definitions(&bytes).map_err(|error| invalid(error.to_string()))?;
        Ok((names, definitions))
    }

    /// Parses a catalog's JSON; the error says what is wrong with it.
    ///
    /// # Errors
    /// When the bytes are not JSON or have no `tools` array of objects with a string `name`.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let mut names = catalog_names(bytes).map_err(|error| error.to_string())?;
        names.sort_unstable();
        names.dedup();
        Ok(Self { tools: names })
    }
}

/// A catalog file's bytes, refused when larger than [`MAX_CATALOG_BYTES`], for a host that
/// reads more of a catalog than its names (`check --explain` builds stand-in tools from its
/// definitions) under the same limit and errors as [`CatalogNames::read`].
///
/// # Errors
/// When the file cannot be read or is too large.
pub fn read_catalog(path: &Path) -> Result<Vec<u8>, CatalogError> {
    let shown = path.display().to_string();
    read_limited(path, MAX_CATALOG_BYTES).map_err(|error| match error {
        ReadLimitedError::Io(source) => CatalogError::Read {
            path: shown,
            source,
        },
        ReadLimitedError::NotAFile => CatalogError::Read {
            path: shown,
            source: std::io::Error::other("not a regular file"),
        },
        ReadLimitedError::TooLarge { .. } => CatalogError::TooLarge { path: shown },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_refuses_non_catalogs() {
        let names = CatalogNames::parse(
            br#"{"version":1,"tools":[{"name":"b"},{"name":"a"},{"name":"a"}]}"#,
        )
        .unwrap_or_default();
        assert_eq!(names.tools, ["a", "b"]);
        assert!(CatalogNames::parse(b"[1]").is_err());
        assert!(CatalogNames::parse(br#"{"tools":[{"nom":1}]}"#).is_err());
        assert!(CatalogNames::parse(b"not json").is_err());
    }
}
