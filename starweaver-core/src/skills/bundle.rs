//! The model-facing side of skills: one instruction block that lists the
//! skills and tells the model to read a SKILL.md before using it.

use std::borrow::Borrow;
use std::fmt::Write as _;
use std::sync::Arc;

use super::text::one_line;
use super::SkillSummary;
use crate::tools::DynToolset;
use crate::tools::ToolInstruction;
use crate::toolsets::StaticToolset;

/// Name of the toolset [`skill_tools`] returns.
pub const SKILLS_TOOLSET_NAME: &str = "skills";

/// Instruction group of the skills block (one per agent).
pub const SKILLS_INSTRUCTION_GROUP: &str = "skills";

/// The instruction block for these skills: name, description and
/// SKILL.md path of each, and the rule to read the SKILL.md in full
/// before using a skill. `None` when there are no skills.
#[must_use]
pub fn skill_instruction<I>(packages: I) -> Option<ToolInstruction>
where
    I: IntoIterator,
    I::Item: Borrow<SkillSummary>,
{
    let mut lines = String::new();
    for package in packages {
        let skill = package.borrow();
        let _ = writeln!(
            lines,
            "- {}: {} (read `{}`)",
            skill.name,
            one_line(&skill.description),
            skill.path
        );
    }
    if lines.is_empty() {
        return None;
    }
    let text = format!(
        "Skills are folders of instructions for specific tasks. Each line below names a \
         skill, says what it is for, and gives the path of its SKILL.md file. Before you use \
         a skill, read its SKILL.md in full with your file tools and follow it; the summary \
         here is not enough to act on. Paths a SKILL.md mentions are relative to its \
         folder.\n\nAvailable skills:\n{}",
        lines.trim_end()
    );
    Some(ToolInstruction::new(SKILLS_INSTRUCTION_GROUP, text))
}

/// A toolset named `skills` that carries the [`skill_instruction`]
/// block (and no tools: the model reads skills with the filesystem
/// tools). Register it on an agent with `AgentBuilder::toolset`.
///
/// ```
/// use starweaver_core::skills::{skill_tools, SkillSummary};
/// use starweaver_core::tools::Toolset;
///
/// let skills = [SkillSummary::new("research", "Gather and cite sources", "skills/research/SKILL.md")];
/// let toolset = skill_tools(&skills);
/// let text = &toolset.get_instructions()[0].text;
/// assert!(text.contains("- research: Gather and cite sources (read `skills/research/SKILL.md`)"));
/// ```
#[must_use]
pub fn skill_tools<I>(packages: I) -> DynToolset
where
    I: IntoIterator,
    I::Item: Borrow<SkillSummary>,
{
    let toolset = StaticToolset::new(SKILLS_TOOLSET_NAME);
    Arc::new(match skill_instruction(packages) {
        Some(instruction) => toolset.with_instruction(instruction),
        None => toolset,
    })
}
