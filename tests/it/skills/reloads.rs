//! Reloads (added, removed, modified, moved) and `SkillReloadBinding`
//! scheduling with explicit clock values.

use starweaver::environment::EnvironmentProvider;
use starweaver::schedule::RefreshReason;
use starweaver::skills::SkillReloadBinding;
use starweaver::{
    AgentContext, SkillRegistry, SkillReloadChangeKind, SkillScanDiagnosticKind, SkillSourceScope,
    SKILL_RELOAD_EVENT_KIND,
};

use super::{all_strings, env, root, scan_ok, skill};

// ---------------------------------------------------------------------------
// Reloads
// ---------------------------------------------------------------------------

#[tokio::test]
async fn reload_classifies_added_removed_and_modified_skills() {
    let provider = env(&[
        ("skills/keep/SKILL.md", &skill("keep", "Unchanged", "same")),
        ("skills/edit/SKILL.md", &skill("edit", "Before", "same")),
        (
            "skills/body/SKILL.md",
            &skill("body", "Body only", "old body"),
        ),
        (
            "skills/gone/SKILL.md",
            &skill("gone", "Removed soon", "bye"),
        ),
    ]);
    let registry = scan_ok(provider.clone(), &root()).await;

    provider
        .write_text("skills/edit/SKILL.md", &skill("edit", "After", "same"))
        .await
        .unwrap();
    provider
        .write_text(
            "skills/body/SKILL.md",
            &skill("body", "Body only", "NEW BODY"),
        )
        .await
        .unwrap();
    provider.remove("skills/gone/SKILL.md").await.unwrap();
    provider
        .write_text("skills/new/SKILL.md", &skill("new", "Fresh", "hi"))
        .await
        .unwrap();

    let report = registry
        .reload_with_report(provider.clone(), &root())
        .await
        .unwrap();
    let changes: Vec<(SkillReloadChangeKind, &str, Vec<String>)> = report
        .changes()
        .iter()
        .map(|change| (change.kind, change.name.as_str(), change.changed.clone()))
        .collect();
    assert_eq!(
        changes,
        [
            (
                SkillReloadChangeKind::Modified,
                "body",
                vec!["content".to_string()]
            ),
            (
                SkillReloadChangeKind::Modified,
                "edit",
                vec!["description".to_string(), "content".to_string()]
            ),
            (SkillReloadChangeKind::Removed, "gone", vec![]),
            (SkillReloadChangeKind::Added, "new", vec![]),
        ]
    );
    assert!(report.has_changes());
    assert_eq!(report.changes()[2].path, "skills/gone/SKILL.md");
    assert_eq!(report.registry().names(), ["body", "edit", "keep", "new"]);
    assert!(!report.reload_scheduled());
    assert_eq!(report.reload_reason(), None);
    // The old registry is untouched.
    assert!(registry.contains("gone"));

    // Reloading the fresh registry again finds nothing new.
    let fresh = report.into_registry();
    let again = fresh.reload_with_report(provider, &root()).await.unwrap();
    assert!(!again.has_changes());
}

#[tokio::test]
async fn reload_reports_moves_and_newly_malformed_files() {
    let provider = env(&[
        (
            ".agents/skills/research/SKILL.md",
            &skill("research", "R", "r"),
        ),
        ("skills/fragile/SKILL.md", &skill("fragile", "F", "f")),
    ]);
    let registry = scan_ok(provider.clone(), &root()).await;
    // Shadow the shared copy with a tool-specific one, break another.
    provider
        .write_text("skills/research/SKILL.md", &skill("research", "R", "r"))
        .await
        .unwrap();
    provider
        .write_text("skills/fragile/SKILL.md", "---\nname: fragile\n")
        .await
        .unwrap();
    let mut context = AgentContext::default();
    let report = registry
        .reload_with_context(provider, &root(), &mut context)
        .await
        .unwrap();
    let research = report
        .changes()
        .iter()
        .find(|c| c.name == "research")
        .unwrap();
    assert_eq!(research.kind, SkillReloadChangeKind::Modified);
    assert_eq!(research.changed, ["path", "directory_kind"]);
    let fragile = report
        .changes()
        .iter()
        .find(|c| c.name == "fragile")
        .unwrap();
    assert_eq!(fragile.kind, SkillReloadChangeKind::Removed);
    assert!(report.diagnostics().iter().any(
        |d| d.kind == SkillScanDiagnosticKind::Malformed && d.path == "skills/fragile/SKILL.md"
    ));
    let event = context
        .events
        .of_kind(SKILL_RELOAD_EVENT_KIND)
        .next()
        .unwrap();
    assert_eq!(event.payload["removed"], serde_json::json!(["fragile"]));
    assert_eq!(event.payload["modified"], serde_json::json!(["research"]));
    // Diagnostics keep scan order: `skills/fragile` is read before
    // `skills/research`.
    assert_eq!(event.payload["diagnostics"][0]["kind"], "malformed");
    assert_eq!(
        event.payload["diagnostics"][1]["kind"],
        "duplicate_overridden"
    );
}

