//! Splitting a SKILL.md into its YAML frontmatter and markdown body, and
//! reading the frontmatter fields. YAML goes through `serde-saphyr`
//! (budgeted, so alias bombs fail instead of exhausting memory).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::JsonMap;

/// The frontmatter fields a skill may set. Unknown keys are ignored so
/// skills written for other tools still load.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Frontmatter {
    pub name: Option<String>,
    pub description: Option<String>,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub allowed_tools: Vec<String>,
    pub metadata: JsonMap,
}

/// A SKILL.md split into parts; the body is trimmed (`None` when empty).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ParsedSkillFile {
    pub frontmatter: Frontmatter,
    pub body: Option<String>,
}

/// Why a SKILL.md's frontmatter could not be read. The caller adds the
/// file path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FrontmatterError {
    /// The first line is not `---`; `found` describes what is there.
    Missing { found: String },
    /// No closing `---` line.
    Unclosed,
    /// The YAML does not parse or has the wrong shape. Line and column
    /// count from the start of the file.
    Yaml {
        message: String,
        line: Option<u64>,
        column: Option<u64>,
    },
}

#[derive(Deserialize)]
struct RawFrontmatter {
    name: Option<String>,
    description: Option<String>,
    license: Option<String>,
    compatibility: Option<String>,
    #[serde(rename = "allowed-tools", alias = "allowed_tools")]
    allowed_tools: Option<Value>,
    metadata: Option<Value>,
}

