//! The manifests in `agents/`: `starweaver check` (which checks that folder by default) finds
//! nothing wrong with them, each names the committed schema, and each loads and runs to its
//! answer on the embedded `test` model without changing the checkout.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use starweaver::config::load::{load, read, LoadOptions};
use starweaver::config::manifest::{Manifest, ToolsetSpec};

/// The header every manifest starts with, so editors validate it against the committed schema.
const SCHEMA_HEADER: &str = "# yaml-language-server: $schema=../schema/agent.schema.json";

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn agents_dir() -> PathBuf {
    repository().join("agents")
}

/// Every `*.yaml`/`*.yml` directly in `agents/`, sorted.
fn manifests() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(agents_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "yaml" || extension == "yml")
        })
        .collect();
    found.sort();
    found
}

/// Every file under `folder` with its contents, to show a run changed nothing.
fn snapshot(folder: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Whether a run of the manifest could change files: a filesystem toolset that may write, or a
/// shell that may execute.
fn may_write(manifest: &Manifest) -> bool {
    let executes = manifest
        .shell
        .as_ref()
        .is_some_and(|shell| shell.allow_execute);
    let writes = manifest
        .toolsets
        .iter()
        .any(|spec| matches!(spec, ToolsetSpec::Filesystem(files) if !files.read_only));
    executes || writes
}

#[test]
fn check_finds_nothing_in_the_agents_folder() {
    assert!(
        manifests().len() >= 2,
        "agents/ holds at least two manifests"
    );
    let human = Command::new(env!("CARGO_BIN_EXE_starweaver"))
        .current_dir(repository())
        .args(["check", "agents", "--deny-warnings"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(human.stdout).unwrap();
    assert_eq!(human.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("0 errors, 0 warnings"), "{stdout}");
    assert!(human.stderr.is_empty());
    // With no path, `check` checks `agents/`; as JSON, no problem at all is an empty array.
    let json = Command::new(env!("CARGO_BIN_EXE_starweaver"))
        .current_dir(repository())
        .args(["check", "--deny-warnings", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(0));
    let problems: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(problems, serde_json::json!([]));
}

#[test]
fn every_manifest_names_the_committed_schema() {
    for path in manifests() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.lines().next(),
            Some(SCHEMA_HEADER),
            "{} must start with the schema header",
            path.display()
        );
        let schema = agents_dir().join("../schema/agent.schema.json");
        assert!(schema.is_file(), "the header names {}", schema.display());
    }
}

#[tokio::test]
async fn every_manifest_runs_to_an_answer_on_the_test_model_and_changes_nothing() {
    let before = snapshot(&agents_dir());
    for path in manifests() {
        let shown = path.display().to_string();
        let manifest = read(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(manifest.model.id, "test", "{shown}");
        // A manifest that could write runs on a copy of the folder, with the same layout
        // (`root: ..` then names the copy's parent, a fresh temporary folder).
        let copy = tempfile::tempdir().unwrap();
        let base = if may_write(&manifest) {
            let agents = copy.path().join("agents");
            copy_tree(&agents_dir(), &agents);
            agents
        } else {
            agents_dir()
        };
        let mut loaded = load(&manifest, &LoadOptions::new(&base))
            .await
            .unwrap_or_else(|error| panic!("{shown}: {error}"));
        assert!(!loaded.tool_names.is_empty(), "{shown} offers tools");
        assert!(
            loaded
                .instructions
                .as_deref()
                .is_some_and(|text| !text.contains("{{")),
            "{shown}: instructions render"
        );
        let result = loaded
            .session
            .run("What can you tell me about this project?")
            .await
            .unwrap_or_else(|error| panic!("{shown}: {error}"));
        assert!(!result.is_waiting(), "{shown} waits: {:?}", result.pending);
        assert!(!result.output.is_empty(), "{shown} gave no answer");
        let sent = serde_json::to_string(&result.messages).unwrap();
        for tool in &loaded.tool_names {
            assert!(
                sent.contains(&format!("\"{tool}\"")),
                "{shown} never called {tool}"
            );
        }
    }
    assert!(before == snapshot(&agents_dir()), "a run changed agents/");
}

#[tokio::test]
async fn the_docs_assistant_finds_its_skills_and_reads_files_through_search() {
    let path = agents_dir().join("docs-assistant.yaml");
    let manifest = read(&std::fs::read(&path).unwrap()).unwrap();
    let mut loaded = load(&manifest, &LoadOptions::new(agents_dir()))
        .await
        .unwrap();
    // The filesystem toolset sits behind the search; only `read_file` is preloaded.
    assert!(loaded.tool_names.contains(&"tool_search".to_string()));
    assert!(loaded.tool_names.contains(&"read_file".to_string()));
    assert!(!loaded.tool_names.contains(&"grep".to_string()));
    loaded
        .session
        .run("How do I write a manifest?")
        .await
        .unwrap();
    // The skill scan is recorded when the run starts: both skills were found, none broken.
    let events = serde_json::to_string(loaded.session.context().events.events()).unwrap();
    for skill in ["write-manifest", "review-manifest"] {
        assert!(events.contains(skill), "{skill} not found: {events}");
    }
}
