//! The toolset entries as the semantic rules see them: name, type and the tool names each one
//! exposes, read leniently from the tree.

use crate::yaml::{Node, Span};

/// The filesystem bundle's tools.
pub(super) const FILESYSTEM: [&str; 6] =
    ["ls", "read_file", "write_file", "edit_file", "glob", "grep"];
/// The filesystem tools a read-only entry keeps.
const FILESYSTEM_READ_ONLY: [&str; 4] = ["ls", "read_file", "glob", "grep"];
/// The shell bundle's tools.
pub(super) const SHELL: [&str; 6] = [
    "shell_exec",
    "shell_wait",
    "shell_status",
    "shell_input",
    "shell_signal",
    "shell_kill",
];
/// The clarifying-question bundle's tool.
pub(super) const USER_INPUT: [&str; 1] = ["ask_user_question"];
/// What a proxy exposes.
const PROXY: [&str; 2] = ["search_tools", "call_tool"];
/// What a search toolset exposes.
const SEARCH: [&str; 1] = ["tool_search"];

/// A name as written (or defaulted) and where to point at it.
#[derive(Clone, Debug)]
pub(super) struct Named<'a> {
    pub text: &'a str,
    pub span: Span,
}

/// One toolset entry.
#[derive(Debug)]
pub(super) struct Entry<'a> {
    /// The entry's mapping.
    pub node: &'a Node,
    /// `type:` as written.
    pub kind: &'a str,
    /// Where `type:`'s value is, the place for problems of the entry as a whole.
    pub kind_span: Span,
    /// The explicit or default name; `None` when a required name is absent.
    pub name: Option<Named<'a>>,
    /// `prefix:`, when a string.
    pub prefix: Option<&'a str>,
    /// For an `agents` entry, the tool of each sub-agent: its `tool:`, or the sub-agent
    /// manifest's `name` (at the `path:`) when its file was read; empty for other entries.
    pub agent_tools: Vec<Named<'a>>,
}

impl<'a> Entry<'a> {
    /// The name proxies list the entry by: its name, or its `type:` when it has none.
    pub fn owner(&self) -> &'a str {
        self.name.as_ref().map_or(self.kind, |name| name.text)
    }

    /// The tools a bundle offers, whatever `tools:` chooses; `None` for code-tool entries.
    pub fn bundle_tools(&self) -> Option<&'static [&'static str]> {
        Some(match self.kind {
            "filesystem" => {
                let read_only = matches!(
                    self.node.get("read_only").map(|n| &n.value),
                    Some(crate::yaml::Value::Bool(true))
                );
                if read_only {
                    &FILESYSTEM_READ_ONLY
                } else {
                    &FILESYSTEM
                }
            }
            "shell" => &SHELL,
            "user_input" => &USER_INPUT,
            "proxy" => &PROXY,
            "search" => &SEARCH,
            _ => return None,
        })
    }

    /// Whether the entry names other toolsets in `toolsets:`: a proxy and a search hold them,
    /// a deferred set hands their calls to a worker.
    pub fn wraps_toolsets(&self) -> bool {
        matches!(self.kind, "proxy" | "search" | "deferred")
    }

    /// Whether the entry is an MCP server's, whose tools are the server's to list.
    pub fn is_mcp(&self) -> bool {
        self.kind == "mcp"
    }

    /// Whether every tool the entry exposes is known without running anything: false for an
    /// `mcp` entry without a `tools:` list (its server lists them when it starts). An `agents`
    /// entry's are known when every sub-agent's tool name is (given, or its file
    /// read).
    pub fn tools_are_known(&self) -> bool {
        if self.is_agents() {
            let listed = self
                .node
                .get("agents")
                .and_then(Node::as_sequence)
                .map_or(0, <[Node]>::len);
            return self.agent_tools.len() == listed;
        }
        !self.is_mcp() || self.node.get("tools").and_then(Node::as_sequence).is_some()
    }

    /// Whether the entry's tools are sub-agents (`type: agents`).
    pub fn is_agents(&self) -> bool {
        self.kind == "agents"
    }

    /// Whether `tools:` lists code tools (from the catalog).
    pub fn has_code_tools(&self) -> bool {
        matches!(self.kind, "tools" | "deferred")
    }

    /// The string items of `tools:` with their places.
    pub fn listed_tools(&self) -> Vec<Named<'a>> {
        strings(self.node.get("tools"))
    }

    /// The tools the entry exposes before any prefix, each with the place that names it (the
    /// `tools:` item, or `type:` for a whole bundle). For an `mcp` entry, only the ones its
    /// `tools:` lists (none without one: see [`Self::tools_are_known`]).
    pub fn tools(&self) -> Vec<Named<'a>> {
        if self.is_agents() {
            return self.agent_tools.clone();
        }
        let listed = self.node.get("tools").and_then(Node::as_sequence).is_some();
        match self.bundle_tools() {
            Some(all) if !listed || matches!(self.kind, "proxy" | "search") => all
                .iter()
                .map(|text| Named {
                    text,
                    span: self.kind_span,
                })
                .collect(),
            Some(all) => self
                .listed_tools()
                .into_iter()
                .filter(|tool| all.contains(&tool.text))
                .collect(),
            None => self.listed_tools(),
        }
    }

    /// A tool's final name after `prefix:` (for an MCP server's tool, mapped to the provider
    /// rule the way the client maps it).
    pub fn final_name(&self, tool: &str) -> String {
        if self.is_mcp() {
            return starweaver_names::map_tool_name(self.prefix, tool);
        }
        match self.prefix {
            Some(prefix) => format!("{prefix}_{tool}"),
            None => tool.to_owned(),
        }
    }
}

