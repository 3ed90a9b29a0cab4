//! Splitting a SKILL.md into its YAML frontmatter and markdown body, and
//! reading the frontmatter fields. The YAML is read as a node tree
//! (see [`super::yaml`]) and only the known keys are interpreted, so keys
//! written for other tools never reject a skill.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Display;

use serde_json::Value;

use super::text::{code_point, is_invisible, quoted};
use super::yaml::{Expander, Node, NodeKind, Position, Tree};
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
    /// The YAML does not parse or a field has the wrong shape. The message
    /// says what, where and how to fix it; line and column count from the
    /// start of the file.
    Yaml {
        message: String,
        line: Option<u64>,
        column: Option<u64>,
    },
}

impl FrontmatterError {
    /// A [`FrontmatterError::Yaml`] reading "what at line L, column C; fix".
    pub(crate) fn yaml(at: Option<Position>, what: impl Display, fix: &str) -> Self {
        let message = match at {
            Some(at) => format!("{what} at line {}, column {}; {fix}", at.line, at.column),
            None => format!("{what}; {fix}"),
        };
        Self::Yaml {
            message,
            line: at.map(|at| at.line),
            column: at.map(|at| at.column),
        }
    }
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

/// Says what the first line holds instead of `---`. The line is quoted as
/// written (not trimmed) with invisible characters spelled out, and a
/// fence that is only indented or preceded by an invisible character is
/// called out, since it looks right.
fn describe_first_line(text: &str, first: &str) -> String {
    const SHOWN: usize = 40;
    if text.trim().is_empty() {
        return "the file is empty".to_string();
    }
    let line = first.strip_suffix('\n').unwrap_or(first);
    if line.trim().is_empty() {
        return "the first line is blank".to_string();
    }
    let shown = quoted(line, SHOWN);
    let before_fence = line.trim_end().strip_suffix("---").unwrap_or(line);
    if before_fence.len() < line.len() && before_fence.chars().all(is_invisible_or_space) {
        if before_fence.chars().all(|c| c == ' ') {
            let count = before_fence.len();
            let spaces = if count == 1 { "space" } else { "spaces" };
            return format!(
                "the first line `{shown}` is indented by {count} {spaces}, so it is not a \
                 `---` fence; remove the indentation"
            );
        }
        let characters: Vec<String> = before_fence.chars().map(code_point).collect();
        return format!(
            "the first line `{shown}` has {} before `---`, so it is not a fence; delete {}",
            if characters.len() == 1 {
                format!("the invisible character {}", characters.join(""))
            } else {
                format!("the invisible characters {}", characters.join(", "))
            },
            if characters.len() == 1 { "it" } else { "them" }
        );
    }
    format!("the first line is `{shown}`")
}

fn is_invisible_or_space(c: char) -> bool {
    c == ' ' || is_invisible(c)
}

/// A frontmatter field this crate reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Field {
    Name,
    Description,
    License,
    Compatibility,
    AllowedTools,
    Metadata,
}

impl Field {
    fn of_key(key: &str) -> Option<Self> {
        Some(match key {
            "name" => Self::Name,
            "description" => Self::Description,
            "license" => Self::License,
            "compatibility" => Self::Compatibility,
            "allowed-tools" | "allowed_tools" => Self::AllowedTools,
            "metadata" => Self::Metadata,
            _ => return None,
        })
    }
}

fn parse_yaml(yaml: &str) -> Result<Frontmatter, FrontmatterError> {
    if yaml.trim().is_empty() {
        return Ok(Frontmatter::default());
    }
    let tree = Tree::parse(yaml)?;
    let Some(root) = tree.root() else {
        return Ok(Frontmatter::default());
    };
    let Some(root_node) = tree.node(root) else {
        return Ok(Frontmatter::default());
    };
    match &root_node.kind {
        NodeKind::Map(_) => {}
        _ if root_node.is_null() => return Ok(Frontmatter::default()),
        _ => {
            return Err(FrontmatterError::yaml(
                Some(root_node.at),
                format!("the frontmatter is {}", root_node.describe()),
                "write it as `key: value` lines, such as `name: my-skill` and \
                 `description: ...`",
            ))
        }
    }
    let mut expander = Expander::new(&tree);
    let mut frontmatter = Frontmatter::default();
    let mut seen: HashMap<Field, (String, Position)> = HashMap::new();
    for entry in expander.entries(root, 0)? {
        let Some(key) = tree.key_text(entry.key) else {
            continue;
        };
        let Some(field) = Field::of_key(key) else {
            continue;
        };
        let (Some(key_node), Some(value)) = (tree.node(entry.key), tree.resolve(entry.value))
        else {
            continue;
        };
        if !entry.merged {
            if let Some((first_key, first)) = seen.insert(field, (key.to_string(), key_node.at)) {
                let what = if first_key == key {
                    format!(
                        "`{key}` is set a second time (first on line {})",
                        first.line
                    )
                } else {
                    format!("`{key}` repeats `{first_key}` (set on line {})", first.line)
                };
                return Err(FrontmatterError::yaml(
                    Some(key_node.at),
                    what,
                    &format!("keep one `{key}:` line"),
                ));
            }
        }
        match field {
            Field::Name => frontmatter.name = text_field(key, value)?,
            Field::Description => frontmatter.description = text_field(key, value)?,
            Field::License => frontmatter.license = non_empty(text_field(key, value)?),
            Field::Compatibility => {
                frontmatter.compatibility = non_empty(text_field(key, value)?);
            }
            Field::AllowedTools => frontmatter.allowed_tools = allowed_tools(&tree, key, value)?,
            Field::Metadata => {
                frontmatter.metadata = metadata(&mut expander, key, entry.value, value)?;
            }
        }
    }
    Ok(frontmatter)
}

