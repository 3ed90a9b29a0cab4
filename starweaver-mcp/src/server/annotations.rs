//! A tool's typed facts as MCP tool annotations: what a client may show its user or use to
//! decide whether to confirm a call.

use rmcp::model::ToolAnnotations;
use starweaver_core::tools::{ToolFacts, ToolKind};

/// The tag the filesystem and shell bundles put on tools that only read.
const READ_ONLY_TAG: &str = "read_only";
/// The tag the filesystem and shell bundles put on tools that change things.
const MUTATING_TAG: &str = "mutating";

/// The annotations `facts` justify, or `None` when they say nothing a hint could carry.
///
/// - tag `read_only`: `readOnlyHint: true`, `destructiveHint: false`;
/// - tag `mutating`, or a tool that needs approval (kind `unapproved` included):
///   `readOnlyHint: false`, `destructiveHint: true`;
/// - kind `external` (runs outside this process): `openWorldHint: true`.
///
/// Hints only: the server itself decides from the facts (the approval gate runs whatever a
/// client makes of them).
pub(crate) fn annotations(facts: &ToolFacts) -> Option<ToolAnnotations> {
    let tagged = |tag: &str| facts.tags.iter().any(|own| own == tag);
    let mut annotations = ToolAnnotations::new();
    let mut any = false;
    if tagged(READ_ONLY_TAG) && !facts.approval_required {
        annotations = annotations.read_only(true).destructive(false);
        any = true;
    } else if tagged(MUTATING_TAG) || facts.approval_required {
        annotations = annotations.read_only(false).destructive(true);
        any = true;
    }
    if facts.kind == Some(ToolKind::External) {
        annotations = annotations.open_world(true);
        any = true;
    }
    any.then_some(annotations)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(tags: &[&str], approval_required: bool) -> ToolFacts {
        let mut facts = ToolFacts::default();
        facts.tags = tags.iter().map(|tag| (*tag).to_string()).collect();
        facts.approval_required = approval_required;
        facts
    }

    #[test]
    fn read_only_tools_say_so_and_mutating_ones_are_destructive() {
        let read = annotations(&facts(&["filesystem", "read_only"], false));
        assert_eq!(read.as_ref().and_then(|a| a.read_only_hint), Some(true));
        assert_eq!(read.and_then(|a| a.destructive_hint), Some(false));
        let write = annotations(&facts(&["filesystem", "mutating"], false));
        assert_eq!(write.as_ref().and_then(|a| a.read_only_hint), Some(false));
        assert_eq!(write.and_then(|a| a.destructive_hint), Some(true));
    }

    #[test]
    fn approval_outweighs_a_read_only_tag_and_plain_tools_get_no_hints() {
        let gated = annotations(&facts(&["read_only"], true));
        assert_eq!(gated.and_then(|a| a.destructive_hint), Some(true));
        assert_eq!(annotations(&facts(&["search"], false)), None);
    }
}