/// The string items of a sequence, skipping anything else.
/// The entries whose tools the model calls by name, with their index: every entry but those
/// behind a proxy, whose tools are reached through its `call_tool`.
pub(super) fn called_by_name<'e, 'a>(
    entries: &'e [Entry<'a>],
) -> impl Iterator<Item = (usize, &'e Entry<'a>)> {
    let proxied: std::collections::BTreeSet<&str> = entries
        .iter()
        .filter(|entry| entry.kind == "proxy")
        .flat_map(|entry| strings(entry.node.get("toolsets")))
        .map(|name| name.text)
        .collect();
    entries
        .iter()
        .enumerate()
        .filter(move |(_, entry)| !proxied.contains(entry.owner()))
}

pub(super) fn strings(node: Option<&Node>) -> Vec<Named<'_>> {
    node.and_then(Node::as_sequence)
        .unwrap_or_default()
        .iter()
        .filter_map(|item| {
            item.as_str().map(|text| Named {
                text,
                span: item.span,
            })
        })
        .collect()
}

/// Every toolset entry that is a mapping with a string `type`; `agents` gives the default tool
/// name of each sub-agent whose manifest was read, by its place.
pub(super) fn entries<'a>(
    root: &'a Node,
    agents: &'a std::collections::BTreeMap<super::agents::Place, String>,
) -> Vec<Entry<'a>> {
    let items = root
        .get("toolsets")
        .and_then(Node::as_sequence)
        .unwrap_or_default();
    items
        .iter()
        .enumerate()
        .filter_map(|(index, node)| {
            let kind_node = node.get("type")?;
            let kind = kind_node.as_str()?;
            let default = match kind {
                "filesystem" => Some("filesystem"),
                "shell" => Some("shell"),
                "user_input" => Some("user_input"),
                _ => None,
            };
            // `name: null` is the default name, as when `name:` is absent.
            let given = node
                .get("name")
                .filter(|name| !matches!(name.value, crate::yaml::Value::Null));
            let name = match given {
                Some(name) => name.as_str().map(|text| Named {
                    text,
                    span: name.span,
                }),
                None => default.map(|text| Named {
                    text,
                    span: kind_node.span,
                }),
            };
            Some(Entry {
                node,
                kind,
                kind_span: kind_node.span,
                name,
                prefix: node.get("prefix").and_then(Node::as_str),
                agent_tools: if kind == "agents" {
                    agent_tools(node, index, agents)
                } else {
                    Vec::new()
                },
            })
        })
        .collect()
}

