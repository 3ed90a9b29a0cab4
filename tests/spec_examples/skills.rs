//! The "Fileops-loaded skills" examples of the Tools chapter
//! (`tools.md`), as tests. Each example is copied from the spec with only
//! the path mapping of `design.md` applied:
//!
//! | in tools.md | here |
//! | --- | --- |
//! | `starweaver_agent::X` | `starweaver::X` |
//! | `starweaver_environment::X` | `starweaver::environment::X` |
//!
//! Each test holds the example's `example()` function verbatim and
//! asserts that it returns `Ok`.
#![allow(unused)]

// `SkillRegistry::scan` reads summaries; `activate` loads the body.
#[tokio::test]
async fn scan_and_activate() {
    use std::sync::Arc;

    use starweaver::environment::VirtualEnvironmentProvider;
    use starweaver::{SkillRegistry, SkillSourceScope};

    async fn example() -> Result<(), starweaver::SkillError> {
        let provider = Arc::new(VirtualEnvironmentProvider::new("skills").with_file(
            "skills/research/SKILL.md",
            r"---
name: research
description: Gather and cite sources
---
Prefer primary sources and cite evidence.
",
        ));
        let registry = SkillRegistry::scan(provider.clone(), &[SkillSourceScope::new("")]).await?;
        let active = SkillRegistry::activate(provider, "skills/research/SKILL.md").await?;

        assert_eq!(
            registry.get("research").unwrap().description,
            "Gather and cite sources"
        );
        assert_eq!(
            active.body.unwrap(),
            "Prefer primary sources and cite evidence."
        );
        Ok(())
    }

    example().await.unwrap();
}

// `scan_with_report` continues past duplicates; `skills_report` emits the
// `skills_scanned` event at run start.
#[tokio::test]
async fn scan_with_report_and_skills_report() {
    use std::sync::Arc;

    use starweaver::environment::VirtualEnvironmentProvider;
    use starweaver::{
        AgentBuilder, AgentStreamEvent, SkillRegistry, SkillScanDiagnosticKind, SkillSourceScope,
        TestModel, SKILL_SCAN_EVENT_KIND,
    };

    async fn example() -> Result<(), Box<dyn std::error::Error>> {
        let provider = Arc::new(
            VirtualEnvironmentProvider::new("skills")
                .with_file(
                    ".agents/skills/research/SKILL.md",
                    r"---
name: research
description: Shared research
---
Shared instructions.
",
                )
                .with_file(
                    "skills/research/SKILL.md",
                    r"---
name: research
description: Tool-specific research
---
Tool instructions.
",
                ),
        );

        let report =
            SkillRegistry::scan_with_report(provider, &[SkillSourceScope::new("")]).await?;
        assert_eq!(
            report.registry().get("research").unwrap().description,
            "Tool-specific research"
        );
        assert!(report
            .diagnostics()
            .iter()
            .any(|diagnostic| diagnostic.kind == SkillScanDiagnosticKind::DuplicateOverridden));

        let stream = AgentBuilder::new(Arc::new(TestModel::with_text("ok")))
            .skills_report(report)
            .build()
            .run_stream("hello")
            .await?;
        assert!(stream.events().iter().any(|record| {
            matches!(
                &record.event,
                AgentStreamEvent::Custom { event } if event.kind == SKILL_SCAN_EVENT_KIND
            )
        }));
        Ok(())
    }

    example().await.unwrap();
}

// `reload_with_context` classifies changes and publishes the reload event.
#[tokio::test]
async fn reload_with_context() {
    use std::sync::Arc;

    use starweaver::environment::{EnvironmentProvider, VirtualEnvironmentProvider};
    use starweaver::{
        AgentContext, SkillRegistry, SkillReloadChangeKind, SkillSourceScope,
        SKILL_RELOAD_EVENT_KIND,
    };

    async fn example() -> Result<(), Box<dyn std::error::Error>> {
        let provider = Arc::new(VirtualEnvironmentProvider::new("skills").with_file(
            "skills/research/SKILL.md",
            r"---
name: research
description: Gather sources
---
Prefer primary sources.
",
        ));
        let registry = SkillRegistry::scan(provider.clone(), &[SkillSourceScope::new("")]).await?;

        provider
            .write_text(
                "skills/research/SKILL.md",
                r"---
name: research
description: Gather sources with citations
---
Prefer primary sources.
",
            )
            .await?;

        let mut context = AgentContext::default();
        let report = registry
            .reload_with_context(provider, &[SkillSourceScope::new("")], &mut context)
            .await?;

        assert!(report
            .changes()
            .iter()
            .any(|change| change.kind == SkillReloadChangeKind::Modified));
        assert!(context
            .events
            .events()
            .iter()
            .any(|event| event.kind == SKILL_RELOAD_EVENT_KIND));
        Ok(())
    }

    example().await.unwrap();
}
