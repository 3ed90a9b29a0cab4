//! `toolsets:` to runtime toolsets: each entry becomes a named static toolset (bundle tools or
//! code tools, with its instructions, timeout and retries), then is gated for approval and
//! prefixed as declared; an `mcp` entry becomes the MCP client's toolset, which prefixes and
//! gates its own tools. Toolsets a `proxy`, `search` or `deferred` entry names are reachable
//! only through it.
//! Every entry's [`ToolsetSummary`] is recorded from the toolsets as built, so what a host
//! shows is what the agent has.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use starweaver_core::bundles::{filesystem_tools, shell_tools, user_input_tools};
use starweaver_core::model::ToolDefinition;
use starweaver_core::tools::{DynTool, DynToolset, ToolInstruction};
use starweaver_core::toolsets::{
    ApprovalRequiredToolset, DeferredToolset, PrefixedToolset, StaticToolset, ToolProxyToolset,
    ToolSearchToolset,
};

use super::summary::{hide, keep_own, kind_of, summarize, Reach, ToolSummary, ToolsetSummary};
use super::{LoadError, LoadOptions, ToolResolver};
use crate::manifest::{ApprovalRequired, DeferredToolsetSpec, ToolsetSpec};

/// The filesystem tools a `read_only: true` toolset keeps.
pub const READ_ONLY_FILESYSTEM_TOOLS: [&str; 4] = ["ls", "read_file", "glob", "grep"];

/// The toolsets the agent exposes, and tools a search toolset loads from the start.
pub(super) struct Built {
    /// In manifest order, without the toolsets hidden behind a proxy or search.
    pub exposed: Vec<DynToolset>,
    /// `preload` of every search toolset.
    pub preload: Vec<String>,
    /// Every entry, in manifest order, as built.
    pub summaries: Vec<ToolsetSummary>,
    /// The definitions of the tools behind every proxy, as its `search_tools` describes them.
    pub proxied: Vec<ToolDefinition>,
}

/// The settings every entry carries.
struct Common<'a> {
    instructions: Option<&'a str>,
    timeout_ms: Option<u64>,
    max_retries: Option<u32>,
    prefix: Option<&'a str>,
    approval: &'a ApprovalRequired,
}

macro_rules! common {
    ($spec:expr) => {
        Common {
            instructions: $spec.instructions.as_deref(),
            timeout_ms: $spec.timeout_ms,
            max_retries: $spec.max_retries,
            prefix: $spec.prefix.as_deref(),
            approval: &$spec.approval_required,
        }
    };
}

/// The settings of a proxy or search entry, which has no tools of its own to time or retry.
macro_rules! wrapper {
    ($spec:expr) => {
        Common {
            instructions: None,
            timeout_ms: None,
            max_retries: None,
            prefix: $spec.prefix.as_deref(),
            approval: &$spec.approval_required,
        }
    };
}

