//! Asking the client's user to approve one call, through MCP elicitation.

use std::collections::BTreeMap;

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, Peer};
use rmcp::RoleServer;
use serde_json::Value;

/// How much of the arguments the question shows; the rest is elided.
const MAX_SHOWN_ARGUMENT_BYTES: usize = 2 * 1024;

/// What the client's user said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Yes: the call runs.
    Approved,
    /// No, or the question was dismissed or failed: the message says which.
    Refused(String),
    /// The client cannot be asked (it declared no form elicitation).
    CannotAsk,
}

/// Whether `peer` declared the form elicitation the question needs.
pub(crate) fn can_ask(peer: &Peer<RoleServer>) -> bool {
    peer.supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
}

/// Asks the client's user whether `tool` may run with `arguments`. Accepting the form
/// approves; declining, dismissing, or a failed request refuses.
pub(crate) async fn ask(peer: &Peer<RoleServer>, tool: &str, arguments: &Value) -> Decision {
    if !can_ask(peer) {
        return Decision::CannotAsk;
    }
    let message = format!(
        "Allow the tool `{tool}` to run with these arguments?\n{}",
        shown(arguments)
    );
    let request = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: ElicitationSchema::new(BTreeMap::new()),
    };
    match peer.create_elicitation(request).await {
        Ok(result) => match result.action {
            ElicitationAction::Accept => Decision::Approved,
            ElicitationAction::Decline => {
                Decision::Refused(format!("the user declined to run `{tool}`"))
            }
            // Cancel, and any answer a later protocol adds: not a yes.
            _ => Decision::Refused(format!(
                "the user dismissed the approval of `{tool}`; it did not run"
            )),
        },
        Err(error) => Decision::Refused(format!(
            "`{tool}` needs approval and asking the client failed ({error}); it did not run"
        )),
    }
}

/// The arguments as compact JSON, cut at a character boundary past the limit.
fn shown(arguments: &Value) -> String {
    let mut text = arguments.to_string();
    if text.len() > MAX_SHOWN_ARGUMENT_BYTES {
        let mut cut = MAX_SHOWN_ARGUMENT_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str(" …");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_arguments_are_cut_on_a_character_boundary() {
        let long = Value::from("é".repeat(MAX_SHOWN_ARGUMENT_BYTES));
        let text = shown(&long);
        assert!(text.len() <= MAX_SHOWN_ARGUMENT_BYTES + " …".len());
        assert!(text.ends_with(" …"));
        assert_eq!(shown(&serde_json::json!({"a": 1})), r#"{"a":1}"#);
    }
}
