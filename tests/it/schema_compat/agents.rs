//! Every manifest in `agents/` passes `schema-compat` for both providers: its `model.id`
//! rewritten in memory to an OpenAI and then an Anthropic model, nothing else changed.

use std::path::PathBuf;

use starweaver::config::diagnostics::Rule;
use starweaver::config::validate::{check, CheckContext};

fn agents_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("agents")
}

#[test]
fn every_agent_manifest_passes_schema_compat_for_both_providers() {
    let mut manifests: Vec<PathBuf> = std::fs::read_dir(agents_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| ext == "yaml" || ext == "yml")
                && !path.to_string_lossy().contains(".script.")
        })
        .collect();
    manifests.sort();
    assert!(manifests.len() >= 5, "{manifests:?}");
    for path in &manifests {
        let text = std::fs::read_to_string(path).unwrap();
        // The agents play scripts: `id: script` is the line to rewrite (the `script:` beside it
        // is then refused, which is not this rule).
        let line = text
            .lines()
            .filter(|line| line.starts_with("  id: "))
            .collect::<Vec<_>>();
        assert_eq!(
            line.len(),
            1,
            "{}: expected one `model.id` line to rewrite",
            path.display()
        );
        for id in ["openai:gpt-4o", "anthropic:claude-sonnet-4-5"] {
            let rewritten = text.replace(line[0], &format!("  id: {id}"));
            let context = CheckContext::new()
                .with_base_dir(agents_dir())
                .with_model_ids([id])
                .with_catalog_definitions(starweaver::catalog::definitions());
            let found: Vec<String> = check(rewritten.as_bytes(), &context)
                .iter()
                .filter(|diagnostic| diagnostic.rule == Rule::SchemaCompat)
                .map(ToString::to_string)
                .collect();
            assert!(found.is_empty(), "{} with {id}: {found:#?}", path.display());
        }
    }
}
