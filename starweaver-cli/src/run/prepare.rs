//! From a manifest file to a loaded agent: read once, check (with `check`'s diagnostics on
//! failure), then load the checked manifest with `--var` and `--max-steps`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::report::{human, FileReport};
use starweaver_config::check::{ManifestLimit, MAX_MANIFEST_BYTES_FLAG};
use starweaver_config::diagnostics::Severity;
use starweaver_config::load::{load, LoadOptions, LoadedAgent, LoadedSubAgent, ToolResolver};
use starweaver_config::manifest::Manifest;
use starweaver_config::validate::{check_manifest, CheckContext};
use starweaver_core::model::DynModel;

use super::Stop;
use crate::mask::is_secret;
use starweaver_config::files::{read_limited, ReadLimitedError};

/// What a host adds to loading besides the file: the model and tool source tests substitute.
#[derive(Clone, Default)]
pub struct Hooks {
    /// A model to use instead of the one `model.id` names.
    pub model: Option<DynModel>,
    /// Where code tools come from instead of the catalog.
    pub tools: Option<ToolResolver>,
}

/// A manifest loaded for a run.
pub struct Prepared {
    /// The agent and its session.
    pub loaded: LoadedAgent,
    /// The manifest, as an absolute path (for save files).
    pub manifest: PathBuf,
    /// Warnings the checker reported, rendered for people (empty when none).
    pub warnings: String,
    /// The agent's `name`.
    pub name: String,
    /// The agent's `description`, if the manifest gives one (`mcp serve --agent` describes
    /// its agent tool with it).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub description: Option<String>,
    /// The variables the manifest marks secret (`secret_vars`).
    pub secret_vars: Vec<String>,
    /// The run's secret variables, `(name, value)` (overrides, else the manifest's defaults).
    pub secret_values: Vec<(String, String)>,
    /// `sha256:` and the hex SHA-256 of the manifest's bytes as read: a run store keeps it
    /// with a run, so a worker can tell that the manifest changed since.
    #[cfg_attr(not(feature = "store"), allow(dead_code))]
    pub digest: String,
}

impl Prepared {
    /// The masker of this run's secrets: the secret ones among `vars` (by name), and the
    /// manifest's own ([`Self::secret_values`]).
    #[cfg(any(feature = "mcp", feature = "store"))]
    #[must_use]
    pub fn redactor(&self, vars: &BTreeMap<String, String>) -> crate::mask::Redactor {
        let redactor = crate::mask::Redactor::for_vars(vars);
        redactor.add(self.secret_values.iter().cloned());
        redactor
    }
}

