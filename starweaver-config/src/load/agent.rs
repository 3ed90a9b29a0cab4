//! `load`: a checked manifest to an agent and a session ready to run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use starweaver_core::agent::{
    Agent, AgentBuilder, AgentRuntimePolicy, AgentSession, OutputSpec, DEFAULT_OUTPUT_RETRIES,
};
use starweaver_core::model::ToolDefinition;
use starweaver_core::skills::{skill_tools, SkillRegistry, SkillScanReport, SkillSourceScope};
use starweaver_core::tools::{DynTool, ToolRegistry};
use starweaver_core::BoxFuture;

use super::environment::{attach, Attached};
use super::instructions::render;
use super::model::{model, settings};
use super::runtime::runtime;
use super::sub_agent;
use super::toolsets::build;
use super::{LoadError, LoadOptions, ToolsetSummary};
use crate::manifest::{EnvironmentSpec, SkillsSpec, ToolsetSpec};
use crate::paths::{environment_root, scope_in_environment};
use crate::validate::Checked;

/// What loading produced: the agent, a session with the environment attached, and what the
/// model will be offered (for hosts and tests to show or check).
pub struct LoadedAgent {
    /// The assembled agent.
    pub agent: Agent,
    /// A session on it, with the environment and process shell attached.
    pub session: AgentSession,
    /// The instructions after template rendering.
    pub instructions: Option<String>,
    /// Names of the tools the first model request offers (before any run state), sorted.
    pub tool_names: Vec<String>,
    /// Every `toolsets:` entry as built, in manifest order: final tool names, approvals,
    /// deferrals, and which proxy or search hides it.
    pub toolsets: Vec<ToolsetSummary>,
    /// The folder of a local environment as the provider opened it (absolute, canonical).
    pub environment_root: Option<PathBuf>,
    /// The skill scan (skills found and scan diagnostics), when `skills:` is set.
    pub skills: Option<SkillScanReport>,
    /// The run policy `runtime:` gave (defaults filled in).
    pub runtime_policy: AgentRuntimePolicy,
    /// The definitions of the tools reachable only through a proxy (its `search_tools` shows
    /// them and `call_tool` calls them by these names), so a host can list them too; the
    /// tools behind a search are in the agent's registry.
    pub proxied: Vec<ToolDefinition>,
    /// Every sub-agent of the `agents` toolsets, in manifest order, as loaded.
    pub sub_agents: Vec<LoadedSubAgent>,
}

/// One sub-agent of an `agents` toolset, as loaded: which tool it is, its checked manifest and
/// its agent (built without instructions: each call renders them from the values it sets).
#[derive(Debug)]
pub struct LoadedSubAgent {
    /// The `agents` toolset's name.
    pub toolset: String,
    /// The tool's name, before the toolset's `prefix` (its `tool:`, else the manifest's
    /// `name`).
    pub tool: String,
    /// Its manifest, as the checker passed it.
    pub checked: Checked,
    /// What its manifest loaded to.
    pub loaded: LoadedAgent,
}

impl std::fmt::Debug for LoadedAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedAgent")
            .field("instructions", &self.instructions)
            .field("tool_names", &self.tool_names)
            .field("toolsets", &self.toolsets)
            .field("environment_root", &self.environment_root)
            .field("skills", &self.skills)
            .field("runtime_policy", &self.runtime_policy)
            .field("sub_agents", &self.sub_agents)
            .finish_non_exhaustive()
    }
}

/// Assembles the agent a checked manifest declares: model, rendered instructions, toolsets,
/// environment and shell policy, skills and run policy, in the folder it was checked in. Every
/// setting is honoured: the checker has refused the ones that could not be, so loading has no
/// rule of its own.
///
/// ```
/// use starweaver_config::load::{load, LoadOptions};
/// use starweaver_config::validate::{check_manifest, CheckContext};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let text = b"version: 1\nname: scout\nmodel: {id: test}\ninstructions: Help {{ name }}.\n";
/// let (found, checked) = check_manifest(text, &CheckContext::new());
/// let Some(checked) = checked else {
///     panic!("the manifest does not check: {found:?}");
/// };
/// let loaded = load(&checked, &LoadOptions::new()).await.unwrap();
/// assert_eq!(loaded.instructions.as_deref(), Some("Help scout."));
/// # });
/// ```
///
/// # Errors
/// [`LoadError`] for what only loading meets: a provider this build lacks, a host model not
/// given, instructions that do not render with the run's values, an environment folder that
/// cannot be opened, a code tool the resolver lacks, and a skill scan that fails.
pub async fn load(checked: &Checked, options: &LoadOptions) -> Result<LoadedAgent, LoadError> {
    assemble(checked, options, Role::Root).await
}

/// Which agent of a tree is being assembled.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The manifest the host loads: the host's model and variables apply.
    Root,
    /// A sub-agent: its own model and variable defaults, its instructions rendered per call.
    SubAgent,
}

