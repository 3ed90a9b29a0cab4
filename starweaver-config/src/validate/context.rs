//! What the checker may know beyond the file itself: which code tools exist and where the
//! manifest lives, so checks that need them run only when the caller can supply them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use starweaver_core::model::ToolDefinition;

use crate::yaml::Budgets;

/// Why a catalog file could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CatalogFileError {
    /// The text is not JSON.
    #[error("the tool catalog is not JSON: {0}")]
    Json(String),
    /// The JSON has no `tools` list.
    #[error("the tool catalog has no `tools` list; export it again from the program that registers the tools")]
    NoTools,
    /// An entry of `tools` has no string `name`.
    #[error("the tool catalog's `tools[{index}]` has no string `name`")]
    NoName {
        /// The entry's position in `tools`.
        index: usize,
    },
}

/// The `tools[].name` entries of a catalog file's JSON, in file order:
/// the one reader of the catalog format the checker and the `check`
/// command share.
///
/// # Errors
/// [`CatalogFileError`] when the bytes are not JSON or have no `tools`
/// list of objects with a string `name`.
pub fn catalog_names(json: &[u8]) -> Result<Vec<String>, CatalogFileError> {
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|error| CatalogFileError::Json(error.to_string()))?;
    let tools = value
        .get("tools")
        .and_then(serde_json::Value::as_array)
        .ok_or(CatalogFileError::NoTools)?;
    tools
        .iter()
        .enumerate()
        .map(|(index, tool)| {
            tool.get("name")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
                .ok_or(CatalogFileError::NoName { index })
        })
        .collect()
}

/// The definitions of a catalog file's tools (`starweaver_core::catalog::to_json()` output), in
/// file order: name, description, `parameters` and `strict`. An entry without `parameters` has
/// no schema to check and is left out; the rest is read leniently, like the names.
///
/// # Errors
/// [`CatalogFileError`] when the bytes are not a catalog (see [`catalog_names`]).
pub fn catalog_definitions(json: &[u8]) -> Result<Vec<ToolDefinition>, CatalogFileError> {
    let names = catalog_names(json)?;
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|error| CatalogFileError::Json(error.to_string()))?;
    let entries = value
        .get("tools")
        .and_then(serde_json::Value::as_array)
        .ok_or(CatalogFileError::NoTools)?;
    Ok(names
        .into_iter()
        .zip(entries)
        .filter_map(|(name, entry)| {
            let parameters = entry.get("parameters").filter(|value| !value.is_null())?;
            let description = entry
                .get("description")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned);
            let mut definition = ToolDefinition::new(name, description, parameters.clone());
            definition.strict = entry.get("strict").and_then(serde_json::Value::as_bool);
            Some(definition)
        })
        .collect())
}

/// Code-tool definitions by name, shared between the contexts of one check run.
#[derive(Clone, Debug, Default)]
struct Definitions(Arc<BTreeMap<String, ToolDefinition>>);

impl PartialEq for Definitions {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

// Definitions hold JSON values, whose equality is total.
impl Eq for Definitions {}

/// Extra knowledge for [`super::check`]. The default knows nothing: code-tool names are not
/// verified (one warning says so) and skill folders are not looked up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckContext {
    /// Shared, so one context per file of a large check costs no copy of the names.
    catalog: Option<std::sync::Arc<BTreeSet<String>>>,
    definitions: Option<Definitions>,
    base_dir: Option<PathBuf>,
    /// The manifest file, when the caller names it.
    file: Option<PathBuf>,
    vars: BTreeSet<String>,
    model_ids: BTreeSet<String>,
    /// The environment variables taken as set; `None` reads the process environment.
    variables: Option<std::sync::Arc<BTreeSet<String>>>,
    /// The reading limits the file is parsed under.
    budgets: Budgets,
}

