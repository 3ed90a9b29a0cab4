//! `starweaver run MANIFEST --prompt TEXT`: load a manifest, run it, stream what happens to a
//! UI, answer what the run waits for, save a waiting or cancelled run and resume it later.
//!
//! Exit status: 0 the run completed, 1 it failed or was cancelled (Ctrl-C), 2 bad usage or a
//! manifest that cannot be read, checked or loaded, 3 it is waiting for approvals, answers or
//! deferred results (saved when `--save` is given).

mod answers;
mod args;
mod choose;
mod drive;
mod plan;
mod prepare;
mod process;
mod prompt;
mod save;
#[cfg(test)]
mod tests;
mod trace;

use std::io::{IsTerminal as _, Write as _};
use std::path::Path;
use std::process::ExitCode;

use starweaver_core::agent::{AgentHitlResults, AgentSession};
use starweaver_core::environment::attached_process_shell;

pub use answers::is_question;
#[cfg(feature = "store")]
pub(crate) use answers::{says_nothing, AutoAnswers};
#[cfg(any(feature = "mcp", feature = "store"))]
pub(crate) use args::name_value;
pub use args::RunArgs;
pub use choose::{choose_ui, UiSettings};
pub use drive::Interrupt;
pub(crate) use drive::{Driver, Ended, Start};
use plan::{plan, Plan};
pub use prepare::Hooks;
pub(crate) use prepare::{prepare, Prepared};
pub(crate) use process::{exit_with, runtime, watch_ctrl_c};
use save::{SaveFile, Secrets};

use crate::ui::{RunOutcome, RunUi};

/// Why the command stops before (or instead of) running, with the status to exit with.
#[derive(Clone, Debug)]
pub struct Stop {
    /// What went wrong, where, and how to fix it.
    pub message: String,
    /// The exit status.
    pub status: u8,
}

impl Stop {
    /// Bad usage or an unusable manifest: status 2.
    #[must_use]
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            status: 2,
        }
    }
}

/// The exit status of an outcome: 0 completed, 1 failed or cancelled, 3 waiting.
#[must_use]
pub fn exit_code(outcome: &RunOutcome) -> u8 {
    match outcome {
        RunOutcome::Completed { .. } => 0,
        RunOutcome::Failed { .. } | RunOutcome::Cancelled { .. } => 1,
        RunOutcome::Waiting { .. } => 3,
    }
}

/// The command: the plan (reading a piped prompt before Ctrl-C is taken over, so Ctrl-C still
/// ends a prompt being typed), a runtime, Ctrl-C wired to cancellation, the UI chosen from the
/// streams.
#[must_use]
pub fn run_main(args: &RunArgs) -> ExitCode {
    let read_stdin = || {
        if args.prompt.is_none() && std::io::stdin().is_terminal() {
            eprintln!("reading the prompt from standard input; end it with Ctrl-D");
        }
        prompt::read_prompt(std::io::stdin().lock())
    };
    let status = plan(args, read_stdin).and_then(|plan| {
        let tracing = trace::start(args, &plan.redactor)?;
        let status = runtime()?.block_on(async {
            let interrupt = Interrupt::default();
            watch_ctrl_c(&interrupt)?;
            let settings = UiSettings {
                yes: args.yes,
                // A resumed run keeps what nobody answers pending with or without --save, so
                // --save only records where the run waits; a new run without --save denies it.
                keep_pending: args.save.is_some() || args.resume.is_some() || in_store(args),
                redactor: plan.redactor.clone(),
                interrupt: interrupt.cancel.clone(),
            };
            let mut ui = choose_ui(args.json, settings);
            execute(plan, args, &Hooks::default(), ui.as_mut(), interrupt).await
        });
        trace::finish(tracing);
        status
    });
    exit_with(status)
}

/// Whether the run is kept in a run store.
fn in_store(args: &RunArgs) -> bool {
    #[cfg(feature = "store")]
    {
        args.store.given()
    }
    #[cfg(not(feature = "store"))]
    {
        let _ = args;
        false
    }
}