/// Builds every toolset, in the manifest's folder `base_dir` (where `mcp` servers run by
/// default).
/// `sub_agents` holds the tool of each sub-agent, by (index in `specs`, index in its
/// `agents:`).
pub(super) fn build(
    specs: &[ToolsetSpec],
    options: &LoadOptions,
    base_dir: &Path,
    sub_agents: &BTreeMap<(usize, usize), DynTool>,
) -> Result<Built, LoadError> {
    let mut named: BTreeMap<String, DynToolset> = BTreeMap::new();
    let mut order: Vec<(String, Option<DynToolset>)> = Vec::new();
    let mut summaries = Vec::new();
    for (index, spec) in specs.iter().enumerate() {
        let field = field_of(index);
        let own = Own {
            field: &field,
            options,
            base_dir,
            sub_agents: sub_agents
                .range((index, 0)..(index + 1, 0))
                .map(|(_, tool)| tool.clone())
                .collect(),
        };
        let (name, built, tools) = match plain(spec, own)? {
            Some((name, (toolset, tools))) => (name, Some(toolset), tools),
            None => (wrapper_name(spec).to_string(), None, Vec::new()),
        };
        summaries.push(ToolsetSummary {
            name: name.clone(),
            kind: kind_of(spec),
            reach: Reach::Direct,
            tools,
            wraps: Vec::new(),
        });
        if let Some(toolset) = &built {
            named.insert(name.clone(), toolset.clone());
        }
        order.push((name, built));
    }
    let mut hidden = BTreeSet::new();
    let mut preload = Vec::new();
    let mut wrappers: BTreeMap<String, DynToolset> = BTreeMap::new();
    let mut proxied = Vec::new();
    for (index, spec) in specs.iter().enumerate() {
        let (name, names, common) = match spec {
            ToolsetSpec::Proxy(p) => (&p.name, &p.toolsets, wrapper!(p)),
            ToolsetSpec::Search(s) => (&s.name, &s.toolsets, wrapper!(s)),
            ToolsetSpec::Deferred(d) if !d.toolsets.is_empty() => {
                (&d.name, &d.toolsets, common!(d))
            }
            _ => continue,
        };
        let mut inner = Vec::new();
        // The checker refuses a name no toolset with tools of its own has.
        for wrapped in names {
            let Some(toolset) = named.get(wrapped) else {
                continue;
            };
            hidden.insert(wrapped.clone());
            inner.push(toolset.clone());
            hide(&mut summaries, wrapped, spec, common.prefix);
        }
        let toolset: DynToolset = if let ToolsetSpec::Search(search) = spec {
            // The checker refuses a `preload` name no searched toolset offers.
            preload.extend(search.preload.iter().cloned());
            Arc::new(ToolSearchToolset::new(name.clone(), inner))
        } else if let ToolsetSpec::Deferred(deferred) = spec {
            Arc::new(deferred_set(deferred, &field_of(index), options, inner)?)
        } else {
            proxied.extend(
                inner
                    .iter()
                    .flat_map(|t| t.get_tools())
                    .map(|t| t.definition()),
            );
            Arc::new(ToolProxyToolset::new(name.clone(), inner))
        };
        let (toolset, mut tools) = wrap(toolset, &common);
        if matches!(spec, ToolsetSpec::Search(_)) {
            keep_own(&toolset, &mut tools);
        }
        if let ToolsetSpec::Deferred(deferred) = spec {
            // The wrapped toolsets' tools are listed under their own entries, marked deferred.
            tools.retain(|tool| deferred.tools.contains(&tool.base));
        }
        if let Some(summary) = summaries.get_mut(index) {
            summary.tools = tools;
            summary.wraps.clone_from(names);
        }
        wrappers.insert(name.clone(), toolset);
    }
    let exposed = order
        .into_iter()
        .filter(|(name, _)| !hidden.contains(name))
        .filter_map(|(name, built)| built.or_else(|| wrappers.get(&name).cloned()))
        .collect();
    Ok(Built {
        exposed,
        preload,
        summaries,
        proxied,
    })
}

/// The name of a proxy, search or toolset-naming deferred entry (`build` assembles these
/// after the toolsets they wrap).
fn wrapper_name(spec: &ToolsetSpec) -> &str {
    match spec {
        ToolsetSpec::Proxy(proxy) => &proxy.name,
        ToolsetSpec::Search(search) => &search.name,
        ToolsetSpec::Deferred(deferred) => &deferred.name,
        _ => "",
    }
}

/// The field path of entry `index`, for load errors.
fn field_of(index: usize) -> String {
    format!("toolsets[{index}]")
}

/// A deferred set: its own `tools:` and every tool of the toolsets `wrapped` (those its
/// `toolsets:` names, as built).
fn deferred_set(
    spec: &DeferredToolsetSpec,
    field: &str,
    options: &LoadOptions,
    wrapped: Vec<DynToolset>,
) -> Result<DeferredToolset, LoadError> {
    let set = resolve_deferred(&spec.tools, field, &options.tools)?
        .into_iter()
        .fold(
            DeferredToolset::new(spec.name.clone()),
            DeferredToolset::with_tool,
        );
    Ok(wrapped.into_iter().fold(set, DeferredToolset::with_toolset))
}

