//! Instructions a toolset contributes to the system prompt.

use serde::{Deserialize, Serialize};

/// One instruction block. The registry keeps one instruction per group
/// (the first registered) to keep prompts compact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolInstruction {
    /// Group key; duplicates collapse to the first.
    pub group: String,
    /// Instruction text.
    pub text: String,
}

impl ToolInstruction {
    /// Creates an instruction.
    pub fn new(group: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            group: group.into(),
            text: text.into(),
        }
    }
}

/// Keeps the first instruction of each group, in order.
pub(crate) fn dedup_by_group(
    instructions: impl IntoIterator<Item = ToolInstruction>,
) -> Vec<ToolInstruction> {
    let mut seen = std::collections::HashSet::new();
    instructions
        .into_iter()
        .filter(|instruction| seen.insert(instruction.group.clone()))
        .collect()
}