#[tokio::test]
async fn reload_event_has_no_bodies_and_is_published_without_changes() {
    let provider = env(&[(
        "skills/research/SKILL.md",
        &skill("research", "R", "BODY-ONE"),
    )]);
    let registry = scan_ok(provider.clone(), &root()).await;
    provider
        .write_text(
            "skills/research/SKILL.md",
            &skill("research", "R", "BODY-TWO"),
        )
        .await
        .unwrap();
    let mut context = AgentContext::default();
    let report = registry
        .reload_with_context(provider.clone(), &root(), &mut context)
        .await
        .unwrap();
    assert_eq!(report.changes()[0].changed, ["content"]);
    let payload = &context
        .events
        .of_kind(SKILL_RELOAD_EVENT_KIND)
        .next()
        .unwrap()
        .payload;
    assert!(
        all_strings(payload)
            .iter()
            .all(|text| !text.contains("BODY-")),
        "{payload}"
    );
    assert_eq!(payload["modified"], serde_json::json!(["research"]));
    assert_eq!(payload["skills"], serde_json::json!(["research"]));
    for key in [
        "reload_scheduled",
        "reload_reason",
        "reload_ms",
        "inventory_version",
    ] {
        assert!(payload.get(key).is_some(), "{key} missing from {payload}");
    }

    let mut quiet = AgentContext::default();
    let unchanged = report
        .registry()
        .reload_with_context(provider, &root(), &mut quiet)
        .await
        .unwrap();
    assert!(!unchanged.has_changes());
    assert_eq!(quiet.events.of_kind(SKILL_RELOAD_EVENT_KIND).count(), 1);
}

// ---------------------------------------------------------------------------
// Reload scheduling
// ---------------------------------------------------------------------------

#[test]
fn binding_debounces_watch_bursts_with_explicit_clock_values() {
    let mut binding = SkillReloadBinding::new().with_debounce_ms(250);
    let idle = binding.decision(0);
    assert!(!idle.due);
    assert_eq!(idle.reason, None);
    binding.observe_watch_event(1_000);
    binding.observe_watch_event(1_100);
    binding.observe_watch_event(1_200);
    let waiting = binding.decision(1_300);
    assert!(!waiting.due);
    assert_eq!(waiting.reason, Some(RefreshReason::WatchEvent));
    assert_eq!(waiting.wait_ms, Some(150));
    let due = binding.decision(1_450);
    assert!(due.due);
    assert_eq!(due.wait_ms, None);
}

#[test]
fn binding_interval_and_versions() {
    let mut binding = SkillReloadBinding::new().with_interval_ms(60_000);
    binding.record_reload(0);
    assert_eq!(binding.last_reload_ms(), Some(0));
    assert!(binding.observe_inventory_version("v1", 10));
    assert!(
        !binding.decision(10).due,
        "the first version is the baseline"
    );
    assert_eq!(binding.decision(30_000).wait_ms, Some(30_000));
    let interval = binding.decision(60_000);
    assert!(interval.due);
    assert_eq!(interval.reason, Some(RefreshReason::Interval));
    assert!(!binding.observe_inventory_version("v1", 20_000));
    assert!(binding.observe_inventory_version("v2", 20_000));
    binding.observe_watch_event(20_001);
    let changed = binding.decision(20_001);
    assert!(changed.due);
    assert_eq!(changed.reason, Some(RefreshReason::InventoryChanged));
    assert_eq!(binding.inventory_version(), Some("v2"));
    binding.request_reload(25_000);
    assert_eq!(
        binding.decision(25_000).reason,
        Some(RefreshReason::InventoryChanged)
    );
    let mut requested = SkillReloadBinding::new();
    requested.request_reload(5);
    assert_eq!(requested.decision(5).reason, Some(RefreshReason::Requested));
}