/// What building one entry's own tools takes besides the entry.
struct Own<'a> {
    /// The entry's field path, for load errors.
    field: &'a str,
    options: &'a LoadOptions,
    /// The manifest's folder.
    base_dir: &'a Path,
    /// An `agents` entry's sub-agent tools, in its order.
    sub_agents: Vec<DynTool>,
}

/// A toolset with tools of its own, already gated and prefixed, and its name; `None` for a
/// proxy or search, which has none.
fn plain(spec: &ToolsetSpec, own: Own<'_>) -> Result<Option<(String, Wrapped)>, LoadError> {
    let Own {
        field,
        options,
        base_dir,
        sub_agents,
    } = own;
    let resolve = &options.tools;
    let (name, tools, instructions, common) = match spec {
        ToolsetSpec::Tools(t) => (
            t.name.clone(),
            resolve_all(&t.tools, field, resolve)?,
            Vec::new(),
            common!(t),
        ),
        ToolsetSpec::Filesystem(f) => {
            // The checker refuses a tool that changes files in a read-only toolset.
            let choice = match (&f.tools, f.read_only) {
                (tools, false) => tools.clone(),
                (Some(tools), true) => Some(tools.clone()),
                (None, true) => Some(READ_ONLY_FILESYSTEM_TOOLS.map(str::to_string).to_vec()),
            };
            let bundle = filesystem_tools();
            (
                f.name.clone().unwrap_or_else(|| bundle.name().to_string()),
                choose(&bundle, choice.as_deref()),
                bundle.get_instructions(),
                common!(f),
            )
        }
        ToolsetSpec::Shell(b) | ToolsetSpec::UserInput(b) => {
            let bundle = if matches!(spec, ToolsetSpec::Shell(_)) {
                shell_tools()
            } else {
                user_input_tools()
            };
            (
                b.name.clone().unwrap_or_else(|| bundle.name().to_string()),
                choose(&bundle, b.tools.as_deref()),
                bundle.get_instructions(),
                common!(b),
            )
        }
        // One that names toolsets is built with them, after them.
        ToolsetSpec::Deferred(d) if !d.toolsets.is_empty() => return Ok(None),
        ToolsetSpec::Deferred(d) => {
            let deferred = deferred_set(d, field, options, Vec::new())?;
            (
                d.name.clone(),
                starweaver_core::tools::Toolset::get_tools(&deferred),
                Vec::new(),
                common!(d),
            )
        }
        ToolsetSpec::Mcp(server) => {
            // The client maps, prefixes and gates its tools itself.
            let toolset = (options.mcp)(server, base_dir)?;
            let tools = summarize(&toolset, &toolset);
            return Ok(Some((server.name.clone(), (toolset, tools))));
        }
        ToolsetSpec::Agents(agents) => {
            (
                agents.name.clone(),
                sub_agents,
                Vec::new(),
                // A sub-agent's call is never retried: there is no `max_retries`.
                Common {
                    instructions: agents.instructions.as_deref(),
                    timeout_ms: agents.timeout_ms,
                    max_retries: None,
                    prefix: agents.prefix.as_deref(),
                    approval: &agents.approval_required,
                },
            )
        }
        ToolsetSpec::Proxy(_) | ToolsetSpec::Search(_) => return Ok(None),
    };
    let mut toolset = StaticToolset::new(name.clone()).with_tools(tools);
    for instruction in instructions {
        toolset = toolset.with_instruction(instruction);
    }
    if let Some(text) = common.instructions {
        toolset = toolset.with_instruction(ToolInstruction::new(name.clone(), text));
    }
    if let Some(ms) = common.timeout_ms {
        toolset = toolset.with_timeout_ms(ms);
    }
    if let Some(retries) = common.max_retries {
        toolset = toolset.with_max_retries(retries);
    }
    let wrapped = wrap(Arc::new(toolset), &common);
    Ok(Some((name, wrapped)))
}

