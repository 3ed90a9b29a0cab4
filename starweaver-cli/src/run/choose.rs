//! Which UI watches the run: JSON lines, the terminal UI, or plain lines.

use std::io::IsTerminal as _;

use crate::json::JsonUi;
use crate::mask::Redactor;
use crate::plain::PlainUi;
use crate::terminal::{color_enabled, TerminalOptions, TerminalUi};
use crate::ui::RunUi;

/// What every UI needs to know about the command line.
#[derive(Clone, Debug, Default)]
pub struct UiSettings {
    /// `--yes` was given: tool approvals are answered already; what reaches the UI is a
    /// clarifying question or a deferred call.
    pub yes: bool,
    /// `--save` or `--resume` was given: approvals and questions nobody can answer here stay
    /// pending (to be answered with `--resume`) instead of being denied. A resume keeps them
    /// pending with or without `--save`, so `--save` never changes what a resume does.
    pub keep_pending: bool,
    /// Masks secret variable values in everything shown.
    pub redactor: Redactor,
    /// The run's Ctrl-C: a UI that reads the keyboard itself (a terminal prompt takes Ctrl-C
    /// as a key) fires it, so Ctrl-C at a prompt cancels the run as it does anywhere else.
    pub interrupt: tokio_util::sync::CancellationToken,
}

/// The UI for this run: `--json` lines; the terminal UI when standard input and output are
/// both terminals; plain lines otherwise.
pub fn choose_ui(json: bool, settings: UiSettings) -> Box<dyn RunUi> {
    if json {
        return Box::new(JsonUi::new(Box::new(std::io::stdout()), settings));
    }
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let options = TerminalOptions {
            color: color_enabled(),
            yes: settings.yes,
        };
        return Box::new(
            TerminalUi::new(options)
                .with_redactor(settings.redactor)
                .with_interrupt(settings.interrupt),
        );
    }
    Box::new(PlainUi::stdout(settings))
}
