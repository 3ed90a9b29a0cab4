//! The host signal for each [`ProcessSignal`].

use nix::sys::signal::Signal;

use crate::environment::ProcessSignal;

/// The Unix signal `signal` names.
pub(super) fn host_signal(signal: ProcessSignal) -> Signal {
    match signal {
        ProcessSignal::Int => Signal::SIGINT,
        ProcessSignal::Term => Signal::SIGTERM,
        ProcessSignal::Kill => Signal::SIGKILL,
        ProcessSignal::Hup => Signal::SIGHUP,
        ProcessSignal::Quit => Signal::SIGQUIT,
        ProcessSignal::Usr1 => Signal::SIGUSR1,
        ProcessSignal::Usr2 => Signal::SIGUSR2,
        ProcessSignal::Stop => Signal::SIGSTOP,
        ProcessSignal::Cont => Signal::SIGCONT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signal_maps_to_the_one_it_names() {
        for signal in ProcessSignal::ALL {
            let host = host_signal(signal);
            assert_eq!(host.as_str(), format!("SIG{}", signal.name()));
        }
    }
}
