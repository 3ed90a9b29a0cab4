//! Where explanation gets code tools from: stand-ins built from `--catalog`, the tools linked
//! into the binary (an application's own checker), or unverified stand-ins when neither says
//! which tools exist.

use std::collections::BTreeMap;
use std::sync::Arc;

use starweaver_core::tools::DynTool;

use super::stand_in::{stand_ins, unverified};
use crate::check::CheckArgs;
use starweaver_config::check::{read_catalog, CatalogError};
use starweaver_config::load::LoadOptions;

/// The code tools the loader is given.
#[derive(Clone)]
pub(super) enum ToolSource {
    /// No catalog: every name gets a stand-in and is shown as unverified.
    Unverified,
    /// Stand-ins from a catalog file's definitions.
    Catalog(Arc<BTreeMap<String, DynTool>>),
    /// The tools registered in this binary.
    Linked,
}

impl ToolSource {
    /// The source `args` ask for: `--catalog` first, then the linked tools when the binary's
    /// checker counts them as the catalog.
    ///
    /// # Errors
    /// When the catalog file cannot be read or is not a catalog.
    pub(super) fn of(args: &CheckArgs) -> Result<Self, CatalogError> {
        match &args.catalog {
            Some(path) => {
                let bytes = read_catalog(path)?;
                let tools = stand_ins(&bytes).map_err(|error| CatalogError::Invalid {
                    path: path.display().to_string(),
                    reason: error.to_string(),
                })?;
                Ok(Self::Catalog(Arc::new(tools)))
            }
            None if args.linked_catalog => Ok(Self::Linked),
            None => Ok(Self::Unverified),
        }
    }

    /// Whether code tools are confirmed to exist.
    pub(super) fn verified(&self) -> bool {
        !matches!(self, Self::Unverified)
    }

    /// `options` resolving code tools from this source.
    pub(super) fn apply(&self, options: LoadOptions) -> LoadOptions {
        match self {
            Self::Unverified => options.with_tools(|name| Some(unverified(name))),
            Self::Catalog(tools) => {
                let tools = tools.clone();
                options.with_tools(move |name| tools.get(name).cloned())
            }
            Self::Linked => options.with_tools(starweaver_core::catalog::get),
        }
    }
}