/// The tool of each sub-agent of the `agents` entry `node` (entry `index` of `toolsets:`): its
/// `tool:` where it is a string, else the sub-agent manifest's name at its `path:`; a sub-agent
/// with neither (its file not read) is left out.
fn agent_tools<'a>(
    node: &'a Node,
    index: usize,
    agents: &'a std::collections::BTreeMap<super::agents::Place, String>,
) -> Vec<Named<'a>> {
    let items = node
        .get("agents")
        .and_then(Node::as_sequence)
        .unwrap_or_default();
    items
        .iter()
        .enumerate()
        .filter_map(|(at, item)| {
            let given = item
                .get("tool")
                .filter(|tool| !matches!(tool.value, crate::yaml::Value::Null));
            match given {
                Some(tool) => tool.as_str().map(|text| Named {
                    text,
                    span: tool.span,
                }),
                None => {
                    let span = item.get("path").map_or(item.span, |path| path.span);
                    agents.get(&(index, at)).map(|text| Named {
                        text: text.as_str(),
                        span,
                    })
                }
            }
        })
        .collect()
}

/// A proxy's, search's or deferred set's `toolsets:` item that names no toolset of the
/// manifest.
#[derive(Debug)]
pub(super) struct Reference<'a> {
    /// `proxy`, `search` or `deferred`.
    pub wrapper_kind: &'a str,
    /// The proxy's or search's name (its type when it has none).
    pub wrapper: &'a str,
    /// The name it gives.
    pub target: Named<'a>,
}

/// Every proxy's and search's `toolsets:` item that no entry is named (a proxy or search
/// naming itself included), in manifest order.
pub(super) fn unresolved_references<'a>(entries: &[Entry<'a>]) -> Vec<Reference<'a>> {
    let declared: std::collections::HashSet<&str> = entries
        .iter()
        .filter_map(|entry| entry.name.as_ref().map(|name| name.text))
        .collect();
    entries
        .iter()
        .filter(|entry| entry.wraps_toolsets())
        .flat_map(|entry| {
            let own = entry.name.as_ref().map(|name| name.text);
            let declared = &declared;
            strings(entry.node.get("toolsets"))
                .into_iter()
                .filter(move |target| Some(target.text) == own || !declared.contains(target.text))
                .map(move |target| Reference {
                    wrapper_kind: entry.kind,
                    wrapper: own.unwrap_or(entry.kind),
                    target,
                })
        })
        .collect()
}

/// Which references to names no toolset has are reported as notes of the manifest's repeated
/// toolset name rather than as errors of their own: those in a manifest that repeats a name
/// (the repeated toolset is most likely the one meant to have the name) that are no typo of a
/// declared name (which would be a mistake of its own). Built once per manifest.
pub(super) struct Folding<'a> {
    names: Vec<&'a str>,
    repeats: bool,
}

impl<'a> Folding<'a> {
    /// The names `entries` declare, and whether one repeats.
    pub fn new(entries: &[Entry<'a>]) -> Self {
        let names: Vec<&str> = entries
            .iter()
            .filter_map(|entry| entry.name.as_ref().map(|name| name.text))
            .collect();
        let mut seen = std::collections::HashSet::new();
        let repeats = names.iter().any(|name| !seen.insert(*name));
        Self { names, repeats }
    }

    /// Whether a reference to `target` is folded into the `duplicate-name` diagnostic.
    pub fn folds(&self, target: &str) -> bool {
        self.repeats
            && !self.names.contains(&target)
            && crate::validate::suggest::closest(target, &self.names).is_none()
    }
}
