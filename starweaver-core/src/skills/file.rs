//! Reading one `SKILL.md` through an environment: bytes, UTF-8 text,
//! frontmatter and body, and a content fingerprint for reloads.

use super::frontmatter::{parse_skill_file, FrontmatterError, ParsedSkillFile};
use super::SkillError;
use crate::environment::{join_path, normalize_path, EnvironmentError, EnvironmentProvider};

/// The entrypoint file name of every skill folder.
pub const SKILL_ENTRYPOINT: &str = "SKILL.md";

/// A read and parsed SKILL.md.
#[derive(Clone, Debug)]
pub(crate) struct SkillFile {
    /// The normalized path of the SKILL.md.
    pub path: String,
    pub parsed: ParsedSkillFile,
    pub fingerprint: String,
    pub size: u64,
}

/// Reads the SKILL.md at `path` (exactly that file).
pub(crate) async fn read_skill_file(
    provider: &dyn EnvironmentProvider,
    path: &str,
) -> Result<SkillFile, SkillError> {
    let path = normalize_path(path).map_err(|source| SkillError::Unreadable {
        path: crate::bounds::echo(path).into_owned(),
        source,
    })?;
    let bytes = provider
        .read_bytes(&path)
        .await
        .map_err(|error| read_error(&path, error))?;
    let size = bytes.len() as u64;
    let fingerprint = fingerprint(&bytes);
    let text = crate::environment::into_text(bytes)
        .ok_or_else(|| SkillError::NotText { path: path.clone() })?;
    let parsed = parse_skill_file(&text).map_err(|error| frontmatter_error(&path, error))?;
    Ok(SkillFile {
        path,
        parsed,
        fingerprint,
        size,
    })
}

/// Like [`read_skill_file`], but a skill folder's path reads the
/// `SKILL.md` inside it.
pub(crate) async fn read_skill_file_or_folder(
    provider: &dyn EnvironmentProvider,
    path: &str,
) -> Result<SkillFile, SkillError> {
    match read_skill_file(provider, path).await {
        Err(SkillError::Unreadable {
            path,
            source: EnvironmentError::IsADirectory { .. },
        }) => read_skill_file(provider, &join_path(&path, SKILL_ENTRYPOINT)).await,
        other => other,
    }
}

fn read_error(path: &str, error: EnvironmentError) -> SkillError {
    match error {
        EnvironmentError::NotFound { .. } => SkillError::NotFound {
            path: path.to_string(),
        },
        EnvironmentError::NotText { .. } => SkillError::NotText {
            path: path.to_string(),
        },
        source => SkillError::Unreadable {
            path: path.to_string(),
            source,
        },
    }
}

fn frontmatter_error(path: &str, error: FrontmatterError) -> SkillError {
    let path = path.to_string();
    match error {
        FrontmatterError::Missing { found } => SkillError::MissingFrontmatter { path, found },
        FrontmatterError::Unclosed => SkillError::UnclosedFrontmatter { path },
        FrontmatterError::Yaml {
            message,
            line,
            column,
        } => SkillError::InvalidFrontmatter {
            path,
            message,
            line,
            column,
        },
    }
}

/// A stable 64-bit FNV-1a hash of the file, in hex. Stable across
/// processes and Rust versions, so hosts may persist it.
pub(crate) fn fingerprint(bytes: &[u8]) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;
    let hash = bytes.iter().fold(OFFSET, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(PRIME)
    });
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_stable_and_content_sensitive() {
        assert_eq!(fingerprint(b""), "cbf29ce484222325");
        assert_eq!(fingerprint(b"a"), "af63dc4c8601ec8c");
        assert_ne!(fingerprint(b"body one"), fingerprint(b"body two"));
    }
}