/// A text field: any scalar reads as its text (`name: 42` is `"42"`),
/// null is unset, a list or mapping is a shape error.
fn text_field(key: &str, value: &Node) -> Result<Option<String>, FrontmatterError> {
    match &value.kind {
        _ if value.is_null() => Ok(None),
        NodeKind::Scalar { text, .. } => Ok(Some(text.clone())),
        _ => Err(FrontmatterError::yaml(
            Some(value.at),
            format!("`{key}` must be text, but it is {}", value.describe()),
            &format!(
                "write `{key}:` followed by plain text on one line, and quote it if it starts \
                 with `[`, `{{` or another special character"
            ),
        )),
    }
}

fn non_empty(value: Option<String>) -> Option<String> {
    value
        .map(|value| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

/// `allowed-tools` is a string of tool names separated by spaces or
/// commas, or a list of such strings. Tool names are text: a number,
/// boolean, null, nested list or mapping is a shape error at its line.
fn allowed_tools(tree: &Tree, key: &str, value: &Node) -> Result<Vec<String>, FrontmatterError> {
    const FIX: &str = "list tool names as text, such as `allowed-tools: Read Grep` or one \
                       `- Bash(git status:*)` line per tool, and quote a name YAML would read \
                       as a number, boolean or null";
    let text_of = |node: &Node| match &node.kind {
        NodeKind::Scalar { text, .. } if matches!(scalar_json(node), Value::String(_)) => {
            Some(text.clone())
        }
        _ => None,
    };
    if value.is_null() {
        return Ok(Vec::new());
    }
    if let Some(text) = text_of(value) {
        return split_tools(&text, key, value.at);
    }
    let NodeKind::Seq(items) = &value.kind else {
        return Err(FrontmatterError::yaml(
            Some(value.at),
            format!("`{key}` must be tool names, but it is {}", value.describe()),
            FIX,
        ));
    };
    let mut tools = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let Some(item) = tree.resolve(*item) else {
            continue;
        };
        match text_of(item) {
            Some(text) => tools.extend(split_tools(&text, key, item.at)?),
            None => {
                return Err(FrontmatterError::yaml(
                    Some(item.at),
                    format!(
                        "item {} of `{key}` must be a tool name, but it is {}",
                        index + 1,
                        item.describe()
                    ),
                    FIX,
                ))
            }
        }
    }
    Ok(tools)
}

fn scalar_json(node: &Node) -> Value {
    match &node.kind {
        NodeKind::Scalar { text, plain, tag } => super::yaml::scalar_value(text, *plain, tag),
        _ => Value::Null,
    }
}

/// Splits tool names on whitespace and commas outside parentheses, so
/// Claude-style patterns such as `Bash(git commit:*)` stay whole.
fn split_tools(text: &str, key: &str, at: Position) -> Result<Vec<String>, FrontmatterError> {
    let mut tools = Vec::new();
    let mut current = String::new();
    let mut depth = 0_usize;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            _ if depth == 0 && (c.is_whitespace() || c == ',') => {
                if !current.is_empty() {
                    tools.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if depth > 0 {
        return Err(FrontmatterError::yaml(
            Some(at),
            format!("`{key}` has an unclosed `(` in `{}`", quoted(&current, 40)),
            "close the parenthesis, as in `Bash(git status:*)`",
        ));
    }
    if !current.is_empty() {
        tools.push(current);
    }
    Ok(tools)
}

/// `metadata` is a mapping, kept as JSON (aliases and `<<` merges
/// expanded within the limits of [`Expander`]).
fn metadata(
    expander: &mut Expander<'_>,
    key: &str,
    id: usize,
    value: &Node,
) -> Result<JsonMap, FrontmatterError> {
    match &value.kind {
        _ if value.is_null() => Ok(JsonMap::new()),
        NodeKind::Map(_) => match expander.json(id, 1, key)? {
            Value::Object(map) => Ok(map),
            _ => Ok(JsonMap::new()),
        },
        _ => Err(FrontmatterError::yaml(
            Some(value.at),
            format!("`{key}` must be a mapping, but it is {}", value.describe()),
            &format!(
                "write `{key}:` followed by indented `key: value` lines, such as `  author: ada`"
            ),
        )),
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
    fn indented_or_invisible_prefixed_fences_are_explained() {
        let found = |text: &str| match error(text) {
            FrontmatterError::Missing { found } => found,
            other => panic!("{other:?}"),
        };
        let indented = found("  ---\nname: a\n---\n");
        assert!(
            indented.contains("`  ---` is indented by 2 spaces"),
            "{indented}"
        );
        let hidden = found("\u{200b}---\nname: a\n---\n");
        assert!(hidden.contains("`<U+200B>---`"), "{hidden}");
        assert!(hidden.contains("invisible character U+200B"), "{hidden}");
        let control = found("a\u{7}b\n");
        assert_eq!(control, "the first line is `a<U+0007>b`");
    }

    #[test]
    fn unknown_keys_never_matter() {
        let parsed = parse(
            "---\nname: a\ndescription: b\ntimeout: .inf\nratio: 1e999\n\
             created: !!timestamp 2001-12-14\n~: nothing\n? [complex, key]\n: v\n\
             blob: !!binary '%%%'\ncustom: !thing {x: [1, 2]}\nloop: &l [*l]\n\
             dup: 1\ndup: 2\n---\n",
        );
        assert_eq!(parsed.frontmatter.name.as_deref(), Some("a"));
        assert_eq!(parsed.frontmatter.description.as_deref(), Some("b"));
    }

    #[test]
    fn metadata_keeps_text_json_cannot_hold() {
        let metadata = parse(
            "---\nmetadata:\n  when: !!timestamp 2001-12-14\n  big: 1e999\n  inf: .inf\n\
             \x20 zip: 007\n  ~: null key\n  tag: !custom v\n  n: 2\n  on: true\n---\n",
        )
        .frontmatter
        .metadata;
        assert_eq!(metadata["when"], "2001-12-14");
        assert_eq!(metadata["big"], "1e999");
        assert_eq!(metadata["inf"], ".inf");
        assert_eq!(metadata["zip"], "007");
        assert_eq!(metadata["~"], "null key");
        assert_eq!(metadata["tag"], "v");
        assert_eq!(metadata["n"], 2);
        assert_eq!(metadata["on"], true);
    }

    #[test]
    fn allowed_tools_split_outside_parentheses() {
        let tools = |value: &str| {
            parse(&format!("---\nallowed-tools: {value}\n---\n"))
                .frontmatter
                .allowed_tools
        };
        assert_eq!(
            tools("Bash(git commit:*) Read, Grep"),
            ["Bash(git commit:*)", "Read", "Grep"]
        );
        assert_eq!(
            tools("[\"Bash(git diff, git log)\", 'Read Grep']"),
            ["Bash(git diff, git log)", "Read", "Grep"]
        );
        assert_eq!(
            tools("\n  - Bash(npm run test:*)\n  - Edit"),
            ["Bash(npm run test:*)", "Edit"]
        );
        assert!(tools("").is_empty());
        for bad in [
            "7",
            "true",
            "[Read, [Bash]]",
            "[Read, ~]",
            "[Read, 7]",
            "{a: 1}",
            "Bash(git",
        ] {
            let content = format!("---\nallowed-tools: {bad}\n---\n");
            match error(&content) {
                FrontmatterError::Yaml { message, line, .. } => {
                    assert_eq!(line, Some(2), "{bad}: {message}");
                    assert!(message.contains("`allowed-tools`"), "{bad}: {message}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn duplicate_known_keys_are_errors_unless_merged() {
        match error("---\nallowed_tools: a\nallowed-tools: b\n---\n") {
            FrontmatterError::Yaml { message, line, .. } => {
                assert_eq!(line, Some(3));
                assert!(message.contains("repeats `allowed_tools`"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let merged = parse("---\nx-base: &b {license: MIT, name: base}\n<<: *b\nname: a\n---\n");
        assert_eq!(merged.frontmatter.name.as_deref(), Some("a"));
        assert_eq!(merged.frontmatter.license.as_deref(), Some("MIT"));
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
