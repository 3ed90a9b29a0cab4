//! Signal numbers and default dispositions in the simulation.

use crate::environment::ProcessSignal;

/// The number reported for `signal`: the Linux numbering on every host,
/// so simulated results do not depend on where tests run.
pub(super) fn number(signal: ProcessSignal) -> i32 {
    match signal {
        ProcessSignal::Hup => 1,
        ProcessSignal::Int => 2,
        ProcessSignal::Quit => 3,
        ProcessSignal::Kill => 9,
        ProcessSignal::Usr1 => 10,
        ProcessSignal::Usr2 => 12,
        ProcessSignal::Term => 15,
        ProcessSignal::Cont => 18,
        ProcessSignal::Stop => 19,
    }
}

/// `SIGTERM`'s number: what timeouts and kills end a process with.
pub(super) const TERM: i32 = 15;
/// `SIGKILL`'s number: what ends a stopped process at a timeout or kill
/// (a stopped process holds `TERM` until it resumes).
pub(super) const KILL: i32 = 9;
