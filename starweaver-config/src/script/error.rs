//! `ScriptError`: why a script could not be read, where, and how to fix it.

/// A script that cannot be played: unreadable, or not a list of well-formed turns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScriptError {
    /// The file could not be read (missing, not a regular file, too large).
    #[error("cannot read the script `{script}`: {reason}; {help}")]
    Read {
        /// The script as its host named it.
        script: String,
        /// Why.
        reason: String,
        /// How to fix it.
        help: String,
    },
    /// The text is not YAML, or a turn is malformed. Only the first problem is given; `starweaver
    /// check` reports them all.
    #[error("the script `{script}` at {line}:{column}{place}: {message}; {help}", place = in_turn(*.turn))]
    Invalid {
        /// The script as its host named it.
        script: String,
        /// 1-based line in the script.
        line: usize,
        /// 1-based column in the script.
        column: usize,
        /// The 1-based turn, when the problem is in one.
        turn: Option<usize>,
        /// What is wrong.
        message: String,
        /// How to fix it.
        help: String,
    },
}

/// ` (turn N)`, or nothing.
fn in_turn(turn: Option<usize>) -> String {
    turn.map(|turn| format!(" (turn {turn})"))
        .unwrap_or_default()
}
