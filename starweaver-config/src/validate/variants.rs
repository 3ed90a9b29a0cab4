//! Tagged unions (`toolsets:` entries): the `type:` key picks the variant, and the entry is then
//! checked against that variant only, so a misspelled field is reported once, against the
//! fields of the type the author chose.

use serde_json::Value as Json;

use super::walk::Walker;
use super::{kinds, suggest};
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::Node;

/// The key that tells variants apart.
const TAG: &str = "type";

/// The tag constant of one variant (`properties.type.const`).
fn tag_of(option: &Json) -> Option<&str> {
    option.get("properties")?.get(TAG)?.get("const")?.as_str()
}

/// Whether every branch is an object variant with its own `type` constant.
pub(super) fn is_tagged(options: &[Json]) -> bool {
    !options.is_empty() && options.iter().all(|option| tag_of(option).is_some())
}

impl Walker {
    /// Checks an entry of a tagged union.
    pub(super) fn tagged(&mut self, node: &Node, options: &[Json]) {
        let tags: Vec<&str> = options.iter().filter_map(tag_of).collect();
        if node.as_mapping().is_none() {
            let shown = serde_json::json!({
                "type": "object",
                "examples": [{TAG: tags.first().copied().unwrap_or_default()}],
            });
            self.wrong_kind(node, format!("a mapping with a `{TAG}` key"), &shown);
            return;
        }
        let Some((_, tag)) = node.entry(TAG) else {
            self.report(
                Diagnostic::error(
                    Rule::MissingField,
                    node.span,
                    format!("missing required field `{TAG}` {}", self.path.location()),
                )
                .with_help(format!("add `{TAG}:` with one of {}", suggest::list(&tags))),
            );
            return;
        };
        let chosen = tag
            .as_str()
            .and_then(|name| options.iter().find(|option| tag_of(option) == Some(name)));
        match chosen {
            Some(option) => self.node(node, option),
            None => {
                let help = match tag.as_str().and_then(|name| suggest::closest(name, &tags)) {
                    Some(close) => format!("did you mean `{close}`?"),
                    None => format!("use one of {}", suggest::list(&tags)),
                };
                self.report(
                    Diagnostic::error(
                        Rule::InvalidValue,
                        tag.span,
                        format!(
                            "`{}` must be one of {}, found {}",
                            self.path.child(TAG),
                            suggest::list(&tags),
                            kinds::found(&tag.value)
                        ),
                    )
                    .with_help(help),
                );
            }
        }
    }
}
