//! Activation: loading a skill's body, missing files, validation and the
//! activation event.

use starweaver::context::ContextEventKind;
use starweaver::skills::{SkillDirectoryKind, SkillSource};
use starweaver::{AgentContext, SkillError, SkillRegistry, SkillSourceScope};

use super::{all_strings, env, scan_ok, skill};

// ---------------------------------------------------------------------------
// Activation
// ---------------------------------------------------------------------------

#[tokio::test]
async fn activation_loads_the_body_or_none() {
    let provider = env(&[
        (
            "skills/research/SKILL.md",
            &skill("research", "R", "\n\n# Research\n\nCite sources.\n\n"),
        ),
        (
            "skills/empty/SKILL.md",
            "---\nname: empty\ndescription: No body\n---\n   \n",
        ),
        (
            ".agents/skills/shared/SKILL.md",
            &skill("shared", "S", "Shared body"),
        ),
    ]);
    let active = SkillRegistry::activate(provider.clone(), "skills/research/SKILL.md")
        .await
        .unwrap();
    assert_eq!(active.name(), "research");
    assert_eq!(active.body.as_deref(), Some("# Research\n\nCite sources."));
    assert_eq!(
        active.summary.directory_kind,
        SkillDirectoryKind::ToolSpecific
    );

    let empty = SkillRegistry::activate(provider.clone(), "skills/empty/SKILL.md")
        .await
        .unwrap();
    assert_eq!(empty.body, None);

    // A folder path reads the SKILL.md inside; `./` and `/` prefixes are
    // normalized.
    let folder = SkillRegistry::activate(provider.clone(), "./.agents/skills/shared")
        .await
        .unwrap();
    assert_eq!(folder.summary.path, ".agents/skills/shared/SKILL.md");
    assert_eq!(folder.summary.directory_kind, SkillDirectoryKind::Shared);
    assert_eq!(folder.body.as_deref(), Some("Shared body"));
    let slash = SkillRegistry::activate(provider, "/skills/research/SKILL.md")
        .await
        .unwrap();
    assert_eq!(slash.summary.path, "skills/research/SKILL.md");
}

#[tokio::test]
async fn activating_a_missing_file_says_what_to_do() {
    let provider = env(&[("skills/research/SKILL.md", &skill("research", "R", "r"))]);
    match SkillRegistry::activate(provider.clone(), "skills/reserch/SKILL.md").await {
        Err(error @ SkillError::NotFound { .. }) => {
            let message = error.to_string();
            assert!(
                message.contains("`skills/reserch/SKILL.md` does not exist"),
                "{message}"
            );
            assert!(message.contains("SKILL.md"), "{message}");
            assert_eq!(error.path(), Some("skills/reserch/SKILL.md"));
        }
        other => panic!("expected NotFound, got {other:?}"),
    }
    assert!(matches!(
        SkillRegistry::activate(provider.clone(), "skills/none").await,
        Err(SkillError::NotFound { .. })
    ));
    assert!(matches!(
        SkillRegistry::activate(provider, "../outside/SKILL.md").await,
        Err(SkillError::Unreadable { .. })
    ));
}

#[tokio::test]
async fn activation_validates_like_a_scan() {
    let provider = env(&[("skills/bad/SKILL.md", "---\nname: bad\n---\nBody")]);
    assert!(matches!(
        SkillRegistry::activate(provider, "skills/bad/SKILL.md").await,
        Err(SkillError::MissingField {
            field: "description",
            ..
        })
    ));
}

#[tokio::test]
async fn activation_event_carries_no_body() {
    let body = "SECRET-BODY-MARKER: step one, step two.";
    let provider = env(&[(
        "skills/research/SKILL.md",
        &skill("research", "Gather sources", body),
    )]);
    let mut context = AgentContext::default();
    let active = SkillRegistry::activate_with_context(
        provider.clone(),
        "skills/research/SKILL.md",
        &mut context,
    )
    .await
    .unwrap();
    assert_eq!(active.body.as_deref(), Some(body));
    let events: Vec<_> = context
        .events
        .of_kind(ContextEventKind::SkillActivated)
        .collect();
    assert_eq!(events.len(), 1);
    let payload = &events[0].payload;
    assert_eq!(payload["name"], "research");
    assert_eq!(payload["description"], "Gather sources");
    assert_eq!(payload["path"], "skills/research/SKILL.md");
    assert_eq!(payload["has_body"], true);
    assert_eq!(payload["body_chars"], body.chars().count());
    assert!(
        all_strings(payload)
            .iter()
            .all(|text| !text.contains("SECRET-BODY-MARKER")),
        "{payload}"
    );

    // A failed activation publishes nothing.
    let mut quiet = AgentContext::default();
    assert!(
        SkillRegistry::activate_with_context(provider, "skills/none/SKILL.md", &mut quiet)
            .await
            .is_err()
    );
    assert!(quiet.events.events().is_empty());
}

#[tokio::test]
async fn activate_skill_by_name_keeps_the_scanned_level() {
    let provider = env(&[
        (
            "home/skills/research/SKILL.md",
            &skill("research", "R", "user body"),
        ),
        (
            "home/skills/review/SKILL.md",
            &skill("review", "Rv", "review body"),
        ),
    ]);
    let registry = scan_ok(provider.clone(), &[SkillSourceScope::user("home")]).await;
    let active = registry
        .activate_skill(provider.clone(), "research")
        .await
        .unwrap();
    assert_eq!(active.summary.source, SkillSource::User);
    assert_eq!(active.summary.scope, "home");
    assert_eq!(active.body.as_deref(), Some("user body"));
    match registry.activate_skill(provider, "reserch").await {
        Err(error @ SkillError::UnknownSkill { .. }) => {
            let message = error.to_string();
            assert!(message.contains("no skill named `reserch`"), "{message}");
            assert!(message.contains("research, review"), "{message}");
        }
        other => panic!("expected UnknownSkill, got {other:?}"),
    }
}
