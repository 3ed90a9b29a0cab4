//! Ripgrep-style glob patterns, compiled once with `globset`.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::SearchError;
use crate::bounds::echo;

/// Characters that make a glob segment something other than a literal
/// name.
const META: [char; 6] = ['*', '?', '[', ']', '{', '}'];

/// The longest grep or glob pattern a search accepts (4 KiB, far more
/// than any real search needs). Compiling a pattern costs more than its
/// length (a 16 KiB literal takes seconds), so a longer one is refused with [`SearchError::PatternTooLong`]
/// rather than a misleading syntax error.
pub const MAX_SEARCH_PATTERN_BYTES: usize = 4 * 1024;

/// Refuses a pattern over [`MAX_SEARCH_PATTERN_BYTES`].
pub(crate) fn check_pattern_length(kind: &'static str, pattern: &str) -> Result<(), SearchError> {
    if pattern.len() > MAX_SEARCH_PATTERN_BYTES {
        return Err(SearchError::PatternTooLong {
            kind,
            bytes: pattern.len(),
            max_bytes: MAX_SEARCH_PATTERN_BYTES,
        });
    }
    Ok(())
}

/// A compiled glob matched against paths relative to the search root.
///
/// * A bare pattern without `/` (`*.rs`, `Cargo.toml`) matches a file
///   name at any depth, as ripgrep's `--glob` does.
/// * A pattern with `/` (`src/*.rs`) is anchored at the search root and
///   `*` stays inside one segment; a leading `/` or `./` anchors a bare
///   pattern (`./*.rs` is root-level only).
/// * Empty and `.` segments are dropped, as in paths: `src//*.rs` and
///   `src/./*.rs` are `src/*.rs`.
/// * `**` spans directories, including none: `**/*.rs` matches `a.rs`.
/// * A trailing `/` means everything below: `src/` is `src/**`.
#[derive(Clone, Debug)]
pub(crate) struct PathPattern {
    /// A set of one glob rather than a `GlobMatcher`: the set picks a
    /// fast strategy (extension, literal, prefix) for common patterns
    /// such as `**/*.rs` instead of running a regex on every path.
    matcher: GlobSet,
    /// For a bare pattern (no `/`, matching a file name at any depth):
    /// the pattern alone, matched against the last segment. The same
    /// matches, since a name holds no `/`; and with no separator to
    /// respect, the set can pick a suffix or extension strategy for
    /// patterns such as `*_test.rs` that would otherwise run a regex on
    /// every path.
    name: Option<GlobSet>,
    /// Leading literal directory segments: only that directory can hold
    /// matches, so walks start there.
    prefix: Vec<String>,
    /// The exact depth of every match when the pattern has no `**`, so
    /// walks need not go deeper.
    depth: Option<usize>,
}

impl PathPattern {
    /// Compiles `pattern`.
    pub(crate) fn new(pattern: &str, case_insensitive: bool) -> Result<Self, SearchError> {
        check_pattern_length("glob", pattern)?;
        let invalid = |message: &str| SearchError::InvalidGlob {
            pattern: echo(pattern).into_owned(),
            message: message.to_string(),
        };
        if pattern.trim().is_empty() {
            return Err(invalid("the pattern is empty"));
        }
        if pattern.contains('\0') {
            return Err(invalid("the pattern contains a NUL byte"));
        }
        // Normalized like paths: `src//*.rs` and `src/./*.rs` are
        // `src/*.rs`. A leading `/` or `./` anchors at the search root, a
        // trailing `/` means everything below.
        let raw = segments(pattern);
        let anchored = raw.len() > 1 && matches!(raw.first(), Some(&("" | ".")));
        let below = raw.len() > 1 && raw.last() == Some(&"");
        let kept: Vec<&str> = raw
            .into_iter()
            .filter(|segment| !segment.is_empty() && *segment != ".")
            .collect();
        let body = match (kept.is_empty(), below) {
            (true, _) => "**".to_string(),
            (false, true) => format!("{}/**", kept.join("/")),
            (false, false) => kept.join("/"),
        };
        if body.split('/').any(|segment| segment == "..") {
            return Err(invalid(
                "patterns are relative to the search path and cannot climb above it with `..`; \
                 choose a higher search path instead",
            ));
        }
        let bare = !(anchored || body.contains('/') || body == "**");
        // A failure here only loses the shortcut: the full pattern below
        // decides whether the pattern is valid.
        let name = if bare {
            glob_set(&body, false, case_insensitive).ok()
        } else {
            None
        };
        let full = if bare { format!("**/{body}") } else { body };
        let matcher = glob_set(&full, true, case_insensitive).map_err(|error| invalid(&error))?;
        // Walk shortcuts only for plain patterns, where splitting on `/`
        // is exact (an alternation or class may hide a separator).
        let plain = !full.contains(['{', '[', '\\']);
        let segments: Vec<&str> = full.split('/').collect();
        let depth = (plain && !segments.contains(&"**")).then_some(segments.len());
        let prefix = if plain && !case_insensitive {
            segments[..segments.len().saturating_sub(1)]
                .iter()
                .take_while(|segment| !segment.contains(META))
                .map(|segment| (*segment).to_string())
                .collect()
        } else {
            Vec::new()
        };
        Ok(Self {
            matcher,
            name,
            prefix,
            depth,
        })
    }