#[tokio::test]
async fn binding_reloads_only_when_due_and_reports_the_schedule() {
    let provider = env(&[("skills/research/SKILL.md", &skill("research", "R", "r"))]);
    let registry = scan_ok(provider.clone(), &root()).await;
    let mut binding = SkillReloadBinding::new().with_debounce_ms(100);
    binding.observe_inventory_version("rev-1", 0);
    binding.record_reload(0);
    let mut context = AgentContext::default();

    // Nothing pending: no reload, no event.
    let none = binding
        .reload_with_context_if_due(&registry, provider.clone(), &root(), &mut context, 50)
        .await
        .unwrap();
    assert!(none.is_none());
    assert!(context.events.events().is_empty());

    provider
        .write_text("skills/review/SKILL.md", &skill("review", "Rv", "rv"))
        .await
        .unwrap();
    assert!(binding.observe_inventory_version("rev-2", 1_000));
    // Still inside the debounce window.
    let early = binding
        .reload_with_context_if_due(&registry, provider.clone(), &root(), &mut context, 1_050)
        .await
        .unwrap();
    assert!(early.is_none());

    let report = binding
        .reload_with_context_if_due(&registry, provider.clone(), &root(), &mut context, 1_100)
        .await
        .unwrap()
        .expect("due after the debounce");
    assert!(report.reload_scheduled());
    assert_eq!(
        report.reload_reason(),
        Some(RefreshReason::InventoryChanged)
    );
    assert_eq!(report.inventory_version(), Some("rev-2"));
    assert_eq!(report.changes()[0].kind, SkillReloadChangeKind::Added);
    let payload = &context
        .events
        .of_kind(SKILL_RELOAD_EVENT_KIND)
        .next()
        .unwrap()
        .payload;
    assert_eq!(payload["reload_scheduled"], true);
    assert_eq!(payload["reload_reason"], "inventory_changed");
    assert_eq!(payload["inventory_version"], "rev-2");
    assert!(payload["reload_ms"].is_u64());
    assert_eq!(payload["added"], serde_json::json!(["review"]));

    // Settled: the next check is not due.
    assert_eq!(binding.last_reload_ms(), Some(1_100));
    assert!(!binding.decision(5_000).due);
}

#[tokio::test]
async fn a_failed_scheduled_reload_stays_pending() {
    let provider = env(&[]);
    let registry = SkillRegistry::new();
    let mut binding = SkillReloadBinding::new();
    binding.request_reload(0);
    let mut context = AgentContext::default();
    let bad_scopes = [SkillSourceScope::new("../x")];
    assert!(binding
        .reload_with_context_if_due(&registry, provider, &bad_scopes, &mut context, 10)
        .await
        .is_err());
    assert!(context.events.events().is_empty());
    assert!(binding.decision(20).due);
}

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

/// `SkillReloadBinding::with_interval_ms` is documented as "Reload at
/// least this often". While watcher events keep arriving faster than the
/// debounce, the pending change suppresses the interval forever: after
/// ten intervals without a reload, nothing is due.
#[test]
fn interval_bounds_reload_latency_under_continuous_changes() {
    let mut binding = SkillReloadBinding::new()
        .with_interval_ms(1_000)
        .with_debounce_ms(100);
    binding.record_reload(0);
    for now in (0..10_000).step_by(50) {
        binding.observe_watch_event(now);
    }
    let decision = binding.decision(10_000);
    assert!(
        decision.due,
        "no reload for 10 intervals while changes keep coming: {decision:?}"
    );
}

/// Interval decisions follow the host clock exactly, including a clock
/// reading earlier than the last reload (no underflow, no reload).
// Regression lock: checked in review and found sound; nothing broke.
#[test]
fn binding_decisions_are_pure_functions_of_host_clock_values() {
    let mut binding = SkillReloadBinding::new()
        .with_interval_ms(1_000)
        .with_debounce_ms(10);
    binding.record_reload(5_000);
    let earlier = binding.decision(4_000);
    assert!(!earlier.due);
    assert_eq!(earlier.wait_ms, Some(2_000));
    assert_eq!(
        binding.decision(6_000).reason,
        Some(RefreshReason::Interval)
    );
    let copy = binding.clone();
    // A change long after the interval elapsed is due at once: the
    // interval bounds the debounce.
    binding.observe_watch_event(u64::MAX - 1);
    assert!(binding.decision(u64::MAX - 2).due);
    // Without an interval, the debounce saturates instead of overflowing.
    let mut debounced = SkillReloadBinding::new().with_debounce_ms(10);
    debounced.observe_watch_event(u64::MAX - 1);
    assert!(!debounced.decision(u64::MAX - 2).due);
    assert!(debounced.decision(u64::MAX).due);
    assert_eq!(copy.decision(6_000), copy.decision(6_000));
}
