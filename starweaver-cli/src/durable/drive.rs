//! A claimed run driven to its end or its next wait, with every step journaled, the lease
//! renewed while it works, and how it ended written to the store under that lease.

use std::io::Write as _;

use starweaver_config::load::LoadedAgent;
use starweaver_core::agent::{AgentHitlResults, AgentSession, AgentSessionState};
use starweaver_core::runs::{ClaimedRun, StoreError};

use crate::mask::Redactor;
use crate::run::{restore, AutoAnswers, Driver, Ended, Interrupt, Start};
use crate::ui::{RunOutcome, RunUi};

/// What a run cut off by Ctrl-C (or a worker's shutdown) becomes in the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OnCancel {
    /// Back to the queue, for another worker to continue from its journal.
    Release,
    /// Cancelled: the person who started it stopped it.
    Cancel,
}

/// How a claimed run settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Settled {
    /// Answered and stored as finished.
    Finished,
    /// Stored as waiting for answers.
    Waiting,
    /// Stored as failed, with why.
    Failed(String),
    /// Given back to the queue.
    Released,
    /// Stored as cancelled.
    Cancelled,
    /// The lease was lost: another worker holds the run, and nothing more was written.
    Lost,
    /// The store refused or failed to record how the run ended.
    Unrecorded(String),
}

impl Settled {
    /// The exit status of a command that ran this one run: 0 finished, 3 waiting, 1 otherwise.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Self::Finished => 0,
            Self::Waiting => 3,
            _ => 1,
        }
    }

    /// One line for a worker's log.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Finished => "finished".to_string(),
            Self::Waiting => "waiting for answers (`starweaver runs show` lists them)".to_string(),
            Self::Failed(message) => format!("failed: {message}"),
            Self::Released => "released to the queue".to_string(),
            Self::Cancelled => "cancelled".to_string(),
            Self::Lost => {
                "lost its lease to another worker; this worker wrote nothing more".to_string()
            }
            Self::Unrecorded(message) => {
                format!("ended, but the store did not record it: {message}")
            }
        }
    }
}

/// Everything driving one claimed run needs.
pub(crate) struct Durable<'a> {
    /// The run, claimed.
    pub(crate) claimed: ClaimedRun,
    /// The lease length the heartbeat renews.
    pub(crate) lease_ms: u64,
    /// Who watches the run.
    pub(crate) ui: &'a mut dyn RunUi,
    /// `--yes` and the like (answers stored while the run waited are added here).
    pub(crate) auto: AutoAnswers,
    /// Ctrl-C, or the worker's shutdown.
    pub(crate) interrupt: Interrupt,
    /// Masks secret values in the session before the store keeps it.
    pub(crate) redactor: Redactor,
    /// What a cut-off run becomes.
    pub(crate) on_cancel: OnCancel,
    /// The prompt as given, when this process has it: the store keeps it with secrets masked.
    pub(crate) prompt: Option<String>,
}

/// Drives the claimed run on `loaded` (its manifest, loaded with the run's variables) until
/// it ends or waits, and records that in the store.
pub(crate) async fn drive_claimed(durable: Durable<'_>, loaded: LoadedAgent) -> Settled {
    let Durable {
        claimed,
        lease_ms,
        ui,
        mut auto,
        interrupt,
        redactor,
        on_cancel,
        prompt,
    } = durable;
    let (mut session, start) = match claimed.waiting_state() {
        Some(state) => {
            auto.earlier = claimed.answers().clone();
            (
                restore(loaded.agent, &loaded.session, state.clone()),
                Start::Pending,
            )
        }
        None => (
            loaded.session,
            Start::Prompt(prompt.unwrap_or_else(|| claimed.run().prompt.clone())),
        ),
    };
    claimed.keep_alive(lease_ms);
    // A lost lease stops the run as Ctrl-C does: the next write would be refused anyway.
    let lost = claimed.lost();
    let stop = interrupt.cancel.clone();
    let link = tokio::spawn(async move {
        lost.cancelled().await;
        stop.cancel();
    });
    let mut driver = Driver {
        ui,
        auto,
        interrupt,
        journal: Some(claimed.journal()),
    };
    let ended = driver.drive(&mut session, start).await;
    link.abort();
    let ui = driver.ui;
    if claimed.lost().is_cancelled() {
        let settled = Settled::Lost;
        ui.finished(&RunOutcome::Failed {
            message: settled.describe(),
        });
        return settled;
    }
    let written = match ended {
        Ended::Completed {
            output,
            structured_output,
            usage,
        } => {
            let written = claimed
                .finish(output.clone(), structured_output.clone(), usage)
                .await;
            ui.finished(&RunOutcome::Completed {
                output,
                structured_output,
                usage,
            });
            written.map(|()| Settled::Finished)
        }
        Ended::Failed { message } => {
            let written = claimed.fail(message.clone(), session_usage(&session)).await;
            ui.finished(&RunOutcome::Failed {
                message: message.clone(),
            });
            written.map(|()| Settled::Failed(message))
        }
        Ended::Waiting {
            usage,
            answered,
            given,
        } => {
            let written = wait(&claimed, &session, &redactor, usage, given).await;
            ui.finished(&RunOutcome::Waiting {
                pending: session.pending().to_vec(),
                saved_to: None,
                usage,
                answered,
            });
            written.map(|()| Settled::Waiting)
        }
        Ended::Cancelled => {
            let written = match on_cancel {
                OnCancel::Release => claimed.release().await.map(|()| Settled::Released),
                OnCancel::Cancel => claimed
                    .store()
                    .cancel(&claimed.run().id)
                    .await
                    .map(|()| Settled::Cancelled),
            };
            ui.finished(&RunOutcome::Cancelled { saved_to: None });
            written
        }
    };
    match written {
        Ok(settled) => settled,
        Err(StoreError::LeaseLost { .. }) => Settled::Lost,
        Err(error) => {
            let message = error.to_string();
            let _ = writeln!(std::io::stderr().lock(), "error: {message}");
            Settled::Unrecorded(message)
        }
    }
}

/// Stores the waiting session (secrets masked) and the answers given to some of its calls.
async fn wait(
    claimed: &ClaimedRun,
    session: &AgentSession,
    redactor: &Redactor,
    usage: starweaver_core::model::Usage,
    given: AgentHitlResults,
) -> Result<(), StoreError> {
    let state = masked(session.export_state(), redactor)?;
    claimed.wait(state, usage).await?;
    if given.interactions.is_empty() && given.deferred_results.is_empty() {
        return Ok(());
    }
    claimed
        .store()
        .answer(&claimed.run().id, given)
        .await
        .map(|_| ())
}

/// The state with every secret value masked: the store never holds a secret, so a state that
/// cannot be masked is not stored.
fn masked(state: AgentSessionState, redactor: &Redactor) -> Result<AgentSessionState, StoreError> {
    let unmaskable = |error: serde_json::Error| StoreError::Backend {
        message: format!("the waiting session could not be masked for the store: {error}"),
    };
    let mut value = serde_json::to_value(&state).map_err(unmaskable)?;
    redactor.json(&mut value);
    serde_json::from_value(value).map_err(unmaskable)
}

/// What a failed run used, as far as the session knows.
fn session_usage(session: &AgentSession) -> starweaver_core::model::Usage {
    session.context().usage
}
