//! Tagged unions (`toolsets:` entries): the `type:` key picks the variant, and the entry is then
//! checked against that variant only, so a misspelled field is reported once, against the
//! fields of the type the author chose.
//!
//! This file decides which variant an entry is, or what is wrong with its tag; the walk
//! ([`super::walk`]) acts on the answer, so the two stay apart.

use serde_json::Value as Json;

use super::path::FieldPath;
use super::{kinds, suggest};
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::Node;

/// The key that tells variants apart.
const TAG: &str = "type";

/// What an entry's tag says.
pub(super) enum Pick<'s> {
    /// The entry is not a mapping: a wrong kind, expected `expected`, with `shown` as the
    /// schema whose example the fix shows.
    NotMapping {
        /// What the place takes.
        expected: String,
        /// The schema the hint is drawn from.
        shown: Json,
    },
    /// The tag is missing or names no variant: the problem to report.
    Refused(Diagnostic),
    /// The variant the tag names, to check the entry against.
    Chosen(&'s Json),
}

/// The tag constant of one variant (`properties.type.const`).
fn tag_of(option: &Json) -> Option<&str> {
    option.get("properties")?.get(TAG)?.get("const")?.as_str()
}

/// Whether every branch is an object variant with its own `type` constant.
pub(super) fn is_tagged(options: &[Json]) -> bool {
    !options.is_empty() && options.iter().all(|option| tag_of(option).is_some())
}

/// The variant of `options` that the entry `node` at `path` names with its tag.
pub(super) fn pick<'s>(node: &Node, options: &'s [Json], path: &FieldPath) -> Pick<'s> {
    let tags: Vec<&str> = options.iter().filter_map(tag_of).collect();
    if node.as_mapping().is_none() {
        return Pick::NotMapping {
            expected: format!("a mapping with a `{TAG}` key"),
            shown: serde_json::json!({
                "type": "object",
                "examples": [{TAG: tags.first().copied().unwrap_or_default()}],
            }),
        };
    }
    let Some((_, tag)) = node.entry(TAG) else {
        return Pick::Refused(
            Diagnostic::error(
                Rule::MissingField,
                node.span,
                format!("missing required field `{TAG}` {}", path.location()),
            )
            .with_help(format!("add `{TAG}:` with one of {}", suggest::list(&tags))),
        );
    };
    let chosen = tag
        .as_str()
        .and_then(|name| options.iter().find(|option| tag_of(option) == Some(name)));
    if let Some(option) = chosen {
        return Pick::Chosen(option);
    }
    let help = match tag.as_str().and_then(|name| suggest::closest(name, &tags)) {
        Some(close) => format!("did you mean `{close}`?"),
        None => format!("use one of {}", suggest::list(&tags)),
    };
    Pick::Refused(
        Diagnostic::error(
            Rule::InvalidValue,
            tag.span,
            format!(
                "`{}` must be one of {}, found {}",
                path.child(TAG),
                suggest::list(&tags),
                kinds::found(&tag.value)
            ),
        )
        .with_help(help),
    )
}
