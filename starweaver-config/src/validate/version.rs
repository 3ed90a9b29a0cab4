//! `version:`: a number other than the one this reader understands is its own rule, so tools
//! can tell "newer format" apart from "typo".

use super::walk::Walker;
use crate::diagnostics::{Diagnostic, Rule};
use crate::manifest::MANIFEST_VERSION;
use crate::yaml::{Node, Value};

/// Reports a top-level `version` that is an integer other than [`MANIFEST_VERSION`]; returns
/// whether it did (then the value needs no other check). Other values are left to the schema.
pub(super) fn unsupported(walker: &mut Walker, key: &str, value: &Node) -> bool {
    let Value::Int(number) = value.value else {
        return false;
    };
    if key != "version" || number == i64::from(MANIFEST_VERSION) {
        return false;
    }
    walker.report(
        Diagnostic::error(
            Rule::UnsupportedVersion,
            value.span,
            format!(
                "manifest version {number} is not supported: this reader understands version \
                 {MANIFEST_VERSION}"
            ),
        )
        .with_help(format!(
            "write `version: {MANIFEST_VERSION}` and the version-{MANIFEST_VERSION} format, or \
             use a release that reads version {number}"
        )),
    );
    true
}
