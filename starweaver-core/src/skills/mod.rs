//! Fileops-loaded skills: markdown packages (`<skill>/SKILL.md`) found
//! through the active [`crate::environment::EnvironmentProvider`].
//!
//! A scan reads only each skill's frontmatter (`name`, `description`, ...)
//! into a compact [`SkillSummary`]; the full markdown is loaded when a
//! host or the model activates the skill. Scopes ([`SkillSourceScope`])
//! say where to look and at which precedence level; later levels override
//! earlier ones by skill name.

mod activate;
mod bundle;
mod diagnostic;
mod error;
mod events;
mod file;
mod frontmatter;
mod registry;
mod reload;
mod reload_binding;
mod report;
mod scan;
mod scope;
mod source;
mod summary;
mod text;

pub use activate::ActiveSkill;
pub use bundle::{skill_instruction, skill_tools, SKILLS_INSTRUCTION_GROUP, SKILLS_TOOLSET_NAME};
pub use diagnostic::{SkillDiagnosticSeverity, SkillScanDiagnostic, SkillScanDiagnosticKind};
pub use error::SkillError;
pub use events::{SKILL_RELOAD_EVENT_KIND, SKILL_SCAN_EVENT_KIND};
pub use file::SKILL_ENTRYPOINT;
pub use registry::SkillRegistry;
pub use reload::{SkillReloadChange, SkillReloadChangeKind, SkillReloadReport};
pub use reload_binding::SkillReloadBinding;
pub use report::SkillScanReport;
pub use scope::SkillSourceScope;
pub use source::{SkillDirectoryKind, SkillSource};
pub use summary::{SkillSummary, MAX_SKILL_DESCRIPTION_CHARS, MAX_SKILL_NAME_CHARS};