/// Parses a SKILL.md. Tolerates a UTF-8 byte-order mark, CRLF (and lone
/// CR) line endings and trailing spaces on the `---` lines.
pub(crate) fn parse_skill_file(text: &str) -> Result<ParsedSkillFile, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text: Cow<'_, str> = if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    };
    let (yaml, body) = split(&text)?;
    let frontmatter = parse_yaml(yaml)?;
    let body = body.trim();
    Ok(ParsedSkillFile {
        frontmatter,
        body: (!body.is_empty()).then(|| body.to_string()),
    })
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Returns the YAML between the `---` lines and the rest of the file.
fn split(text: &str) -> Result<(&str, &str), FrontmatterError> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if !is_delimiter(first) {
        return Err(FrontmatterError::Missing {
            found: describe_first_line(text, first),
        });
    }
    let yaml_start = first.len();
    let mut offset = yaml_start;
    for line in lines {
        if is_delimiter(line) {
            return Ok((&text[yaml_start..offset], &text[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(FrontmatterError::Unclosed)
}

fn describe_first_line(text: &str, first: &str) -> String {
    const SHOWN: usize = 40;
    if text.trim().is_empty() {
        return "the file is empty".to_string();
    }
    let first = first.trim();
    if first.is_empty() {
        return "the first line is blank".to_string();
    }
    let shown: String = first.chars().take(SHOWN).collect();
    let ellipsis = if first.chars().count() > SHOWN {
        "…"
    } else {
        ""
    };
    format!("the first line is `{shown}{ellipsis}`")
}

fn parse_yaml(yaml: &str) -> Result<Frontmatter, FrontmatterError> {
    if yaml.trim().is_empty() {
        return Ok(Frontmatter::default());
    }
    let options = serde_saphyr::options! { with_snippet: false };
    let raw: RawFrontmatter =
        serde_saphyr::from_str_with_options(yaml, options).map_err(|error| {
            // The YAML starts on line 2 of the file (after `---`).
            let render = serde_saphyr::render_options! {
                line_offset: 1,
                snippets: serde_saphyr::SnippetMode::Off,
            };
            let location = error.location();
            FrontmatterError::Yaml {
                message: error.render_with_options(render),
                line: location.map(|location| location.line() + 1),
                column: location.map(|location| location.column()),
            }
        })?;
    Ok(Frontmatter {
        name: raw.name,
        description: raw.description,
        license: non_empty(raw.license),
        compatibility: non_empty(raw.compatibility),
        allowed_tools: allowed_tools(raw.allowed_tools)?,
        metadata: metadata(raw.metadata)?,
    })
}

fn non_empty(value: Option<String>) -> Option<String> {
    value
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

/// `allowed-tools` is a space- or comma-separated string, or a list.
fn allowed_tools(value: Option<Value>) -> Result<Vec<String>, FrontmatterError> {
    let split = |text: &str| -> Vec<String> {
        text.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|tool| !tool.is_empty())
            .map(str::to_string)
            .collect()
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(text)) => Ok(split(&text)),
        Some(Value::Array(items)) => Ok(items
            .iter()
            .flat_map(|item| match item {
                Value::String(text) => split(text),
                other => split(&other.to_string()),
            })
            .collect()),
        Some(_) => Err(shape_error(
            "`allowed-tools` must be a string of tool names or a list of them",
        )),
    }
}

fn metadata(value: Option<Value>) -> Result<JsonMap, FrontmatterError> {
    match value {
        None | Some(Value::Null) => Ok(JsonMap::new()),
        Some(Value::Object(map)) => Ok(map),
        Some(_) => Err(shape_error(
            "`metadata` must be a mapping of `key: value` lines",
        )),
    }
}

fn shape_error(message: &str) -> FrontmatterError {
    FrontmatterError::Yaml {
        message: message.to_string(),
        line: None,
        column: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ParsedSkillFile {
        match parse_skill_file(text) {
            Ok(parsed) => parsed,
            Err(error) => panic!("{text:?} did not parse: {error:?}"),
        }
    }

    fn error(text: &str) -> FrontmatterError {
        match parse_skill_file(text) {
            Ok(parsed) => panic!("{text:?} parsed: {parsed:?}"),
            Err(error) => error,
        }
    }

    #[test]
    fn reads_fields_and_trims_the_body() {
        let parsed =
            parse("---\nname: research\ndescription: Gather sources\n---\n\n  Body text.\n\n");
        assert_eq!(parsed.frontmatter.name.as_deref(), Some("research"));
        assert_eq!(
            parsed.frontmatter.description.as_deref(),
            Some("Gather sources")
        );
        assert_eq!(parsed.body.as_deref(), Some("Body text."));
    }

    #[test]
    fn empty_body_is_none() {
        assert_eq!(parse("---\nname: a\n---\n").body, None);
        assert_eq!(parse("---\nname: a\n---").body, None);
        assert_eq!(parse("---\nname: a\n---\n \n\t\n").body, None);
    }

    #[test]
    fn crlf_bom_and_trailing_spaces_are_tolerated() {
        let parsed =
            parse("\u{feff}---  \r\nname: a\r\ndescription: b\r\n--- \r\nline one\r\nline two\r\n");
        assert_eq!(parsed.frontmatter.name.as_deref(), Some("a"));
        assert_eq!(parsed.frontmatter.description.as_deref(), Some("b"));
        assert_eq!(parsed.body.as_deref(), Some("line one\nline two"));
        let old_mac = parse("---\rname: a\rdescription: b\r---\rbody\r");
        assert_eq!(old_mac.body.as_deref(), Some("body"));
    }

    #[test]
    fn optional_fields() {
        let parsed = parse(
            "---\nname: a\ndescription: b\nlicense: MIT\ncompatibility: ' needs git '\n\
             allowed-tools: Bash(git:*) Read, Grep\nmetadata:\n  author: ada\n  version: 2\n---\n",
        );
        let frontmatter = parsed.frontmatter;
        assert_eq!(frontmatter.license.as_deref(), Some("MIT"));
        assert_eq!(frontmatter.compatibility.as_deref(), Some("needs git"));
        assert_eq!(frontmatter.allowed_tools, ["Bash(git:*)", "Read", "Grep"]);
        assert_eq!(frontmatter.metadata["author"], "ada");
        assert_eq!(frontmatter.metadata["version"], 2);
        let listed = parse("---\nallowed-tools: [read_file, grep]\n---\n").frontmatter;
        assert_eq!(listed.allowed_tools, ["read_file", "grep"]);
    }

    #[test]
    fn unknown_keys_and_odd_scalars_are_tolerated() {
        let parsed = parse("---\nname: a\ndescription: b\nversion: 1.2\ntags: [x, y]\n7: seven\nnested: {k: [1, 2]}\n---\n");
        assert_eq!(parsed.frontmatter.name.as_deref(), Some("a"));
        // Scalars of other types read as their text.
        let numbers = parse("---\nname: 42\ndescription: true\n---\n").frontmatter;
        assert_eq!(numbers.name.as_deref(), Some("42"));
        assert_eq!(numbers.description.as_deref(), Some("true"));
    }

    #[test]
    fn empty_or_null_frontmatter_has_no_fields() {
        assert_eq!(parse("---\n---\nbody").frontmatter, Frontmatter::default());
        assert_eq!(parse("---\n  \n---\n").frontmatter, Frontmatter::default());
        assert_eq!(
            parse("---\nname: ~\ndescription:\n---\n").frontmatter,
            Frontmatter::default()
        );
    }

    #[test]
    fn missing_frontmatter_says_what_is_there() {
        assert_eq!(
            error(""),
            FrontmatterError::Missing {
                found: "the file is empty".to_string()
            }
        );
        assert_eq!(
            error(" \n\n"),
            FrontmatterError::Missing {
                found: "the file is empty".to_string()
            }
        );
        assert_eq!(
            error("\n---\nname: a\n---\n"),
            FrontmatterError::Missing {
                found: "the first line is blank".to_string()
            }
        );
        assert_eq!(
            error("# Research\n"),
            FrontmatterError::Missing {
                found: "the first line is `# Research`".to_string()
            }
        );
        let long = format!("{}\n", "x".repeat(500));
        match error(&long) {
            FrontmatterError::Missing { found } => assert!(found.chars().count() < 70, "{found}"),
            other => panic!("{other:?}"),
        }
        // `----` and `--- x` are not delimiters.
        assert!(matches!(error("----\n"), FrontmatterError::Missing { .. }));
    }

    #[test]
    fn unclosed_frontmatter() {
        assert_eq!(error("---\nname: a\n"), FrontmatterError::Unclosed);
        assert_eq!(error("---"), FrontmatterError::Unclosed);
        assert_eq!(error("---\nname: a\n--- x\n"), FrontmatterError::Unclosed);
    }

    #[test]
    fn yaml_errors_carry_file_lines() {
        match error("---\nname: a\ndescription: b: c\n---\n") {
            FrontmatterError::Yaml {
                message,
                line,
                column,
            } => {
                assert_eq!(line, Some(3));
                assert_eq!(column, Some(15));
                assert!(message.contains("line 3"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            error("---\n- a\n- b\n---\n"),
            FrontmatterError::Yaml { line: Some(2), .. }
        ));
        assert!(matches!(
            error("---\nname: a\nname: b\n---\n"),
            FrontmatterError::Yaml { line: Some(3), .. }
        ));
        assert!(matches!(
            error("---\nname: [a\n---\n"),
            FrontmatterError::Yaml { .. }
        ));
        assert!(matches!(
            error("---\ndescription: {a: 1}\n---\n"),
            FrontmatterError::Yaml { .. }
        ));
        assert!(matches!(
            error("---\nmetadata: [1, 2]\n---\n"),
            FrontmatterError::Yaml { .. }
        ));
        assert!(matches!(
            error("---\nallowed-tools: {a: 1}\n---\n"),
            FrontmatterError::Yaml { .. }
        ));
    }

    #[test]
    fn alias_bombs_fail_instead_of_expanding() {
        let mut yaml = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..12 {
            let previous = level - 1;
            yaml.push_str(&format!(
                "a{level}: &a{level} [*a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}]\n"
            ));
        }
        yaml.push_str("metadata: {bomb: *a11}\n---\n");
        assert!(parse_skill_file(&yaml).is_err());
    }

    #[test]
    fn never_panics_on_odd_input() {
        let inputs = [
            "---\n\0\n---\n",
            "---\n\u{feff}name: a\n---\n",
            "---\n:\n---\n",
            "---\n? [a]\n: b\n---\n",
            "---\n!!binary aGVsbG8=\n---\n",
            "---\n---\n---\n",
            "---\r\n",
            "\u{feff}",
            "---\n'unterminated\n---\n",
            "---\nname: \"\\uD800\"\n---\n",
        ];
        for input in inputs {
            let _ = parse_skill_file(input);
        }
        let huge = format!("---\ndescription: {}\n---\n", "word ".repeat(100_000));
        let parsed = parse(&huge);
        assert!(parsed.frontmatter.description.is_some());
    }
}
