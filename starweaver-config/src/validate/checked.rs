//! `Checked`: a manifest the checker passed, the only thing the loader takes.
//!
//! The checker is the one place a manifest's rules run. What it passes is this type: the typed
//! manifest, the folder every relative path in it was checked against, the file it came from,
//! the `script` model's turns as the checker read them, and where the parts a load failure can
//! name sit in the file. Nothing outside the checker can make one, so a manifest that skipped
//! the rules cannot reach [`crate::load::load()`], and the loader has no rule of its own to
//! repeat.
//!
//! ```compile_fail,E0451
//! use starweaver_config::manifest::Manifest;
//! use starweaver_config::validate::Checked;
//!
//! // Its fields are private: a host cannot forge a checked manifest from a `Manifest`.
//! fn forge(manifest: Manifest) -> Checked {
//!     Checked {
//!         manifest,
//!         base_dir: ".".into(),
//!         file: None,
//!         script: None,
//!         places: Default::default(),
//!     }
//! }
//! ```
//!
//! ```compile_fail,E0624
//! use starweaver_config::manifest::Manifest;
//! use starweaver_config::validate::Checked;
//! use starweaver_config::yaml::parse;
//!
//! // Nor call the checker's own constructor.
//! fn forge(manifest: Manifest) -> Checked {
//!     let tree = parse(b"version: 1").unwrap().root;
//!     Checked::new(manifest, &tree, std::path::Path::new("."), None, None)
//! }
//! ```
//!
//! The checker is the way in:
//!
//! ```
//! use starweaver_config::validate::{check_manifest, CheckContext};
//!
//! let (found, checked) = check_manifest(b"version: 1\nname: a\nmodel: {id: test}\n", &CheckContext::new());
//! assert!(found.is_empty());
//! assert_eq!(checked.unwrap().manifest().name, "a");
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::manifest::Manifest;
use crate::script::ScriptModel;
use crate::yaml::{Node, Span};

/// A manifest that passed every rule of the checker with no error, ready to load.
///
/// Made only by [`super::check_manifest`] (and the helpers built on it). Its folder is the one
/// the folder rules ran against (environment root, skill scopes, the script file): loading
/// uses the same folder, so what was checked is what loads.
#[derive(Clone, Debug)]
pub struct Checked {
    manifest: Manifest,
    base_dir: PathBuf,
    file: Option<PathBuf>,
    script: Option<ScriptModel>,
    output_schema: Option<serde_json::Value>,
    sub_agents: BTreeMap<(usize, usize), Checked>,
    places: BTreeMap<String, Span>,
}

impl Checked {
    /// Only the checker builds one, from the manifest and tree it checked.
    pub(super) fn new(
        manifest: Manifest,
        root: &Node,
        base_dir: &Path,
        file: Option<PathBuf>,
        script: Option<ScriptModel>,
    ) -> Self {
        // An empty folder (a file named without one) is the current folder.
        let base_dir = if base_dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            base_dir.to_path_buf()
        };
        Self {
            manifest,
            base_dir,
            file,
            script,
            output_schema: None,
            sub_agents: BTreeMap::new(),
            places: places(root),
        }
    }

    /// The answer's schema as the `output` rules read it.
    pub(super) fn with_output_schema(mut self, schema: Option<serde_json::Value>) -> Self {
        self.output_schema = schema;
        self
    }

    /// The sub-agents' checked manifests, as the `agents` rules checked them.
    pub(super) fn with_sub_agents(mut self, sub_agents: BTreeMap<(usize, usize), Self>) -> Self {
        self.sub_agents = sub_agents;
        self
    }

    /// The checked manifest of the sub-agent `agents[agent]` of the `agents` entry
    /// `toolsets[toolset]`; `None` when there is no such sub-agent.
    #[must_use]
    pub fn sub_agent(&self, toolset: usize, agent: usize) -> Option<&Self> {
        self.sub_agents.get(&(toolset, agent))
    }

    /// The answer's JSON Schema (`output.schema`, or the file `output.schema_file` names, read
    /// once by the checker); `None` without `output:`.
    #[must_use]
    pub fn output_schema(&self) -> Option<&serde_json::Value> {
        self.output_schema.as_ref()
    }

    /// The typed manifest.
    #[must_use]
    pub const fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The folder the manifest's relative paths were checked against, and load from.
    #[must_use]
    pub fn base_dir(&self) -> &Path {
        &self.base_dir
    }

    /// The manifest file, when the checker was told it ([`super::CheckContext::with_file`]).
    #[must_use]
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Where a part of the manifest a load failure can name sits in the file, by its manifest
    /// path: `model.id`, a top-level section (`environment`, `skills`, `instructions`, ...),
    /// `toolsets[N]` and `toolsets[N].tools[M]`. So a host can point a failure that only
    /// loading can find (a tool its resolver lacks, a folder gone since the check) at its line.
    #[must_use]
    pub fn span(&self, field: &str) -> Option<Span> {
        self.places.get(field).copied()
    }

    /// The `script` model's turns, read and checked with the manifest.
    pub(crate) const fn script(&self) -> Option<&ScriptModel> {
        self.script.as_ref()
    }
}

impl PartialEq for Checked {
    fn eq(&self, other: &Self) -> bool {
        let turns = |checked: &Self| {
            checked
                .script
                .as_ref()
                .map(|script| (script.script_name().to_string(), script.turns().to_vec()))
        };
        self.manifest == other.manifest
            && self.base_dir == other.base_dir
            && self.file == other.file
            && self.places == other.places
            && self.output_schema == other.output_schema
            && self.sub_agents == other.sub_agents
            && turns(self) == turns(other)
    }
}

// A checked manifest holds no NaN: the checker refuses non-finite numbers wherever the format
// takes a value, so equality is total.
impl Eq for Checked {}

/// The spans of the parts [`Checked::span`] names.
fn places(root: &Node) -> BTreeMap<String, Span> {
    let mut found = BTreeMap::new();
    for (key, value) in root.as_mapping().unwrap_or_default() {
        let Some(name) = key.as_str() else { continue };
        found.insert(name.to_string(), value.span);
    }
    if let Some(id) = root.get("model").and_then(|model| model.get("id")) {
        found.insert("model.id".to_string(), id.span);
    }
    let toolsets = root
        .get("toolsets")
        .and_then(Node::as_sequence)
        .unwrap_or_default();
    for (index, entry) in toolsets.iter().enumerate() {
        found.insert(format!("toolsets[{index}]"), entry.span);
        let tools = entry
            .get("tools")
            .and_then(Node::as_sequence)
            .unwrap_or_default();
        for (at, tool) in tools.iter().enumerate() {
            found.insert(format!("toolsets[{index}].tools[{at}]"), tool.span);
        }
    }
    found
}
