//! What a run shows and asks, whoever watches it: a person at a terminal, a pipe, or a machine
//! reading `--json`. The run command drives the session and hands every record and every
//! waiting state to one [`RunUi`]; the UI never touches the session.

use std::path::PathBuf;

use starweaver_core::agent::{
    AgentHitlRequest, AgentHitlUserInteraction, AgentStreamEvent, AgentStreamRecord,
};
use starweaver_core::context::ContextEventKind;
use starweaver_core::model::Usage;

/// What the UI decided for the calls a waiting run needs. A call named in neither list stays
/// pending: the run stops waiting (saved when `--save` is given) and exits with status 3.
#[derive(Clone, Debug, Default)]
pub struct Answers {
    /// Approvals, denials (with a reason) and answered clarifying questions, by call.
    pub interactions: Vec<AgentHitlUserInteraction>,
    /// Calls the UI could not answer (a deferred call, or nobody at a terminal to ask), with
    /// why, so the run can say so.
    pub left_pending: Vec<(String, String)>,
}

/// How a run ended, for the UI's last words.
#[derive(Clone, Debug)]
pub enum RunOutcome {
    /// The model gave its final answer.
    Completed {
        /// The answer.
        output: String,
        /// The answer the output tool accepted, validated against the agent's output schema
        /// (`output:` in the manifest); `None` for an answer in text.
        structured_output: Option<serde_json::Value>,
        /// Requests, tokens and tool calls of the whole run.
        usage: Usage,
    },
    /// Calls are still pending (deferred work, or approvals nobody gave).
    Waiting {
        /// The pending calls.
        pending: Vec<AgentHitlRequest>,
        /// Where the waiting run was saved, when `--save` was given.
        saved_to: Option<PathBuf>,
        /// Usage so far.
        usage: Usage,
        /// Pending calls that were answered but did not run, because others of the same step
        /// were not: they run once every call is answered (a save file keeps their answers for the next resume).
        answered: Vec<String>,
    },
    /// The run failed; the message says what and how to fix it.
    Failed {
        /// The error, as the user should read it.
        message: String,
    },
    /// Ctrl-C stopped the run; its processes were killed.
    Cancelled {
        /// Where the run was saved, when `--save` was given.
        saved_to: Option<PathBuf>,
    },
}

/// The watcher of a run. Implementations: the terminal UI (live progress, prompts), the plain UI
/// (no terminal: lines of text, approvals denied unless `--yes`), and the JSON UI (one JSON
/// record per line).
pub trait RunUi: Send + Sync {
    /// A run record, as it happens.
    fn record(&mut self, record: &AgentStreamRecord);

    /// Answers for a waiting run's calls (called once per waiting state).
    fn answer(&mut self, pending: &[AgentHitlRequest]) -> Answers;

    /// The run ended.
    fn finished(&mut self, outcome: &RunOutcome);

    /// Why the output could not be written (a closed pipe, a full disk), if it could not: the
    /// run then does not exit 0, since nobody saw its answer.
    fn output_failed(&self) -> Option<String> {
        None
    }
}

/// The whole message of a toolset that could not be set up (`toolset_failed`,
/// `toolset_unavailable`), for standard error: a server that exited at startup says how it
/// ended and the end of its stderr, which a shortened record line would cut. Not yet masked.
pub(crate) fn toolset_problem(event: &AgentStreamEvent) -> Option<String> {
    let AgentStreamEvent::Custom { event } = event else {
        return None;
    };
    let what = match event.kind {
        ContextEventKind::ToolsetFailed => "could not be set up",
        ContextEventKind::ToolsetUnavailable => "is unavailable",
        _ => return None,
    };
    let toolset = event.payload.get("toolset")?.as_str()?;
    let mut text = format!("warning: toolset `{toolset}` {what}, its tools are not offered");
    if let Some(error) = event.payload.get("error").and_then(|error| error.as_str()) {
        text.push_str(": ");
        text.push_str(error);
    }
    Some(text)
}

/// The answer as the plain and terminal UIs print it: the structured answer as pretty JSON
/// when there is one, else the text.
pub(crate) fn answer_text(output: &str, structured: Option<&serde_json::Value>) -> String {
    structured
        .and_then(|value| serde_json::to_string_pretty(value).ok())
        .unwrap_or_else(|| output.to_string())
}