/// Loads the planned run, drives it to its end through `ui`, saves it when asked and returns
/// the exit status.
///
/// # Errors
/// A [`Stop`] (status 2) when the manifest cannot be read, checked or loaded.
pub async fn execute(
    plan: Plan,
    args: &RunArgs,
    hooks: &Hooks,
    ui: &mut dyn RunUi,
    interrupt: Interrupt,
) -> Result<u8, Stop> {
    // The store first: one that cannot be opened fails the command before anything runs.
    #[cfg(feature = "store")]
    let store = match args.store.given() {
        true => Some(store_for(args, &plan)?.open().await?),
        false => None,
    };
    let prepared = prepare(
        &plan.manifest,
        &plan.vars,
        plan.max_steps,
        args.limit.limit(),
        hooks,
    )
    .await
    .map_err(|stop| match &plan.resumed_from {
        // What the save file names (its manifest, its variables) is the file's, not the
        // command line's: say where it came from.
        Some(file) => Stop {
            message: format!(
                "resuming `{}`, saved from the manifest `{}`:\n{}",
                file.display(),
                plan.manifest.display(),
                stop.message
            ),
            status: stop.status,
        },
        None => stop,
    })?;
    if let (Some(saved), Some(file)) = (&plan.saved_agent, &plan.resumed_from) {
        if *saved != prepared.name {
            return Err(Stop::usage(format!(
                "cannot resume from `{}`: it is a run of the agent `{saved}`, but `{}` now \
                 declares `{}`; resume it with the manifest it was saved from",
                file.display(),
                plan.manifest.display(),
                prepared.name
            )));
        }
    }
    plan.redactor.add(prepared.secret_values.iter().cloned());
    let mut warnings = prepared.warnings.clone();
    for warning in plan.redactor.take_warnings() {
        warnings.push_str(&warning);
        warnings.push('\n');
    }
    if !warnings.is_empty() {
        let _ = std::io::stderr().lock().write_all(warnings.as_bytes());
    }
    #[cfg(feature = "store")]
    if let (Some(store), Some(prompt)) = (store, plan.prompt.clone()) {
        let run = crate::durable::StoreRun {
            vars: &plan.vars,
            prompt,
            auto: plan.auto,
            ui,
            interrupt,
            redactor: plan.redactor,
        };
        return crate::durable::run_in_store(store, prepared, run).await;
    }
    let Prepared {
        loaded,
        manifest,
        name,
        secret_vars,
        ..
    } = prepared;
    let (vars, max_steps, redactor) = (plan.vars, plan.max_steps, plan.redactor);
    let secrets = Secrets {
        declared: &secret_vars,
        redactor: &redactor,
    };
    let mut session = match plan.state {
        Some(state) => restore(loaded.agent, &loaded.session, state),
        None => loaded.session,
    };
    let start = match plan.prompt {
        Some(prompt) => Start::Prompt(prompt),
        None => Start::Pending,
    };
    let mut driver = Driver {
        ui,
        auto: plan.auto,
        interrupt,
        journal: None,
    };
    let ended = driver.drive(&mut session, start).await;
    let no_answers = AgentHitlResults::new();
    let saved = |session: &AgentSession,
                 answered: &AgentHitlResults|
     -> Result<Option<std::path::PathBuf>, String> {
        let Some(path) = &args.save else {
            return Ok(None);
        };
        save_to(
            path,
            (&manifest, &name),
            &vars,
            &secrets,
            max_steps,
            (session, answered),
        )?;
        Ok(Some(path.clone()))
    };
    let outcome = match ended {
        // Saved too, so a file that was resumed no longer holds calls that have now run, and
        // the conversation can go on with `--resume FILE --prompt TEXT`.
        // A finished run keeps its answer even when the save fails: it is shown, then the
        // failure, and the status says the save did not happen.
        Ended::Completed {
            output,
            structured_output,
            usage,
        } => {
            let save = saved(&session, &no_answers);
            driver.ui.finished(&RunOutcome::Completed {
                output,
                structured_output,
                usage,
            });
            let code = match save {
                Ok(_) => 0,
                Err(message) => {
                    let _ = writeln!(std::io::stderr().lock(), "error: {message}");
                    1
                }
            };
            return Ok(unseen(&*driver.ui, code));
        }
        Ended::Failed { message } => match saved(&session, &no_answers) {
            Ok(_) => RunOutcome::Failed { message },
            Err(problem) => RunOutcome::Failed {
                message: format!("{message}; {problem}"),
            },
        },
        Ended::Waiting {
            usage,
            answered,
            given,
        } => match saved(&session, &given) {
            Ok(saved_to) => RunOutcome::Waiting {
                pending: session.pending().to_vec(),
                saved_to,
                usage,
                answered,
            },
            Err(message) => RunOutcome::Failed { message },
        },
        Ended::Cancelled => match saved(&session, &no_answers) {
            Ok(saved_to) => RunOutcome::Cancelled { saved_to },
            Err(message) => RunOutcome::Failed { message },
        },
    };
    driver.ui.finished(&outcome);
    Ok(unseen(&*driver.ui, exit_code(&outcome)))
}

/// The store of a stored run, refusing what a stored run cannot do.
#[cfg(feature = "store")]
fn store_for<'a>(args: &'a RunArgs, plan: &Plan) -> Result<&'a crate::durable::StoreArgs, Stop> {
    if args.save.is_some() || plan.resumed_from.is_some() {
        return Err(Stop::usage(
            "--store keeps the run in a run store, so it does not take --save or --resume;              continue a stored run with `starweaver runs resume ID`",
        ));
    }
    Ok(&args.store)
}

/// `code`, or 1 in place of 0 when the output could not be written (with the reason on
/// standard error): a run whose answer nobody saw did not succeed.
fn unseen(ui: &dyn RunUi, code: u8) -> u8 {
    match ui.output_failed() {
        Some(problem) => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "error: the run's output could not be written: {problem}"
            );
            code.max(1)
        }
        None => code,
    }
}

/// A session of `agent` from saved state, with the live environment of the freshly loaded one.
pub(crate) fn restore(
    agent: starweaver_core::agent::Agent,
    loaded: &AgentSession,
    state: starweaver_core::agent::AgentSessionState,
) -> AgentSession {
    let mut session = AgentSession::restore(agent, state);
    if let Some(environment) = loaded.environment() {
        session = session.with_environment(environment);
    }
    if let Some(shell) = attached_process_shell(loaded.context()) {
        session = session.with_process_shell(shell);
    }
    session
}

/// Writes the session's state and how to rebuild its agent to `path`.
fn save_to(
    path: &Path,
    (manifest, agent): (&Path, &str),
    vars: &std::collections::BTreeMap<String, String>,
    secrets: &Secrets<'_>,
    max_steps: Option<u32>,
    (session, answered): (&AgentSession, &AgentHitlResults),
) -> Result<(), String> {
    SaveFile::new(
        manifest,
        vars,
        secrets,
        max_steps,
        (&session.export_state(), answered),
    )?
    .with_agent(agent)
    .write(path)
}
