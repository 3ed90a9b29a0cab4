//! The manifest reference (`docs/manifest.md`), generated from the manifest's JSON Schema, which
//! is itself generated from the types in [`crate::manifest`]: a field, its doc comment, its
//! default or its example cannot change in one place and not the other. The prose around the
//! tables is `template.md` beside this file; the full example is `example.yaml`.

mod cells;
mod walk;

use starweaver_core::bundles::{filesystem_tools, shell_tools, user_input_tools};

use crate::check::manifest_schema;
use crate::diagnostics::Rule;
use crate::load::READ_ONLY_FILESYSTEM_TOOLS;
use cells::cell;
use walk::{sections, Section};

/// The hand-written parts, with `<!-- example -->`, `<!-- fields -->` and `<!-- rules -->`
/// where the generated parts go.
const TEMPLATE: &str = include_str!("template.md");

/// The full example manifest the reference shows, every section filled in.
pub const FULL_EXAMPLE: &str = include_str!("example.yaml");

/// The reference as markdown: the template's prose, the full example, one table per section of
/// the schema and the list of check rules.
#[must_use]
pub fn markdown() -> String {
    TEMPLATE
        .replace("<!-- example -->\n", FULL_EXAMPLE)
        .replace("<!-- fields -->\n", &fields())
        .replace("<!-- rules -->\n", &rules())
}

/// Every section's heading and table, in schema order.
fn fields() -> String {
    let schema = manifest_schema(None);
    let mut out = String::new();
    let mut in_variants = None;
    for section in sections(&schema) {
        match &section.variant {
            Some(variant) => {
                if in_variants.as_deref() != Some(section.path.as_str()) {
                    out.push_str(&variants_heading(&schema, &section.path));
                    in_variants = Some(section.path.clone());
                }
                out.push_str(&format!("#### `type: {variant}`\n\n"));
            }
            None => {
                in_variants = None;
                let heading = if section.path.is_empty() {
                    "Top level".to_string()
                } else {
                    format!("`{}`", section.path)
                };
                out.push_str(&format!("### {heading}\n\n"));
            }
        }
        if !section.intro.is_empty() {
            out.push_str(&section.intro);
            out.push_str("\n\n");
        }
        if let Some(tools) = section.variant.as_deref().and_then(bundle_tools) {
            out.push_str(&tools);
            out.push_str("\n\n");
        }
        out.push_str(&table(&section));
    }
    out
}

/// The heading of a list of tagged entries, with a table of its `type` values.
fn variants_heading(schema: &serde_json::Value, path: &str) -> String {
    let mut out = format!(
        "### `{path}`\n\nEach entry is told apart by its `type`; the other fields depend on it.\n\n| `type` | What it is |\n| --- | --- |\n"
    );
    for section in sections(schema)
        .iter()
        .filter(|section| section.path == path)
    {
        if let Some(variant) = &section.variant {
            out.push_str(&format!("| `{variant}` | {} |\n", cell(&section.intro)));
        }
    }
    out.push('\n');
    out
}

/// The tools a first-party bundle entry offers, read from the bundles themselves.
fn bundle_tools(variant: &str) -> Option<String> {
    let bundle = match variant {
        "filesystem" => filesystem_tools(),
        "shell" => shell_tools(),
        "user_input" => user_input_tools(),
        _ => return None,
    };
    let names: Vec<String> = bundle
        .get_tools()
        .iter()
        .map(|tool| format!("`{}`", tool.name()))
        .collect();
    let mut text = format!("The bundle's tools: {}.", names.join(", "));
    if variant == "filesystem" {
        let kept: Vec<String> = READ_ONLY_FILESYSTEM_TOOLS
            .iter()
            .map(|name| format!("`{name}`"))
            .collect();
        text.push_str(&format!(" With `read_only: true`: {}.", kept.join(", ")));
    }
    Some(text)
}

fn table(section: &Section) -> String {
    let mut out = String::from(
        "| Field | Type | Default | Example | Description |\n| --- | --- | --- | --- | --- |\n",
    );
    for field in &section.fields {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            field.name,
            cell(&field.kind),
            cell(&field.default),
            cell(field.example.as_deref().unwrap_or("")),
            cell(&field.description),
        ));
    }
    out.push('\n');
    out
}

/// The check rules, by stable name.
fn rules() -> String {
    let mut out = String::from("| Rule | Reported when |\n| --- | --- |\n");
    for rule in Rule::ALL {
        out.push_str(&format!(
            "| `{}` | {} |\n",
            rule.as_str(),
            rule_summary(rule)
        ));
    }
    out
}

