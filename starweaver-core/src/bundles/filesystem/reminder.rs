//! The SKILL.md reminder that `ls`, `glob` and `grep` attach.

use crate::environment::file_name;
use crate::skills::SKILL_ENTRYPOINT;

/// How many skill paths a reminder names before summarizing.
const NAMED: usize = 5;

/// A reminder when `regular_files` (paths of regular files in a tool's
/// results) include a `SKILL.md`: a partial read of a skill, such as a
/// grep hit or a listing, must not stand in for its full instructions.
pub(super) fn skill_reminder<'a>(
    regular_files: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let mut skills: Vec<&str> = regular_files
        .into_iter()
        .filter(|path| file_name(path) == SKILL_ENTRYPOINT)
        .collect();
    skills.dedup();
    if skills.is_empty() {
        return None;
    }
    let mut named: Vec<String> = skills
        .iter()
        .take(NAMED)
        .map(|path| format!("`{path}`"))
        .collect();
    if skills.len() > NAMED {
        named.push(format!("and {} more", skills.len() - NAMED));
    }
    Some(format!(
        "These results include skill entrypoints ({}). Before activating or following a skill, \
         read its whole SKILL.md with read_file (no offset or limit); a listing or matching lines \
         are not the skill's instructions.",
        named.join(", ")
    ))
}
