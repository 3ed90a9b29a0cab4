//! `--agents DIR`: the manifests a worker can run, by their `name`, so a stored run (which
//! names its agent) finds the manifest to load.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use starweaver_config::check::{collect_files, ManifestLimit};
use starweaver_config::files::read_limited;
use starweaver_config::validate::{check_manifest, CheckContext};

/// The manifests in one folder, by agent name.
#[derive(Debug)]
pub(crate) struct AgentsDir {
    dir: PathBuf,
    by_name: BTreeMap<String, PathBuf>,
    /// Files that are not runnable manifests, with why, for the message of a run whose agent
    /// is not found.
    skipped: Vec<String>,
}

impl AgentsDir {
    /// Reads every `*.yaml`/`*.yml` manifest under `dir` (not `script` model turns). A file
    /// that does not check is left out and named when a run's agent is not found.
    ///
    /// # Errors
    /// When `dir` cannot be read or holds no manifest, or two manifests share a name.
    pub(crate) fn read(dir: &Path, limit: ManifestLimit) -> Result<Self, String> {
        let (files, errors) = collect_files(&[dir.to_path_buf()]);
        if let Some(error) = errors.first() {
            return Err(format!("--agents {}: {error}", dir.display()));
        }
        let mut by_name: BTreeMap<String, PathBuf> = BTreeMap::new();
        let mut skipped = Vec::new();
        for file in files {
            let bytes = match read_limited(&file, limit.max_manifest_bytes) {
                Ok(bytes) => bytes,
                Err(error) => {
                    skipped.push(format!("{} ({error})", file.display()));
                    continue;
                }
            };
            let context = CheckContext::new()
                .with_budgets(limit.budgets())
                .with_file(&file)
                .with_catalog(starweaver_core::catalog::names());
            let (_, checked) = check_manifest(&bytes, &context);
            let Some(checked) = checked else {
                skipped.push(format!(
                    "{} (it does not check: `starweaver check {}` says why)",
                    file.display(),
                    file.display()
                ));
                continue;
            };
            let name = checked.manifest().name.clone();
            if let Some(earlier) = by_name.get(&name) {
                return Err(format!(
                    "--agents {}: `{}` and `{}` both declare the agent `{name}`; a worker must \
                     know which manifest runs it, so give each agent its own name",
                    dir.display(),
                    earlier.display(),
                    file.display()
                ));
            }
            by_name.insert(name, file);
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            by_name,
            skipped,
        })
    }

    /// The manifest of the agent `name`.
    ///
    /// # Errors
    /// A message naming the folder, the agents it has and the files it left out.
    pub(crate) fn manifest(&self, name: &str) -> Result<&Path, String> {
        if let Some(path) = self.by_name.get(name) {
            return Ok(path);
        }
        let known: Vec<&str> = self.by_name.keys().map(String::as_str).collect();
        let mut message = format!(
            "no manifest in `{}` declares the agent `{name}` (it has: {}); start the worker \
             with --agents naming the folder that holds it",
            self.dir.display(),
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        );
        if !self.skipped.is_empty() {
            message.push_str(&format!("; left out: {}", self.skipped.join(", ")));
        }
        Err(message)
    }
}