/// What each rule reports, in a manifest author's words. A new rule does not compile until it
/// is described here.
fn rule_summary(rule: Rule) -> &'static str {
    match rule {
        Rule::Syntax => "the file is not valid UTF-8 YAML, or breaks a reading limit (size, nesting depth, alias expansion)",
        Rule::UnknownField => "a key the format does not have at that place (with a did-you-mean)",
        Rule::MissingField => "a required key is absent (`version`, `name`, `model.id`, or a toolset's `name`, `tools`, `toolsets`; an `mcp` toolset's `command` or `url`)",
        Rule::InvalidValue => "a value has the wrong type or is not one of the allowed values (which the message lists), or a setting that cannot apply where it is (`root` or `shell.sandbox` in a virtual environment; an `mcp` toolset with both `command` and `url`, a `url` that is not `http(s)`, a local server's settings on an HTTP one or the reverse, a `cwd` that is not a folder)",
        Rule::UnsupportedVersion => "`version` is not `1`",
        Rule::DuplicateName => "two toolsets share a name, or two tools would reach the model under one name (after prefixes, through proxies and search; an MCP server's names as the client maps them, where its `tools:` lists them), or a tool would have the name of the `final_answer` tool `output:` adds",
        Rule::UnknownTool => "a tool name that the catalog, the bundle or the toolset does not have (with a did-you-mean)",
        Rule::UnknownToolset => "a proxy or search names a toolset that no entry declares",
        Rule::UnknownModel => "`model.id` names no known provider (`test`, `openai:<model>`, `anthropic:<model>`), or a provider this build was made without",
        Rule::Template => "the instructions template does not parse (reported at its line)",
        Rule::UndefinedVariable => "the instructions use a variable that `vars` does not declare",
        Rule::ShellPolicy => "a program name with a space, slash or shell metacharacter; a shell toolset while execution is off; any program allowed (a warning)",
        Rule::SandboxOff => "`sandbox.mode: off` (the shell's, or an MCP server's): commands run without a kernel sandbox, so they can write anywhere the user can and use the network (a warning)",
        Rule::ShellCanWrite => "a filesystem toolset with `read_only: true` beside a shell whose sandbox lets commands change files (`workspace-write`, the default, or `off`) (a warning)",
        Rule::SkillScope => "a skill scope folder is missing or holds a malformed `SKILL.md`",
        Rule::PathEscape => "a skill scope, the `script` model's file, `output.schema_file` or a sub-agent's `path` leaves the manifest's folder, or a `shell.sandbox.writable` folder leaves the environment root, or an MCP server's `sandbox.writable` folder leaves its `cwd`",
        Rule::MissingFile => "a file the manifest names does not exist or cannot be read: `output.schema_file`, a sub-agent's `path`",
        Rule::MissingApiKey => "the variable that should hold the model's API key (`model.api_key_env`, or the provider's usual one) is not set where `check` runs (a warning: the run would fail)",
        Rule::SchemaCompat => "a tool's argument schema (or the `output` schema, as the `final_answer` tool's) cannot be sent to the `model.id` provider (an error: the run would leave the tool out), or loses meaning under OpenAI strict mode (a warning listing each loss)",
        Rule::LiteralSecret => "a value written into the manifest looks like a secret: an MCP server's `env` value (by the variable's name or the value's shape) or a password in its `url` (a warning: pass it from the host with `env_from` or `headers_from_env`)",
        Rule::AgentCycle => "a sub-agent that reaches itself through its own sub-agents (`a.yaml` -> `b.yaml` -> `a.yaml`); the message names the chain",
        Rule::AgentDepth => "a tree of sub-agents deeper than an `agents` toolset's `max_depth` allows (default 2; a sub-agent's own `max_depth` can only narrow the limit, counted from the manifest that sets it)",
        Rule::AgentInvalid => "a sub-agent's manifest has errors (each reported in that file, at its own lines), so this manifest cannot load either",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_has_an_example_and_says_what_unset_means() {
        let schema = manifest_schema(None);
        let mut problems = Vec::new();
        for section in sections(&schema) {
            for field in &section.fields {
                let place = format!("{}.{}", section.path, field.name);
                if field.example.is_none() {
                    problems.push(format!(
                        "`{place}` has no example (#[schemars(example = ...)])"
                    ));
                }
                if field.description.is_empty() {
                    problems.push(format!("`{place}` has no doc comment"));
                }
                let says = ["Unset", "unset", "Reserved"]
                    .iter()
                    .any(|word| field.description.contains(word));
                if field.optional_without_default && !says {
                    problems.push(format!("`{place}` does not say what leaving it out means"));
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn the_reference_covers_every_section_and_toolset_type() {
        let text = markdown();
        for heading in [
            "### Top level",
            "### `model`",
            "### `environment`",
            "### `shell`",
            "### `toolsets[]`",
            "#### `type: search`",
            "### `skills.scopes[]`",
            "### `runtime`",
            "`shell_exec`",
            "`unknown-tool`",
        ] {
            assert!(text.contains(heading), "missing {heading}");
        }
        assert!(!text.contains("<!-- fields -->"));
        assert!(!text.contains("<!-- example -->"));
    }
}
