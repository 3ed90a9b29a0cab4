//! Signals a caller may send to a background process.

use serde::{Deserialize, Serialize};

/// A signal for [`super::ProcessShellProvider::signal`], sent to the
/// process's whole group (Unix only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
#[non_exhaustive]
pub enum ProcessSignal {
    /// `SIGINT`: interrupt, as Ctrl-C.
    Int,
    /// `SIGTERM`: ask to terminate.
    Term,
    /// `SIGKILL`: end at once.
    Kill,
    /// `SIGHUP`: hang up (many servers reload).
    Hup,
    /// `SIGQUIT`: quit.
    Quit,
    /// `SIGUSR1`.
    Usr1,
    /// `SIGUSR2`.
    Usr2,
    /// `SIGSTOP`: pause.
    Stop,
    /// `SIGCONT`: resume after a stop.
    Cont,
}

impl ProcessSignal {
    /// Every signal, for schemas and messages.
    pub const ALL: [Self; 9] = [
        Self::Int,
        Self::Term,
        Self::Kill,
        Self::Hup,
        Self::Quit,
        Self::Usr1,
        Self::Usr2,
        Self::Stop,
        Self::Cont,
    ];

    /// The name without `SIG` (`"TERM"`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Int => "INT",
            Self::Term => "TERM",
            Self::Kill => "KILL",
            Self::Hup => "HUP",
            Self::Quit => "QUIT",
            Self::Usr1 => "USR1",
            Self::Usr2 => "USR2",
            Self::Stop => "STOP",
            Self::Cont => "CONT",
        }
    }

    /// Parses `TERM`, `SIGTERM` or `term`.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        let upper = name.trim().to_ascii_uppercase();
        let bare = upper.strip_prefix("SIG").unwrap_or(&upper);
        Self::ALL.into_iter().find(|signal| signal.name() == bare)
    }
}
