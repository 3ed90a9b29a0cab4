//! `load`: a manifest to an agent and a session ready to run.

use std::path::{Path, PathBuf};

use starweaver_core::agent::{Agent, AgentBuilder, AgentRuntimePolicy, AgentSession};
use starweaver_core::model::ToolDefinition;
use starweaver_core::skills::{skill_tools, SkillRegistry, SkillScanReport, SkillSourceScope};
use starweaver_core::tools::ToolRegistry;

use super::environment::{attach, Attached};
use super::instructions::render;
use super::model::{model, settings};
use super::runtime::runtime;
use super::toolsets::build;
use super::{LoadError, LoadOptions, ToolsetSummary};
use crate::manifest::{EnvironmentKind, EnvironmentSpec, Manifest, SkillsSpec, ToolsetSpec};
use crate::paths::{environment_root, scope_in_environment, ScopeProblem};

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
            .finish_non_exhaustive()
    }
}

/// Assembles the agent a checked manifest declares: model, rendered instructions, toolsets,
/// environment and shell policy, skills and run policy. Every setting is honoured or refused;
/// none is dropped silently.
///
/// # Errors
/// [`LoadError`] naming the field, for a model this build lacks, a template that does not
/// render, an environment that cannot be opened, unknown tools or toolsets, settings that need
/// a missing section, and settings the runtime cannot honour.
pub async fn load(manifest: &Manifest, options: &LoadOptions) -> Result<LoadedAgent, LoadError> {
    let chosen = match &options.model {
        Some(given) => given.clone(),
        None => model(&manifest.model, &options.base_dir)?,
    };
    let mut builder = AgentBuilder::new(chosen).model_settings(settings(&manifest.model)?);
    let instructions = render(manifest, &options.vars)?;
    if let Some(text) = &instructions {
        builder = builder.instructions(text.clone());
    }
    let built = build(&manifest.toolsets, &options.tools)?;
    let mut registry = ToolRegistry::new();
    for toolset in &built.exposed {
        registry.insert_toolset(toolset);
    }
    let (policy, tool_config) = runtime(manifest.runtime.as_ref());
    let runtime_policy = policy;
    builder = builder.runtime_policy(policy).tool_config(tool_config);

    let attached = match &manifest.environment {
        Some(spec) => Some(attach(
            spec,
            manifest.shell.as_ref(),
            &options.base_dir,
            &manifest.name,
        )?),
        None => {
            if manifest.shell.is_some() {
                return Err(missing("shell"));
            }
            // Filesystem and shell tools act only on an environment; without one they would
            // be left out of every request.
            let needs = manifest.toolsets.iter().position(|spec| {
                matches!(spec, ToolsetSpec::Filesystem(_) | ToolsetSpec::Shell(_))
            });
            if let Some(index) = needs {
                return Err(missing(&format!("toolsets[{index}]")));
            }
            None
        }
    };
    let environment_root = attached.as_ref().and_then(|a| a.root.clone());
    let mut scanned = None;
    if let Some(skills) = &manifest.skills {
        let (Some(attached), Some(environment)) = (&attached, &manifest.environment) else {
            return Err(missing("skills"));
        };
        let report = scan_skills(skills, environment, &options.base_dir, attached).await?;
        // The instruction block that lists the skills; the model reads each SKILL.md with
        // its file tools.
        registry.insert_toolset(&skill_tools(report.registry().packages()));
        scanned = Some(report.clone());
        builder = builder.skills_report(report);
    }
    builder = builder.tool_registry(registry.clone());
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
    let tool_names = registry
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
    })
}

/// Scans the skill scopes, each given relative to the manifest's folder and found inside the
/// environment's root, the way the agent will read them.
async fn scan_skills(
    skills: &SkillsSpec,
    environment: &EnvironmentSpec,
    base_dir: &Path,
    attached: &Attached,
) -> Result<SkillScanReport, LoadError> {
    if environment.kind == EnvironmentKind::Virtual && !skills.scopes.is_empty() {
        return Err(LoadError::Skills {
            message: "skills need a local environment: a virtual one starts empty".to_string(),
        });
    }
    let root = environment_root(base_dir, environment.root.as_deref());
    let mut scopes = Vec::with_capacity(skills.scopes.len());
    for scope in &skills.scopes {
        let inside = scope_in_environment(base_dir, &root, &scope.path).map_err(|problem| {
            LoadError::Skills {
                message: match problem {
                    ScopeProblem::OutsideEnvironment { root } => format!(
                        "scope `{}` is outside the environment root `{}`",
                        scope.path,
                        root.display()
                    ),
                    ScopeProblem::NotAFolder | ScopeProblem::NoRoot => {
                        format!("scope `{}` is not a folder", scope.path)
                    }
                },
            }
        })?;
        scopes.push(SkillSourceScope::new(inside).with_source(scope.source));
    }
    SkillRegistry::scan_with_report(attached.files.clone(), &scopes)
        .await
        .map_err(|error| LoadError::Skills {
            message: error.to_string(),
        })
}

fn missing(field: &str) -> LoadError {
    LoadError::Missing {
        field: field.to_string(),
        needs: "environment".to_string(),
        help: "add `environment: {type: local}` (or `virtual`) so it has somewhere to act"
            .to_string(),
    }
}
