//! The hidden-path rule shared by walks, globs, greps and file trees.

/// The directory that stays visible directly under a search root even
/// when hidden paths are excluded, so skill entrypoints such as
/// `.agents/skills/*/SKILL.md` can be discovered.
pub const AGENTS_DIR: &str = ".agents";

/// True when the hidden-path rule excludes `path` from a search rooted at
/// `search_root` (both root-relative, as [`crate::environment::normalize_path`]
/// returns them).
///
/// A path is hidden when any segment below the root starts with a dot.
/// The root's direct `.agents` directory (and what lies under it) is the
/// one exception; `.agents` deeper down, or a `.agents` file, stays
/// hidden. The root itself is never excluded: it was chosen explicitly.
///
/// ```
/// use starweaver_core::environment::is_hidden_excluded;
/// assert!(!is_hidden_excluded("", ".agents/skills/a/SKILL.md", false));
/// assert!(is_hidden_excluded("", "a/.agents/skills", true));
/// assert!(is_hidden_excluded("", ".git/config", false));
/// assert!(!is_hidden_excluded(".git", ".git/config", false));
/// ```
#[must_use]
pub fn is_hidden_excluded(search_root: &str, path: &str, is_dir: bool) -> bool {
    let relative = if search_root.is_empty() {
        path
    } else {
        match path
            .strip_prefix(search_root)
            .and_then(|rest| rest.strip_prefix('/'))
        {
            Some(rest) => rest,
            None => return false,
        }
    };
    let segments: Vec<&str> = relative.split('/').filter(|s| !s.is_empty()).collect();
    let last = segments.len().saturating_sub(1);
    segments.iter().enumerate().any(|(index, segment)| {
        let segment_is_dir = index < last || is_dir;
        hides(segment, index + 1, segment_is_dir)
    })
}

/// The rule for one entry named `name` at `depth` below the search root
/// (1 = direct child); walks apply it entry by entry, so a directory's
/// ancestors were already checked.
pub(crate) fn hides(name: &str, depth: usize, is_dir: bool) -> bool {
    name.starts_with('.') && !(depth == 1 && is_dir && name == AGENTS_DIR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_exception_is_only_for_the_roots_direct_directory() {
        assert!(!is_hidden_excluded("", ".agents", true));
        assert!(is_hidden_excluded("", ".agents", false));
        assert!(!is_hidden_excluded("", ".agents/skills/x/SKILL.md", false));
        assert!(is_hidden_excluded("", ".agents/.cache/x", false));
        assert!(is_hidden_excluded("", "a/.agents/skills/x/SKILL.md", false));
        assert!(!is_hidden_excluded(
            "a",
            "a/.agents/skills/x/SKILL.md",
            false
        ));
        assert!(is_hidden_excluded("", ".env", false));
        assert!(!is_hidden_excluded("", "src/main.rs", false));
        assert!(!is_hidden_excluded("src", "other/.x", false));
    }
}
