//! A run as a store keeps it: who it is for, what it was asked, where it stands.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agent::{AgentHitlResults, AgentSessionState};
use crate::context::RunId;
use crate::model::Usage;

use super::StoreError;

/// Where a run stands. Only `queued`, `running` and `waiting` runs can still change; the
/// other three are final.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Waiting for a worker to claim it.
    Queued,
    /// A worker holds it under a lease.
    Running,
    /// Paused for approvals, answers or deferred results; anyone may answer.
    Waiting,
    /// Answered.
    Finished,
    /// Ended with an error.
    Failed,
    /// Cancelled before it ended.
    Cancelled,
}

impl RunStatus {
    /// The name stores and command-line output use.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Waiting => "waiting",
            Self::Finished => "finished",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// The status named `name`, as [`Self::as_str`] writes it.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        [
            Self::Queued,
            Self::Running,
            Self::Waiting,
            Self::Finished,
            Self::Failed,
            Self::Cancelled,
        ]
        .into_iter()
        .find(|status| status.as_str() == name)
    }

    /// Whether nothing changes a run in this status any more.
    #[must_use]
    pub fn is_final(self) -> bool {
        matches!(self, Self::Finished | Self::Failed | Self::Cancelled)
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A run to create. The caller masks secret vars before they reach a store: a store keeps
/// what it is given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NewRun {
    /// The run's id.
    pub id: RunId,
    /// The agent (manifest `name`) that runs it.
    pub agent: String,
    /// A digest of the manifest it was submitted with, so a worker can tell a changed one.
    pub manifest_digest: String,
    /// The prompt.
    pub prompt: String,
    /// Template variables, secrets already masked.
    pub vars: BTreeMap<String, String>,
}

impl NewRun {
    /// A run of `agent` on `prompt`, with a fresh id, no digest and no vars.
    #[must_use]
    pub fn new(agent: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            id: RunId::default(),
            agent: agent.into(),
            manifest_digest: String::new(),
            prompt: prompt.into(),
            vars: BTreeMap::new(),
        }
    }

    /// With this id.
    #[must_use]
    pub fn with_id(mut self, id: RunId) -> Self {
        self.id = id;
        self
    }

    /// With the digest of its manifest.
    #[must_use]
    pub fn with_manifest_digest(mut self, digest: impl Into<String>) -> Self {
        self.manifest_digest = digest.into();
        self
    }

    /// With its (masked) template variables.
    #[must_use]
    pub fn with_vars(mut self, vars: BTreeMap<String, String>) -> Self {
        self.vars = vars;
        self
    }
}

/// A run as stored. Times are milliseconds since the Unix epoch, as the store's clock read
/// them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredRun {
    /// The run's id.
    pub id: RunId,
    /// The agent that runs it.
    pub agent: String,
    /// The digest of the manifest it was submitted with.
    pub manifest_digest: String,
    /// Where it stands.
    pub status: RunStatus,
    /// The prompt.
    pub prompt: String,
    /// Template variables, secrets masked.
    pub vars: BTreeMap<String, String>,
    /// When it was created.
    pub created_at: u64,
    /// When it last changed.
    pub updated_at: u64,
    /// The session to continue, while it waits (and once answered, until a worker takes it
    /// further).
    pub waiting: Option<AgentSessionState>,
    /// Answers given so far for the calls it waits for.
    pub answers: AgentHitlResults,
    /// The answer, once finished: the model's final text.
    pub output: Option<String>,
    /// The validated answer of an agent with an output schema, once finished; `None` for a
    /// text answer.
    #[serde(default)]
    pub structured_output: Option<serde_json::Value>,
    /// What it used, once it ended.
    pub usage: Option<Usage>,
    /// Why it failed.
    pub error: Option<String>,
}

impl StoredRun {
    /// A new run as created at `now`: queued, nothing else yet.
    #[must_use]
    pub fn created(run: NewRun, now: u64) -> Self {
        Self {
            id: run.id,
            agent: run.agent,
            manifest_digest: run.manifest_digest,
            status: RunStatus::Queued,
            prompt: run.prompt,
            vars: run.vars,
            created_at: now,
            updated_at: now,
            waiting: None,
            answers: AgentHitlResults::default(),
            output: None,
            structured_output: None,
            usage: None,
            error: None,
        }
    }
}

impl StoredRun {
    /// Takes `answers` for the calls this waiting run waits for (replacing earlier answers for
    /// the same calls), and queues it once every pending call has one: the rule every store
    /// applies in [`super::RunStore::answer`].
    ///
    /// # Errors
    /// [`StoreError::WrongStatus`] when the run does not wait, [`StoreError::UnknownCall`] for
    /// an answer to a call it does not wait for; the run is unchanged then.
    pub fn take_answers(&mut self, answers: AgentHitlResults) -> Result<(), StoreError> {
        let refused = || StoreError::WrongStatus {
            run: self.id.clone(),
            status: self.status,
            action: "answered",
        };
        if self.status != RunStatus::Waiting {
            return Err(refused());
        }
        let Some(waiting) = &self.waiting else {
            return Err(refused());
        };
        let pending = waiting.pending();
        let waits_for = |call: &str| pending.iter().any(|request| request.tool_call_id == call);
        let named = answers
            .interactions
            .keys()
            .chain(answers.deferred_results.keys());
        for call in named {
            if !waits_for(call) {
                return Err(StoreError::UnknownCall {
                    run: self.id.clone(),
                    call: call.clone(),
                });
            }
        }
        self.answers.interactions.extend(answers.interactions);
        self.answers
            .deferred_results
            .extend(answers.deferred_results);
        let answered = |call: &str| {
            self.answers.interactions.contains_key(call)
                || self.answers.deferred_results.contains_key(call)
        };
        if pending
            .iter()
            .all(|request| answered(&request.tool_call_id))
        {
            self.status = RunStatus::Queued;
        }
        Ok(())
    }
}
