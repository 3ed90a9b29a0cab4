//! The run loop: run or resume the session, answer what waits (the command's own answers
//! first, then the UI's), until the run completes, waits for what nobody answered, fails or is
//! cancelled.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use starweaver_core::agent::{
    AgentError, AgentHitlResults, AgentRunOptions, AgentRunResult, AgentSession, AgentStreamRecord,
    DynRunJournal,
};
use starweaver_core::model::Usage;
use tokio_util::sync::CancellationToken;

use super::answers::AutoAnswers;
use crate::ui::RunUi;

/// How long a cancelled run may take to stop its tool calls (their processes get a shorter
/// grace before they are killed) before it is dropped, which kills what is left.
const CANCEL_GRACE: Duration = Duration::from_secs(10);

/// Where the loop starts.
#[derive(Clone, Debug)]
pub enum Start {
    /// A new run of this prompt.
    Prompt(String),
    /// The session already waits (a restored run): answer its pending calls first.
    Pending,
}

/// How the loop ended (before saving and the UI's last words).
#[derive(Clone, Debug)]
pub enum Ended {
    /// The final answer.
    Completed {
        /// The answer.
        output: String,
        /// The validated structured answer, when the agent asks for one.
        structured_output: Option<serde_json::Value>,
        /// Usage of the run.
        usage: Usage,
    },
    /// Calls nobody answered; the session waits for them.
    Waiting {
        /// Usage so far.
        usage: Usage,
        /// The calls that did get an answer (`--yes`, `--answer`, `--result`, a person), which
        /// did not run: a step's calls run together once every one of them is answered.
        answered: Vec<String>,
        /// Those answers, for the save file to keep.
        given: AgentHitlResults,
    },
    /// The run failed.
    Failed {
        /// Why, for people.
        message: String,
    },
    /// The cancellation token fired.
    Cancelled,
}

/// Ctrl-C as the loop sees it: the first cancels the run, a second stops waiting for its tool
/// calls to wind down.
#[derive(Clone, Debug, Default)]
pub struct Interrupt {
    /// Fires on the first Ctrl-C.
    pub cancel: CancellationToken,
    /// Fires on the second.
    pub force: CancellationToken,
}

/// Everything the loop uses besides the session.
pub struct Driver<'a> {
    /// The watcher of the run.
    pub ui: &'a mut dyn RunUi,
    /// `--yes` and `--result`.
    pub auto: AutoAnswers,
    /// Fires on Ctrl-C.
    pub interrupt: Interrupt,
    /// Where the run is journaled, when it runs in a run store.
    pub journal: Option<DynRunJournal>,
}

type Running<'s> = Pin<Box<dyn Future<Output = Result<AgentRunResult, AgentError>> + Send + 's>>;