    /// True when the root-relative `relative` path matches.
    pub(crate) fn is_match(&self, relative: &str) -> bool {
        match &self.name {
            Some(name) => name.is_match(crate::environment::file_name(relative)),
            None => self.matcher.is_match(relative),
        }
    }

    /// Literal leading directories (see the field).
    pub(crate) fn prefix(&self) -> &[String] {
        &self.prefix
    }

    /// Exact match depth, when known.
    pub(crate) fn depth(&self) -> Option<usize> {
        self.depth
    }
}

/// A set of the one glob `pattern`, `\` escaping; `*` and `?` stay inside
/// one segment when `literal_separator`.
fn glob_set(
    pattern: &str,
    literal_separator: bool,
    case_insensitive: bool,
) -> Result<GlobSet, String> {
    let glob = GlobBuilder::new(pattern)
        .literal_separator(literal_separator)
        .backslash_escape(true)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|error| error.kind().to_string())?;
    GlobSetBuilder::new()
        .add(glob)
        .build()
        .map_err(|error| error.kind().to_string())
}

/// `pattern` split at the `/` that separate segments: not inside `{}`
/// or `[]` and not escaped, where a `/` is part of an alternative or a
/// literal. As in `globset`, `\` escapes only outside a class: inside
/// one it is a member (`[\]` is a class of one backslash).
fn segments(pattern: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut braces = 0usize;
    let mut class = false;
    let mut chars = pattern.char_indices().peekable();
    while let Some((at, ch)) = chars.next() {
        match ch {
            '\\' if !class => {
                chars.next();
            }
            '[' if !class => {
                class = true;
                // A `]` right after `[`, `[!` or `[^` is a member.
                chars.next_if(|(_, next)| matches!(next, '!' | '^'));
                chars.next_if(|(_, next)| *next == ']');
            }
            ']' if class => class = false,
            '{' if !class => braces += 1,
            '}' if !class => braces = braces.saturating_sub(1),
            '/' if !class && braces == 0 => {
                parts.push(&pattern[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&pattern[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, path: &str) -> bool {
        PathPattern::new(pattern, false).is_ok_and(|compiled| compiled.is_match(path))
    }

    #[test]
    fn bare_scoped_and_recursive_patterns() {
        assert!(matches("*.rs", "a.rs"));
        assert!(matches("*.rs", "src/deep/a.rs"));
        assert!(matches("src/*.rs", "src/a.rs"));
        assert!(!matches("src/*.rs", "src/deep/a.rs"));
        assert!(!matches("src/*.rs", "other/src/a.rs"));
        assert!(matches("**/*.rs", "a.rs"));
        assert!(matches("**/*.rs", "x/y/a.rs"));
        assert!(matches("/Cargo.toml", "Cargo.toml"));
        assert!(!matches("/Cargo.toml", "sub/Cargo.toml"));
        assert!(matches("./src/*.rs", "src/a.rs"));
        assert!(matches("src/", "src/a/b.rs"));
        assert!(matches("*.{rs,toml}", "x/Cargo.toml"));
    }

    #[test]
    fn bare_patterns_match_names_as_the_full_pattern_matches_paths() {
        let patterns = [
            "*.rs",
            "*_07.rs",
            "file_0?.rs",
            "[fm]*",
            "*.{rs,toml}",
            "a**b",
            "**a",
            "*",
            "Cargo.toml",
            ".env",
            "[!f]*",
            "\\*x",
            "*.RS",
        ];
        let paths = [
            "a.rs",
            "src/a.rs",
            "pkg/mod/file_07.rs",
            "file_07.rs.bak",
            "x/file_01.rs",
            "m/a",
            "f",
            "ab",
            "x/aXb",
            "a/b",
            "Cargo.toml",
            "sub/Cargo.toml",
            "d/.env",
            "*x",
            "d/*x",
            "A.RS",
            "x/a.rs/b",
        ];
        for case_insensitive in [false, true] {
            for pattern in patterns {
                let Ok(compiled) = PathPattern::new(pattern, case_insensitive) else {
                    panic!("{pattern} compiles");
                };
                assert!(compiled.name.is_some(), "{pattern}");
                for path in paths {
                    assert_eq!(
                        compiled.is_match(path),
                        compiled.matcher.is_match(path),
                        "{pattern} on {path} (case-insensitive: {case_insensitive})"
                    );
                }
            }
        }
        for scoped in ["src/*.rs", "/a.rs", "./*.rs", "**", "src/", "{a/b,c}"] {
            let compiled = PathPattern::new(scoped, false).ok();
            assert!(compiled.is_some_and(|c| c.name.is_none()), "{scoped}");
        }
    }

    #[test]
    fn patterns_are_normalized_like_paths() {
        assert!(matches("src//*.rs", "src/a.rs"));
        assert!(matches("src/./*.rs", "src/a.rs"));
        assert!(matches("src/.//bin/", "src/bin/x.rs"));
        // A leading `./` anchors at the root, like `/`.
        assert!(matches("./*.rs", "a.rs"));
        assert!(!matches("./*.rs", "src/a.rs"));
        assert!(matches(".//Cargo.toml", "Cargo.toml"));
        assert!(matches(".", "any/thing"));
        assert!(matches("./", "any/thing"));
        assert!(matches("**/.env", "a/.env"));
        // Separators inside `{}`, `[]` or escaped are left alone.
        assert_eq!(segments("{a//b,c}/x"), ["{a//b,c}", "x"]);
        assert_eq!(segments("[/]x/y"), ["[/]x", "y"]);
        assert_eq!(segments("[]/]x/y"), ["[]/]x", "y"]);
        assert_eq!(segments("a\\/b/c"), ["a\\/b", "c"]);
        // Inside a class `\` is a member, not an escape of the `]`.
        assert_eq!(segments("[\\]x/y"), ["[\\]x", "y"]);
        assert_eq!(segments("[\\]x/./y//z/"), ["[\\]x", ".", "y", "", "z", ""]);
        assert!(matches("[\\]x/./y.rs", "\\x/y.rs"));
        assert!(matches("[\\]x/", "\\x/y.rs"));
        assert!(matches("[a\\]x//*.rs", "\\x/y.rs"));
        assert!(matches("{src,lib}/./*.rs", "lib/a.rs"));
    }

    #[test]
    fn shortcuts_are_exact_for_plain_patterns() {
        let compiled = PathPattern::new("src/bin/*.rs", false).ok();
        assert_eq!(
            compiled.as_ref().map(PathPattern::prefix),
            Some(&["src".to_string(), "bin".to_string()][..])
        );
        assert_eq!(compiled.and_then(|c| c.depth()), Some(3));
        let recursive = PathPattern::new("src/**/*.rs", false).ok();
        assert_eq!(recursive.and_then(|c| c.depth()), None);
        let insensitive = PathPattern::new("src/*.rs", true).ok();
        assert!(insensitive.is_some_and(|c| c.prefix().is_empty()));
    }

    #[test]
    fn bad_patterns_are_errors() {
        assert!(matches!(
            PathPattern::new("src/{a,b", false),
            Err(SearchError::InvalidGlob { .. })
        ));
        assert!(PathPattern::new("", false).is_err());
        assert!(PathPattern::new("../*.rs", false).is_err());
        assert!(PathPattern::new("[z-a]", false).is_err());
    }
}
