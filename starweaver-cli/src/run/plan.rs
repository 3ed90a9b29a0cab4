//! What to run, from the command line (and a save file with `--resume`): the manifest, the
//! variables, the prompt, the saved session and the answers given up front.

use std::collections::BTreeMap;
use std::path::PathBuf;

use starweaver_core::agent::{AgentHitlResults, AgentSessionState};

use super::answers::{parse_answers, parse_results, AutoAnswers};
use super::save::SaveFile;
use super::{RunArgs, Stop};
use crate::mask::Redactor;

/// A run ready to load.
#[derive(Debug)]
pub struct Plan {
    /// The manifest file.
    pub manifest: PathBuf,
    /// The save file a resumed run came from, so problems with what it names say so.
    pub resumed_from: Option<PathBuf>,
    /// The agent name the save file recorded, checked against the manifest.
    pub saved_agent: Option<String>,
    /// `--var` overrides (with a save file's, under `--resume`).
    pub vars: BTreeMap<String, String>,
    /// `--max-steps` (or the saved one).
    pub max_steps: Option<u32>,
    /// The saved session, under `--resume`.
    pub state: Option<AgentSessionState>,
    /// The prompt of a new run; `None` when a resumed session waits.
    pub prompt: Option<String>,
    /// `--yes`, the `--answer` texts and the `--result` values.
    pub auto: AutoAnswers,
    /// Masks secret values in everything the run writes out; shared with the UI, and told the
    /// manifest's own secrets once it is read.
    pub redactor: Redactor,
}

/// Plans the run; `read_stdin` gives the prompt when `--prompt` is absent and one is needed.
///
/// # Errors
/// A [`Stop`] with status 2 for a missing manifest or prompt, an unreadable save file, missing
/// secret variables, or `--result` values that do not fit the saved run.
pub fn plan(
    args: &RunArgs,
    read_stdin: impl FnOnce() -> Result<String, String>,
) -> Result<Plan, Stop> {
    let given: BTreeMap<String, String> = args.vars.iter().cloned().collect();
    if let Some(save) = &args.save {
        check_save_path(save, args.manifest.as_deref())?;
    }
    let prompt_or_stdin = || match &args.prompt {
        Some(prompt) if prompt.trim().is_empty() => Err(Stop::usage(
            "--prompt is empty; give the agent something to do",
        )),
        Some(prompt) => Ok(prompt.clone()),
        None => read_stdin().map_err(Stop::usage),
    };
    let Some(path) = &args.resume else {
        if let Some((id, _)) = args.results.first() {
            return Err(Stop::usage(format!(
                "--result {id}=... answers a deferred call of a saved run; use it with --resume FILE"
            )));
        }
        if let Some((id, _)) = args.answers.first() {
            return Err(Stop::usage(format!(
                "--answer {id}=... answers a question of a saved run; use it with --resume FILE"
            )));
        }
        let manifest = args.manifest.clone().ok_or_else(|| {
            Stop::usage(
                "no manifest: give one (`starweaver run agents/NAME.yaml`) or --resume FILE",
            )
        })?;
        let prompt = prompt_or_stdin()?;
        return Ok(Plan {
            resumed_from: None,
            saved_agent: None,
            manifest,
            redactor: Redactor::for_vars(&given),
            vars: given,
            max_steps: args.max_steps,
            state: None,
            prompt: Some(prompt),
            auto: AutoAnswers {
                yes: args.yes,
                results: BTreeMap::new(),
                answers: BTreeMap::new(),
                earlier: AgentHitlResults::new(),
            },
        });
    };
    let saved = SaveFile::read(path).map_err(Stop::usage)?;
    let state = saved.state().map_err(|error| {
        Stop::usage(format!(
            "cannot resume from `{}`: {error}; give a file written by --save",
            path.display()
        ))
    })?;
    if saved.max_steps == Some(0) {
        return Err(Stop::usage(format!(
            "cannot resume from `{}`: its `max_steps` is 0, and a run needs at least 1; fix the \
             file or give --max-steps N",
            path.display()
        )));
    }
    // A relative manifest path in the file is relative to the file's own folder.
    let manifest = match path.parent() {
        Some(folder) if saved.manifest.is_relative() => folder.join(&saved.manifest),
        _ => saved.manifest.clone(),
    };
    let vars = saved.vars_with(&given).map_err(Stop::usage)?;
    let results = parse_results(&args.results, state.pending()).map_err(Stop::usage)?;
    let answers = parse_answers(&args.answers, state.pending()).map_err(Stop::usage)?;
    let prompt = if state.pending().is_empty() {
        Some(prompt_or_stdin()?)
    } else if args.prompt.is_some() {
        return Err(Stop::usage(format!(
            "--prompt is not used when resuming `{}`: the saved run waits for {} call(s); \
             answer them (--yes, --answer ID=TEXT, --result ID=JSON) and run again without \
             --prompt",
            path.display(),
            state.pending().len()
        )));
    } else {
        None
    };
    Ok(Plan {
        resumed_from: Some(path.clone()),
        saved_agent: saved.agent.clone(),
        manifest,
        redactor: Redactor::for_vars(&vars),
        vars,
        max_steps: args.max_steps.or(saved.max_steps),
        state: Some(state),
        prompt,
        auto: AutoAnswers {
            yes: args.yes,
            results,
            answers,
            earlier: saved.answered.clone(),
        },
    })
}

/// Refuses a `--save` path that cannot work before anything runs: a folder, a file in a folder
/// that does not exist, or the manifest itself (saving would overwrite it).
fn check_save_path(save: &std::path::Path, manifest: Option<&std::path::Path>) -> Result<(), Stop> {
    if save.is_dir() {
        return Err(Stop::usage(format!(
            "--save {}: it is a folder; name a file to save the run in",
            save.display()
        )));
    }
    let parent = match save.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => std::path::Path::new("."),
    };
    if !parent.is_dir() {
        return Err(Stop::usage(format!(
            "--save {}: the folder `{}` does not exist; create it or save elsewhere",
            save.display(),
            parent.display()
        )));
    }
    let same = |a: &std::path::Path, b: &std::path::Path| match (a.canonicalize(), b.canonicalize())
    {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if manifest.is_some_and(|manifest| same(save, manifest)) {
        return Err(Stop::usage(format!(
            "--save {}: that is the manifest being run; saving would overwrite it, name another file",
            save.display()
        )));
    }
    Ok(())
}
