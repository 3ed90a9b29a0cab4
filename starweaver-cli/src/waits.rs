//! What a pending call waits for from a person, in the words every view uses: `run`'s plain
//! and terminal output, `check --explain` and `tools` all say "waits for approval" and "waits
//! for answers" (a test holds them to it), and the flag that answers the call on a resume.

use starweaver_core::agent::{AgentHitlRequest, AgentHitlRequestKind};

use starweaver_core::bundles::CLARIFYING_QUESTIONS_REQUEST_KIND;

/// What a pending call waits for, and the flag that answers it without a terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waits {
    /// A tool approval: `--yes`.
    Approval,
    /// A clarifying question: `--answer ID=TEXT`.
    Answers,
    /// A deferred call's result: `--result ID=JSON`.
    Result,
}

impl Waits {
    /// What `request` waits for.
    #[must_use]
    pub fn of(request: &AgentHitlRequest) -> Self {
        match request.kind {
            AgentHitlRequestKind::Deferred => Self::Result,
            AgentHitlRequestKind::Approval
                if request.request_kind() == CLARIFYING_QUESTIONS_REQUEST_KIND =>
            {
                Self::Answers
            }
            AgentHitlRequestKind::Approval => Self::Approval,
        }
    }

    /// What the call of a control-flow return waits for (`None`: it waits for nothing).
    #[must_use]
    pub fn of_return(part: &starweaver_core::model::ToolReturnPart) -> Option<Self> {
        let asks = part
            .metadata
            .get("request")
            .and_then(|request| request.get("kind"))
            .and_then(serde_json::Value::as_str)
            == Some(CLARIFYING_QUESTIONS_REQUEST_KIND);
        match part.kind {
            starweaver_core::model::ToolReturnKind::ApprovalRequired if asks => Some(Self::Answers),
            starweaver_core::model::ToolReturnKind::ApprovalRequired => Some(Self::Approval),
            starweaver_core::model::ToolReturnKind::Deferred => Some(Self::Result),
            _ => None,
        }
    }

    /// The words every UI uses for it: `waits for approval`, `waits for answers`, `waits for
    /// a deferred result` (the same words as `check --explain` and `tools`).
    #[must_use]
    pub fn words(self) -> &'static str {
        match self {
            Self::Approval => "waits for approval",
            Self::Answers => "waits for answers",
            Self::Result => "waits for a deferred result",
        }
    }

    /// How to answer call `id` on the command line when resuming.
    #[must_use]
    pub fn flag(self, id: &str) -> String {
        match self {
            Self::Approval => "--yes".to_string(),
            Self::Answers => format!("--answer {id}=TEXT"),
            Self::Result => format!("--result {id}=JSON"),
        }
    }
}

/// The tool a pending call runs, as every view names it: `deploy`, or `deploy (in release ›
/// deployer)` for a call a sub-agent made, so the person answering knows whose call it is.
#[must_use]
pub fn requested_tool(request: &AgentHitlRequest) -> String {
    if request.agent.is_empty() {
        return request.tool_name.clone();
    }
    format!("{} (in {})", request.tool_name, agent_path(&request.agent))
}

/// An agent path as views show it: `release › deployer`.
#[must_use]
pub fn agent_path(agent: &[String]) -> String {
    agent.join(" › ")
}
