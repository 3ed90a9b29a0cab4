//! Distinct tool-call ids within one model response.

use crate::model::ModelResponse;

/// Gives every call of a response a distinct, non-empty id, so each
/// return (and each human answer) lands on its own call. The first call
/// with an id keeps it; an empty id becomes `call_<step>_<index>`; a
/// repeat becomes `<id>#<n>` with the smallest free `n` from 2, skipping
/// every id the model sent itself (a literal `a#2` keeps its id and its
/// return). Linear in the number of calls: each base remembers its next
/// suffix, so a response with many repeats does not probe from 2 again.
pub(super) fn unique_call_ids(response: &mut ModelResponse, step: u32) {
    if already_unique(response) {
        return;
    }
    let mut ids = CallIds::new(response.calls().map(|call| call.id.as_str()));
    for (index, part) in response.parts.iter_mut().enumerate() {
        if let crate::model::ResponsePart::ToolCall(call) = part {
            call.id = ids.assign(std::mem::take(&mut call.id), step, index);
        }
    }
}

/// Most responses: a few calls, each with its own non-empty id, which
/// [`unique_call_ids`] would keep as they are. Checked without allocating
/// for up to 16 calls (pairwise; more go the general way).
fn already_unique(response: &ModelResponse) -> bool {
    let count = response.calls().count();
    count <= 16
        && response.calls().enumerate().all(|(index, call)| {
            !call.id.is_empty()
                && response
                    .calls()
                    .take(index)
                    .all(|earlier| earlier.id != call.id)
        })
}

/// The id bookkeeping of [`unique_call_ids`] for one response.
struct CallIds {
    /// Every non-empty id the model sent: generated ids never take one.
    sent: std::collections::HashSet<String>,
    /// Ids given out so far.
    used: std::collections::HashSet<String>,
    /// Per base id, the next suffix to try.
    next_suffix: std::collections::HashMap<String, u64>,
    /// Candidate ids looked at; the work done, for tests.
    probes: usize,
}

impl CallIds {
    fn new<'i>(sent: impl Iterator<Item = &'i str>) -> Self {
        Self {
            sent: sent
                .filter(|id| !id.is_empty())
                .map(str::to_string)
                .collect(),
            used: std::collections::HashSet::new(),
            next_suffix: std::collections::HashMap::new(),
            probes: 0,
        }
    }

    /// The id for the call at `index` that the model sent as `id`.
    fn assign(&mut self, id: String, step: u32, index: usize) -> String {
        let (base, from_model) = if id.is_empty() {
            (format!("call_{step}_{index}"), false)
        } else {
            (id, true)
        };
        self.probes += 1;
        // A generated `call_<step>_<index>` must not take an id the model sent.
        let free = !self.used.contains(&base) && (from_model || !self.sent.contains(&base));
        if free {
            self.used.insert(base.clone());
            return base;
        }
        let suffix = self.next_suffix.entry(base.clone()).or_insert(2);
        loop {
            let candidate = format!("{base}#{suffix}");
            *suffix += 1;
            self.probes += 1;
            // Each candidate is tried once per base and suffixes only grow,
            // so failed probes are bounded by the ids sent and given out.
            if !self.sent.contains(&candidate) && !self.used.contains(&candidate) {
                self.used.insert(candidate.clone());
                return candidate;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::{unique_call_ids, CallIds};
    use crate::model::{ModelResponse, ToolCallPart};

    fn response(ids: &[&str]) -> ModelResponse {
        ModelResponse::tool_calls(ids.iter().map(|id| ToolCallPart::new(*id, "t", json!({}))))
    }

    fn ids(response: &ModelResponse) -> Vec<String> {
        response.calls().map(|call| call.id.clone()).collect()
    }

    #[test]
    fn distinct_ids_the_model_sent_are_kept_as_they_are() {
        let mut sent = response(&["a", "b", "c"]);
        assert!(super::already_unique(&sent));
        unique_call_ids(&mut sent, 1);
        assert_eq!(ids(&sent), ["a", "b", "c"]);
        assert!(!super::already_unique(&response(&["a", "a"])));
        assert!(!super::already_unique(&response(&["a", ""])));
    }

    #[test]
    fn repeats_get_numbered_and_empty_ids_get_positions() {
        let mut sent = response(&["dup", "", "dup", "dup", "x"]);
        unique_call_ids(&mut sent, 3);
        assert_eq!(ids(&sent), ["dup", "call_3_1", "dup#2", "dup#3", "x"]);
    }

    // A repeat of `a` was renamed `a#2`, the id of another call the model sent.
    #[test]
    fn generated_ids_skip_the_ids_the_model_sent() {
        let mut sent = response(&["a", "a", "a#2"]);
        unique_call_ids(&mut sent, 1);
        let got = ids(&sent);
        assert_eq!(got, ["a", "a#3", "a#2"]);
        let mut sent = response(&["", "call_1_0"]);
        unique_call_ids(&mut sent, 1);
        assert_eq!(ids(&sent), ["call_1_0#2", "call_1_0"]);
    }

    // Every repeat probed `base#2`, `base#3`, ... again: quadratic work.
    #[test]
    fn renaming_repeats_is_linear_in_the_calls() {
        let calls = 10_000;
        let mut ids = CallIds::new(["a", "a#5", "a#7"].into_iter());
        for index in 0..calls {
            ids.assign("a".to_string(), 1, index);
        }
        // One probe per call plus one per id that was already taken.
        assert!(ids.probes <= 2 * calls + 3, "{} probes", ids.probes);
    }

    // 200,000 repeats of one id took the old renaming hours.
    #[test]
    fn a_response_of_many_repeats_is_renamed_quickly() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut sent = ModelResponse::tool_calls(
                (0..200_000).map(|_| ToolCallPart::new("a", "t", json!({}))),
            );
            unique_call_ids(&mut sent, 1);
            let distinct: std::collections::HashSet<String> = ids(&sent).into_iter().collect();
            let _ = done.send(distinct.len());
        });
        // Generous: this takes well under a second; the quadratic version
        // would run for hours.
        let distinct = finished.recv_timeout(Duration::from_secs(120));
        assert_eq!(distinct, Ok(200_000));
    }
}