/// The digest [`Prepared::digest`] holds for manifest bytes.
#[must_use]
pub fn manifest_digest(bytes: &[u8]) -> String {
    use sha2::{Digest as _, Sha256};
    let hash = Sha256::digest(bytes);
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in hash {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

/// Reads, checks and loads the manifest at `path` with the `--var` overrides `vars`.
///
/// # Errors
/// A [`Stop`] with status 2 for an unreadable manifest, one that does not check (the message is
/// `check`'s report), unknown variables, or a manifest that cannot be loaded.
pub async fn prepare(
    path: &Path,
    vars: &BTreeMap<String, String>,
    max_steps: Option<u32>,
    limit: ManifestLimit,
    hooks: &Hooks,
) -> Result<Prepared, Stop> {
    let absolute = std::fs::canonicalize(path).map_err(|error| {
        Stop::usage(format!(
            "cannot read the manifest `{}`: {error}; give the path of an agent manifest (.yaml)",
            path.display()
        ))
    })?;
    let bytes = read_bounded(&absolute, path, limit.max_manifest_bytes)?;
    let digest = manifest_digest(&bytes);
    let mut context = CheckContext::new()
        .with_budgets(limit.budgets())
        .with_file(&absolute)
        .with_vars(vars.keys().cloned());
    if hooks.tools.is_none() {
        // The tools linked into this binary are the ones loading can find: a name outside them
        // is an `unknown-tool` diagnostic now rather than a load error later.
        context = context.with_catalog(starweaver_core::catalog::names());
    }
    let shown = path.display().to_string();
    let (warnings, checked) = check_manifest(&bytes, &context);
    let Some(checked) = checked else {
        return Err(Stop::usage(human::render(&[FileReport::new(
            shown, bytes, warnings,
        )])));
    };
    let manifest = checked.manifest();
    check_vars(manifest, vars)?;
    let warnings = if warnings.iter().any(|d| d.severity == Severity::Warning) {
        human::render(&[FileReport::new(shown, bytes, warnings)])
    } else {
        String::new()
    };
    let mut options = LoadOptions::new().with_vars(vars.clone());
    // `--max-steps` is at least 1 (and a save file's 0 is refused when it is read).
    if let Some(steps) = max_steps.and_then(std::num::NonZeroU32::new) {
        options = options.with_max_steps(steps);
    }
    if let Some(model) = &hooks.model {
        options = options.with_model(model.clone());
    }
    if let Some(tools) = &hooks.tools {
        options.tools = tools.clone();
    }
    let loaded = load(&checked, &options)
        .await
        .map_err(|error| Stop::usage(format!("{}: {error}", path.display())))?;
    let mut secret_values = secrets_of(manifest, vars);
    // A sub-agent's secrets are as secret: its variables' defaults (a call sets the others),
    // its MCP servers' host values and its provider's key, down the tree.
    let mut pending: Vec<&LoadedSubAgent> = loaded.sub_agents.iter().collect();
    while let Some(sub) = pending.pop() {
        secret_values.extend(secrets_of(sub.checked.manifest(), &BTreeMap::new()));
        pending.extend(&sub.loaded.sub_agents);
    }
    Ok(Prepared {
        loaded,
        manifest: absolute,
        warnings,
        name: manifest.name.clone(),
        description: manifest.description.clone(),
        secret_vars: manifest.secret_vars.clone(),
        secret_values,
        digest,
    })
}

/// The values of one manifest that are never shown: its secret variables (given in `vars`, or
/// their defaults), what its MCP servers take from the host, and its provider's API key.
fn secrets_of(manifest: &Manifest, vars: &BTreeMap<String, String>) -> Vec<(String, String)> {
    let mut secret_values: Vec<(String, String)> = manifest
        .vars
        .iter()
        .filter(|(name, _)| is_secret(name, &manifest.secret_vars))
        .filter_map(|(name, default)| match vars.get(name) {
            Some(given) => Some((name.clone(), given.clone())),
            None => default
                .as_str()
                .map(|value| (name.clone(), value.to_owned())),
        })
        .collect();
    // What an MCP server is given from the host, passed by name to keep it out of the
    // manifest, is never shown, whatever the variable is called.
    secret_values.extend(crate::mask::mcp_host_values(manifest, |name| {
        std::env::var(name).ok()
    }));
    // The model's API key is never shown either, wherever a provider might echo it.
    if let Some(variable) = api_key_variable(manifest) {
        if let Ok(key) = std::env::var(&variable) {
            secret_values.push((variable, key.trim().to_string()));
        }
    }
    secret_values
}

/// The variable a provider model reads its key from.
fn api_key_variable(manifest: &Manifest) -> Option<String> {
    let (kind, _) = starweaver_core::model::ProviderKind::from_model_id(&manifest.model.id)?;
    Some(
        manifest
            .model
            .api_key_env
            .clone()
            .unwrap_or_else(|| kind.default_api_key_variable().to_string()),
    )
}

/// The file's bytes, refusing one larger than `limit` with its size and the flag that raises it.
fn read_bounded(absolute: &Path, shown: &Path, limit: u64) -> Result<Vec<u8>, Stop> {
    let unreadable = |error: std::io::Error| {
        Stop::usage(format!(
            "cannot read the manifest `{}`: {error}",
            shown.display()
        ))
    };
    read_limited(absolute, limit).map_err(|error| match error {
        ReadLimitedError::Io(error) => unreadable(error),
        ReadLimitedError::NotAFile => Stop::usage(format!(
            "cannot read the manifest `{}`: it is not a regular file; give the path of an agent manifest (.yaml)",
            shown.display()
        )),
        ReadLimitedError::TooLarge { limit } => {
            // The size from the file itself: the read stopped one byte past the limit.
            let size = std::fs::metadata(absolute).map_or(limit.saturating_add(1), |meta| meta.len());
            Stop::usage(format!(
                "the manifest `{}` is {size} bytes, over the {limit}-byte limit for one manifest; \
                 split it, or raise the limit with `{MAX_MANIFEST_BYTES_FLAG} {size}`",
                shown.display()
            ))
        }
    })
}

/// Every `--var` must name a variable the manifest declares.
fn check_vars(manifest: &Manifest, vars: &BTreeMap<String, String>) -> Result<(), Stop> {
    let unknown: Vec<&str> = vars
        .keys()
        .filter(|name| !manifest.vars.contains_key(name.as_str()))
        .map(String::as_str)
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let declared: Vec<&str> = manifest.vars.keys().map(String::as_str).collect();
    let known = if declared.is_empty() {
        "the manifest declares no `vars`".to_string()
    } else {
        format!("the manifest declares: {}", declared.join(", "))
    };
    Err(Stop::usage(format!(
        "unknown variable(s) given with --var: {}; {known} (add it under `vars:` to use it)",
        unknown.join(", ")
    )))
}