impl Driver<'_> {
    /// Runs the loop to its end.
    pub async fn drive(&mut self, session: &mut AgentSession, start: Start) -> Ended {
        let mut step = match start {
            Start::Prompt(prompt) => Step::Run(prompt),
            Start::Pending => Step::Answer(Usage::default()),
        };
        loop {
            step = match step {
                Step::Answer(usage) => match self.answer(session) {
                    Ok(results) => Step::Resume(results),
                    Err(Unanswered::Cancelled) => return Ended::Cancelled,
                    Err(Unanswered::Left { answered, given }) => {
                        return Ended::Waiting {
                            usage,
                            answered,
                            given,
                        }
                    }
                },
                Step::Run(prompt) => match self.settle(session, Request::Run(prompt)).await {
                    Ok(usage) => Step::Answer(usage),
                    Err(ended) => return ended,
                },
                Step::Resume(results) => match self.settle(session, Request::Resume(results)).await
                {
                    Ok(usage) => Step::Answer(usage),
                    Err(ended) => return ended,
                },
            };
        }
    }

    /// Runs one segment; `Ok(usage)` when it ends waiting.
    async fn settle(
        &mut self,
        session: &mut AgentSession,
        request: Request,
    ) -> Result<Usage, Ended> {
        let interrupt = self.interrupt.clone();
        let ui = &mut *self.ui;
        let mut sink = |record: &AgentStreamRecord| ui.record(record);
        // Every segment watches the token, a restored run's resumes too (the run uses no other
        // options, so giving them again replaces nothing).
        let mut options = AgentRunOptions::new().cancellation(interrupt.cancel.clone());
        if let Some(journal) = &self.journal {
            options = options.journal(journal.clone());
        }
        let running: Running<'_> = match request {
            Request::Run(prompt) => Box::pin(session.run_with_events(prompt, options, &mut sink)),
            Request::Resume(results) => {
                Box::pin(session.resume_with_options(results, options, &mut sink))
            }
        };
        match cancellable(running, &interrupt).await {
            None | Some(Err(AgentError::Cancelled)) => Err(Ended::Cancelled),
            Some(Err(error)) => Err(Ended::Failed {
                message: failure_message(&error),
            }),
            Some(Ok(result)) if result.is_waiting() => Ok(result.usage),
            Some(Ok(result)) => Err(Ended::Completed {
                output: result.output,
                structured_output: result.structured_output,
                usage: result.usage,
            }),
        }
    }

    /// Answers for every pending call, or why the loop stops: some stay pending (the answers
    /// the others got are named, since they do not run), or Ctrl-C came while the UI asked.
    fn answer(&mut self, session: &AgentSession) -> Result<AgentHitlResults, Unanswered> {
        let pending = session.pending().to_vec();
        let (mut results, rest) = self.auto.split(&pending);
        if !rest.is_empty() {
            let answers = self.ui.answer(&rest);
            for interaction in answers.interactions {
                results = results.with_interaction(interaction);
            }
        }
        if self.interrupt.cancel.is_cancelled() {
            return Err(Unanswered::Cancelled);
        }
        let (answered, left): (Vec<&str>, Vec<&str>) = pending
            .iter()
            .map(|request| request.tool_call_id.as_str())
            .partition(|id| {
                results.interactions.contains_key(*id) || results.deferred_results.contains_key(*id)
            });
        if left.is_empty() {
            Ok(results)
        } else {
            Err(Unanswered::Left {
                answered: answered.into_iter().map(str::to_string).collect(),
                given: results,
            })
        }
    }
}

/// Why the loop stops instead of resuming.
enum Unanswered {
    /// Ctrl-C came while the UI asked.
    Cancelled,
    /// Some calls stay pending; these others were answered (and do not run), with `given`.
    Left {
        answered: Vec<String>,
        given: AgentHitlResults,
    },
}

enum Step {
    Run(String),
    Resume(AgentHitlResults),
    Answer(Usage),
}

enum Request {
    Run(String),
    Resume(AgentHitlResults),
}

/// Awaits `running`, which watches the first Ctrl-C's token; after that Ctrl-C gives it
/// [`CANCEL_GRACE`] (or until a second Ctrl-C) to stop its tool calls, then drops it, which
/// kills what is left. `None` when it was dropped.
async fn cancellable<T>(
    mut running: Pin<Box<dyn Future<Output = T> + Send + '_>>,
    interrupt: &Interrupt,
) -> Option<T> {
    tokio::select! {
        result = &mut running => return Some(result),
        () = interrupt.cancel.cancelled() => {}
    }
    tokio::select! {
        result = tokio::time::timeout(CANCEL_GRACE, running) => result.ok(),
        () = interrupt.force.cancelled() => None,
    }
}

/// The run's error as a command-line user can act on it: the limits name the flag and the
/// manifest setting rather than the library's policy type.
fn failure_message(error: &AgentError) -> String {
    match error {
        AgentError::MaxStepsExceeded { max_steps } => format!(
            "the run stopped after {max_steps} model steps without a final answer; raise \
             --max-steps (or `runtime.max_steps` in the manifest) if the task needs more, or \
             check for a tool loop"
        ),
        AgentError::TokenBudgetExceeded { max_tokens, used } => format!(
            "the run used {used} tokens, reaching its budget of {max_tokens}; raise \
             `runtime.max_tokens` in the manifest if the task needs more"
        ),
        other => other.to_string(),
    }
}
