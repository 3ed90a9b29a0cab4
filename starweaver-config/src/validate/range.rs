//! Integer bounds: `minimum`/`maximum` and the width a `format` such as `uint32` implies.

use serde_json::Value as Json;

use super::hint;
use super::walk::Walker;
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::Node;

impl Walker {
    /// Reports an integer outside the schema's bounds.
    pub(super) fn integer(&mut self, node: &Node, number: i64, schema: &Json) {
        let (mut low, mut high) = format_bounds(schema.get("format").and_then(Json::as_str));
        if let Some(minimum) = schema.get("minimum").and_then(Json::as_i64) {
            low = low.max(i128::from(minimum));
        }
        if let Some(maximum) = schema.get("maximum").and_then(Json::as_i64) {
            high = high.min(i128::from(maximum));
        }
        let value = i128::from(number);
        let problem = if value < low {
            format!("at least {low}")
        } else if value > high {
            format!("at most {high}")
        } else {
            return;
        };
        self.report(
            Diagnostic::error(
                Rule::InvalidValue,
                node.span,
                format!("`{}` must be {problem}, found {number}", self.path),
            )
            .with_help(hint::out_of_range(self.path.place(), schema, low, high)),
        );
    }
}

/// The range of an integer `format` (unknown formats are unbounded).
fn format_bounds(format: Option<&str>) -> (i128, i128) {
    let unbounded = (i128::MIN, i128::MAX);
    match format {
        Some("uint8") => (0, i128::from(u8::MAX)),
        Some("uint16") => (0, i128::from(u16::MAX)),
        Some("uint32") => (0, i128::from(u32::MAX)),
        Some("uint64" | "uint") => (0, i128::MAX),
        Some("int8") => (i128::from(i8::MIN), i128::from(i8::MAX)),
        Some("int16") => (i128::from(i16::MIN), i128::from(i16::MAX)),
        Some("int32") => (i128::from(i32::MIN), i128::from(i32::MAX)),
        _ => unbounded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_bound_their_width() {
        assert_eq!(format_bounds(Some("uint32")), (0, i128::from(u32::MAX)));
        assert_eq!(format_bounds(None), (i128::MIN, i128::MAX));
        assert_eq!(format_bounds(Some("int8")).0, -128);
    }
}