impl CheckContext {
    /// A context that knows nothing beyond the file.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Verifies code-tool names against these names (for example
    /// `starweaver_core::catalog::names()`).
    #[must_use]
    pub fn with_catalog<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.catalog = Some(std::sync::Arc::new(
            names.into_iter().map(Into::into).collect(),
        ));
        self
    }

    /// Verifies code-tool names against a catalog file's `tools[].name` entries.
    ///
    /// # Errors
    /// [`CatalogFileError`] when the text is not JSON or has no `tools` list of objects with a
    /// string `name`.
    pub fn with_catalog_json(self, json: &str) -> Result<Self, CatalogFileError> {
        let definitions = catalog_definitions(json.as_bytes())?;
        Ok(self
            .with_catalog(catalog_names(json.as_bytes())?)
            .with_catalog_definitions(definitions))
    }

    /// Checks code tools' argument schemas against the manifest's model provider with these
    /// definitions (a catalog file's, or `starweaver_core::catalog::definitions()`). Built once
    /// and shared: every clone of the context points at the same definitions. The first
    /// definition of a name wins.
    #[must_use]
    pub fn with_catalog_definitions<I>(mut self, definitions: I) -> Self
    where
        I: IntoIterator<Item = ToolDefinition>,
    {
        let mut by_name = BTreeMap::new();
        for definition in definitions {
            by_name.entry(definition.name.clone()).or_insert(definition);
        }
        self.definitions = Some(Definitions(Arc::new(by_name)));
        self
    }

    /// Looks skill scope folders up relative to `dir` (the manifest's folder).
    #[must_use]
    pub fn with_base_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.base_dir = Some(dir.into());
        self
    }

    /// Checks the manifest file `path`: its folder becomes the base dir (as
    /// [`Self::with_base_dir`]; a bare file name is in the current folder), and the checked
    /// manifest remembers the path ([`super::Checked::file`]) for messages about it.
    #[must_use]
    pub fn with_file(mut self, path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        if let Some(folder) = path.parent() {
            self.base_dir = Some(folder.to_path_buf());
        }
        self.file = Some(path);
        self
    }

    /// Template variables the host supplies at load time (beyond those declared under `vars:`),
    /// so `vars.NAME` for them is not reported as undefined.
    #[must_use]
    pub fn with_vars<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.vars.extend(names.into_iter().map(Into::into));
        self
    }

    /// Model ids the host can run besides `test` (for example when it supplies the model
    /// itself), so they are not reported as unknown.
    #[must_use]
    pub fn with_model_ids<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.model_ids.extend(ids.into_iter().map(Into::into));
        self
    }

    /// Takes exactly these environment variables as set (others as unset) instead of reading
    /// the process environment, so a check (of an API key variable) is the same on every
    /// machine.
    #[must_use]
    pub fn with_environment_variables<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.variables = Some(std::sync::Arc::new(
            names.into_iter().map(Into::into).collect(),
        ));
        self
    }

    /// Reads the file under these limits instead of [`Budgets::default`], for a host that lets
    /// its users raise them (the command line's `--max-manifest-bytes`).
    #[must_use]
    pub const fn with_budgets(mut self, budgets: Budgets) -> Self {
        self.budgets = budgets;
        self
    }

    /// The limits the file is read under.
    #[must_use]
    pub const fn budgets(&self) -> &Budgets {
        &self.budgets
    }

    /// Whether the environment variable `name` is set to something other than blanks.
    #[must_use]
    pub fn has_variable(&self, name: &str) -> bool {
        match &self.variables {
            Some(names) => names.contains(name),
            None => std::env::var(name).is_ok_and(|value| !value.trim().is_empty()),
        }
    }

    /// The host-supplied template variable names.
    #[must_use]
    pub const fn vars(&self) -> &BTreeSet<String> {
        &self.vars
    }

    /// The extra model ids the host can run.
    #[must_use]
    pub const fn model_ids(&self) -> &BTreeSet<String> {
        &self.model_ids
    }

    /// The known code-tool names, when a catalog was given.
    #[must_use]
    pub fn catalog(&self) -> Option<&BTreeSet<String>> {
        self.catalog.as_deref()
    }

    /// A code tool's definition, when the context has definitions and one for `name`.
    #[must_use]
    pub fn catalog_definition(&self, name: &str) -> Option<&ToolDefinition> {
        self.definitions.as_ref()?.0.get(name)
    }

    /// The folder skill scopes are relative to, when known.
    #[must_use]
    pub fn base_dir(&self) -> Option<&Path> {
        self.base_dir.as_deref()
    }

    /// The manifest file, when named with [`Self::with_file`].
    #[must_use]
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The context a sub-agent's manifest `file` is checked in: the same catalog, limits and
    /// environment variables, its own folder, and none of the host's variables or model ids,
    /// which the host gives the root agent alone.
    pub(crate) fn for_sub_agent(&self, file: &Path) -> Self {
        let mut context = self.clone().with_file(file);
        context.vars.clear();
        context.model_ids.clear();
        context
    }
}
