//! The UI of runs a worker drives: nobody watches and nobody answers, so what a run waits for
//! stays pending in the store, for `starweaver runs approve` / `answer` from anywhere.

use starweaver_core::agent::{AgentHitlRequest, AgentStreamRecord};

use crate::ui::{Answers, RunOutcome, RunUi};

/// Shows nothing and answers nothing.
#[derive(Debug, Default)]
pub(crate) struct QuietUi;

impl RunUi for QuietUi {
    fn record(&mut self, _record: &AgentStreamRecord) {}

    fn answer(&mut self, pending: &[AgentHitlRequest]) -> Answers {
        Answers {
            interactions: Vec::new(),
            left_pending: pending
                .iter()
                .map(|request| {
                    (
                        request.tool_call_id.clone(),
                        "a worker has nobody to ask; answer it with `starweaver runs`".to_string(),
                    )
                })
                .collect(),
        }
    }

    fn finished(&mut self, _outcome: &RunOutcome) {}
}