/// A toolset as exposed, with the summary of its tools.
type Wrapped = (DynToolset, Vec<ToolSummary>);

/// Approval gate first (it names tools as the toolset knows them), then the prefix. The checker
/// refuses an `approval_required` name that is not a tool of the toolset.
fn wrap(toolset: DynToolset, common: &Common<'_>) -> Wrapped {
    let gated: DynToolset = match common.approval {
        ApprovalRequired::All(false) => toolset,
        ApprovalRequired::Tools(names) if names.is_empty() => toolset,
        ApprovalRequired::All(true) => Arc::new(ApprovalRequiredToolset::new(toolset)),
        ApprovalRequired::Tools(names) => {
            let own = names_of(&toolset);
            let names = names
                .iter()
                .map(|name| unprefixed(name, common.prefix, &own));
            Arc::new(ApprovalRequiredToolset::new(toolset).with_tools(names))
        }
    };
    let exposed: DynToolset = match common.prefix {
        Some(prefix) => Arc::new(PrefixedToolset::new(prefix, gated.clone())),
        None => gated.clone(),
    };
    let tools = summarize(&gated, &exposed);
    (exposed, tools)
}

/// A tool named in `approval_required` as the toolset knows it: the name as written, or, for a
/// name written with the toolset's prefix (as the model sees it), the name without it.
fn unprefixed(name: &str, prefix: Option<&str>, own: &BTreeSet<String>) -> String {
    if own.contains(name) {
        return name.to_string();
    }
    prefix
        .and_then(|prefix| name.strip_prefix(prefix))
        .and_then(|rest| rest.strip_prefix('_'))
        .filter(|rest| own.contains(*rest))
        .unwrap_or(name)
        .to_string()
}

/// The bundle's tools `choice` names (all when `None`), in the bundle's order. The checker
/// refuses a name the bundle does not have.
fn choose(bundle: &DynToolset, choice: Option<&[String]>) -> Vec<DynTool> {
    let tools = bundle.get_tools();
    let Some(choice) = choice else {
        return tools;
    };
    tools
        .into_iter()
        .filter(|tool| choice.iter().any(|name| name == tool.name()))
        .collect()
}

/// Code tools by name, through the host's resolver.
fn resolve_all(
    names: &[String],
    field: &str,
    resolve: &ToolResolver,
) -> Result<Vec<DynTool>, LoadError> {
    names
        .iter()
        .map(|name| resolve(name).ok_or_else(|| unknown_code_tool(name, field)))
        .collect()
}

/// A code tool the host's resolver lacks: the check ran against another catalog, or none.
fn unknown_code_tool(name: &str, field: &str) -> LoadError {
    LoadError::ToolNotResolved {
        field: format!("{field}.tools"),
        tool: name.to_string(),
    }
}

/// A deferred set's tools: first-party bundle tools by their names (only their definitions
/// are used, so they need no environment), then code tools through the host's resolver.
fn resolve_deferred(
    names: &[String],
    field: &str,
    resolve: &ToolResolver,
) -> Result<Vec<DynTool>, LoadError> {
    names
        .iter()
        .map(|name| match first_party_tool(name) {
            Some(tool) => Ok(tool),
            None => resolve(name).ok_or_else(|| unknown_code_tool(name, field)),
        })
        .collect()
}

/// The first-party bundle tool (filesystem, shell or user input) named `name`, if any: the
/// loader's own lookup, public so a host that explains an agent (`check --explain`) counts
/// exactly the tools the loader would find as first-party.
#[must_use]
pub fn first_party_tool(name: &str) -> Option<DynTool> {
    [filesystem_tools(), shell_tools(), user_input_tools()]
        .iter()
        .flat_map(|bundle| bundle.get_tools())
        .find(|tool| tool.name() == name)
}

fn names_of(toolset: &DynToolset) -> BTreeSet<String> {
    toolset
        .get_tools()
        .iter()
        .map(|tool| tool.name().to_string())
        .collect()
}