/// [`load`] for one agent of a tree; its sub-agents are assembled first, each as
/// [`Role::SubAgent`].
fn assemble<'a>(
    checked: &'a Checked,
    options: &'a LoadOptions,
    role: Role,
) -> BoxFuture<'a, Result<LoadedAgent, LoadError>> {
    Box::pin(async move {
        let manifest = checked.manifest();
        let base_dir = checked.base_dir();
        let chosen = match (&options.model, role) {
            (Some(given), Role::Root) => given.clone(),
            _ => model(checked)?,
        };
        let mut builder = AgentBuilder::new(chosen)
            .name(manifest.name.clone())
            .model_settings(settings(&manifest.model));
        // A sub-agent's instructions are rendered for each call, from the values it sets.
        let instructions = render(manifest, &options.vars)?;
        if let (Some(text), Role::Root) = (&instructions, role) {
            builder = builder.instructions(text.clone());
        }
        let (sub_agents, sub_tools) = sub_agents(checked, options).await?;
        let built = build(&manifest.toolsets, options, base_dir, &sub_tools)?;
        let mut registry = ToolRegistry::new();
        for toolset in &built.exposed {
            registry.insert_toolset(toolset);
        }
        let (policy, tool_config) = runtime(manifest.runtime.as_ref(), options.max_steps);
        let runtime_policy = policy;
        builder = builder.runtime_policy(policy).tool_config(tool_config);

        // The checker refuses filesystem and shell toolsets, `shell:` and `skills:` without an
        // environment.
        let attached = match &manifest.environment {
            Some(spec) => Some(attach(
                spec,
                manifest.shell.as_ref(),
                base_dir,
                &manifest.name,
            )?),
            None => None,
        };
        let environment_root = attached.as_ref().and_then(|a| a.root.clone());
        let mut scanned = None;
        if let (Some(skills), Some(attached), Some(environment)) =
            (&manifest.skills, &attached, &manifest.environment)
        {
            let report = scan_skills(skills, environment, base_dir, attached).await?;
            // The instruction block that lists the skills; the model reads each SKILL.md with
            // its file tools.
            registry.insert_toolset(&skill_tools(report.registry().packages()));
            scanned = Some(report.clone());
            builder = builder.skills_report(report);
        }
        builder = builder.tool_registry(registry.clone());
        // The checker read and checked the schema (inline or from `schema_file`).
        if let (Some(output), Some(schema)) = (&manifest.output, checked.output_schema()) {
            let retries = output.retries.unwrap_or(DEFAULT_OUTPUT_RETRIES);
            builder = builder.output(OutputSpec::new(schema.clone()).with_retries(retries));
        }
        let agent = builder.build();
        let mut session = AgentSession::new(agent.clone());
        if let Some(attached) = attached {
            session = session
                .with_environment(attached.files)
                .with_process_shell(attached.processes);
        }
        if !built.preload.is_empty() {
            session
                .context_mut()
                .record_tool_search_loaded(built.preload, Vec::<String>::new());
        }
        let tool_names = agent
            .with_run_tools(&registry)
            .definitions_for_context(session.context())
            .into_iter()
            .map(|definition| definition.name)
            .collect();
        Ok(LoadedAgent {
            agent,
            session,
            instructions,
            tool_names,
            toolsets: built.summaries,
            environment_root,
            skills: scanned,
            runtime_policy,
            proxied: built.proxied,
            sub_agents,
        })
    })
}

/// Loads every sub-agent of the manifest's `agents` toolsets with the host's tool resolver,
/// MCP builder and step limit, and its own model and variable defaults (the host's model and
/// variables are the root agent's), and makes each one's tool, by its place.
async fn sub_agents(
    checked: &Checked,
    options: &LoadOptions,
) -> Result<(Vec<LoadedSubAgent>, BTreeMap<(usize, usize), DynTool>), LoadError> {
    let own = LoadOptions {
        vars: BTreeMap::new(),
        model: None,
        ..options.clone()
    };
    let mut loaded = Vec::new();
    let mut tools = BTreeMap::new();
    for (index, spec) in checked.manifest().toolsets.iter().enumerate() {
        let ToolsetSpec::Agents(agents) = spec else {
            continue;
        };
        for (at, agent) in agents.agents.iter().enumerate() {
            // The checker passes a manifest only with every sub-agent checked: one it could not
            // read or check is an error of the manifest, so none is missing here.
            let Some(child) = checked.sub_agent(index, at) else {
                continue;
            };
            let built = assemble(child, &own, Role::SubAgent).await?;
            let manifest = child.manifest();
            let tool = sub_agent::tool(
                agent,
                manifest,
                built.agent.clone(),
                built.session.context().clone(),
            );
            tools.insert((index, at), tool);
            loaded.push(LoadedSubAgent {
                toolset: agents.name.clone(),
                tool: agent.tool.clone().unwrap_or_else(|| manifest.name.clone()),
                checked: child.clone(),
                loaded: built,
            });
        }
    }
    Ok((loaded, tools))
}

/// Scans the skill scopes, each given relative to the manifest's folder and found inside the
/// environment's root, the way the agent will read them. The checker has verified each scope
/// against the same folders; a scope that fails now has changed since.
async fn scan_skills(
    skills: &SkillsSpec,
    environment: &EnvironmentSpec,
    base_dir: &Path,
    attached: &Attached,
) -> Result<SkillScanReport, LoadError> {
    let root = environment_root(base_dir, environment.root.as_deref());
    let mut scopes = Vec::with_capacity(skills.scopes.len());
    for scope in &skills.scopes {
        let inside =
            scope_in_environment(base_dir, &root, &scope.path).map_err(|_| LoadError::Skills {
                scope: scope.path.clone(),
                message: "the folder is no longer there, inside the environment, as it was \
                          when the manifest was checked"
                    .to_string(),
            })?;
        scopes.push(SkillSourceScope::new(inside).with_source(scope.source));
    }
    SkillRegistry::scan_with_report(attached.files.clone(), &scopes)
        .await
        .map_err(|error| LoadError::Skills {
            scope: skills
                .scopes
                .iter()
                .map(|scope| scope.path.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            message: error.to_string(),
        })
}
