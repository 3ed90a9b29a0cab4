//! Background processes on a virtual clock. Time moves only when a
//! caller waits (`wait`, a foreground `sleep`), never on its own, so
//! every result is the same on every run.

use std::collections::BTreeMap;

use super::plan::{Next, Start};
use super::signal::{number, KILL, TERM};
use super::stream::Stream;
use crate::bounds::echo;
use crate::environment::{
    EnvironmentError, ProcessOutput, ProcessSignal, ProcessSnapshot, ProcessStatus,
};

/// How a process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct End {
    status: ProcessStatus,
    exit_code: Option<i32>,
    signal: Option<i32>,
    /// Virtual time of the end.
    at: u64,
}

/// What a stopped process was doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Paused {
    Sleeping { remaining: u64 },
    Reading,
}

/// Where a process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    /// Sleeping until this virtual time.
    Sleeping {
        ends_at: u64,
    },
    /// Copying input to output until its input closes.
    Reading,
    /// Stopped by `STOP`, until `CONT`.
    Stopped(Paused),
    Ended(End),
}

/// One background process.
#[derive(Debug)]
struct Process {
    id: String,
    command: String,
    started_at: u64,
    /// Its time limit, as a virtual time, when it was given one.
    deadline: Option<u64>,
    life: Life,
    stdout: Stream,
    stderr: Stream,
    /// Input written while stopped, copied out on `CONT`.
    held: Stream,
    input_closed: bool,
    /// A terminating signal sent while stopped, delivered on `CONT`.
    pending_signal: Option<ProcessSignal>,
}

impl Process {
    fn end(&mut self, status: ProcessStatus, exit_code: Option<i32>, signal: Option<i32>, at: u64) {
        self.life = Life::Ended(End {
            status,
            exit_code,
            signal,
            at,
        });
    }

    fn is_running(&self) -> bool {
        !matches!(self.life, Life::Ended(_))
    }

    fn is_stopped(&self) -> bool {
        matches!(self.life, Life::Stopped(_))
    }

    /// Ends the process if its sleep or its time limit fell due by `now`,
    /// whichever came first.
    fn settle(&mut self, now: u64) {
        let sleep_end = match self.life {
            Life::Sleeping { ends_at } => Some(ends_at),
            Life::Ended(_) => return,
            _ => None,
        };
        match (sleep_end, self.deadline) {
            (Some(end), deadline) if end <= now && deadline.is_none_or(|limit| end <= limit) => {
                self.end(ProcessStatus::Exited, Some(0), None, end);
            }
            (_, Some(limit)) if limit <= now => {
                let signal = if self.is_stopped() { KILL } else { TERM };
                self.end(ProcessStatus::TimedOut, None, Some(signal), limit);
            }
            _ => {}
        }
    }

    /// The next virtual time at which the process changes by itself.
    fn next_event(&self) -> Option<u64> {
        let sleep_end = match self.life {
            Life::Sleeping { ends_at } => Some(ends_at),
            Life::Ended(_) => return None,
            _ => None,
        };
        match (sleep_end, self.deadline) {
            (Some(end), Some(limit)) => Some(end.min(limit)),
            (end, limit) => end.or(limit),
        }
    }

    fn snapshot(&self, now: u64) -> ProcessSnapshot {
        let (status, exit_code, signal, until) = match self.life {
            Life::Ended(end) => (end.status, end.exit_code, end.signal, end.at),
            _ => (ProcessStatus::Running, None, None, now),
        };
        ProcessSnapshot {
            id: self.id.clone(),
            command: self.command.clone(),
            output: ProcessOutput {
                sandbox: None,
                status,
                exit_code,
                signal,
                stdout: self.stdout.capture(),
                stderr: self.stderr.capture(),
                duration_ms: until.saturating_sub(self.started_at),
            },
        }
    }

    /// Resumes a stopped process: held input is copied out, a signal
    /// sent while stopped is delivered, closed input ends a reader.
    fn resume(&mut self, now: u64) {
        let Life::Stopped(paused) = self.life else {
            return;
        };
        self.life = match paused {
            Paused::Sleeping { remaining } => Life::Sleeping {
                ends_at: now.saturating_add(remaining),
            },
            Paused::Reading => Life::Reading,
        };
        let held = std::mem::replace(&mut self.held, Stream::new(0));
        self.stdout.append(held);
        if let Some(signal) = self.pending_signal.take() {
            self.end(ProcessStatus::Exited, None, Some(number(signal)), now);
        } else if self.life == Life::Reading && self.input_closed {
            self.end(ProcessStatus::Exited, Some(0), None, now);
        }
    }
}

/// The background processes of one provider and its clock.
#[derive(Debug, Default)]
pub(super) struct Table {
    /// Virtual milliseconds since the provider was built.
    now: u64,
    /// The number in the next id.
    next_id: u64,
    /// By start order.
    processes: BTreeMap<u64, Process>,
}

impl Table {
    /// Processes that have not ended (stopped ones included).
    pub(super) fn running(&self) -> usize {
        self.processes
            .values()
            .filter(|process| process.is_running())
            .count()
    }

    /// Moves the clock forward by `ms`, ending what falls due.
    pub(super) fn advance(&mut self, ms: u64) {
        self.advance_to(self.now.saturating_add(ms));
    }

    fn advance_to(&mut self, now: u64) {
        self.now = self.now.max(now);
        let now = self.now;
        for process in self.processes.values_mut() {
            process.settle(now);
        }
    }

    /// Registers a started command and returns its first snapshot.
    pub(super) fn insert(
        &mut self,
        command: String,
        start: Start,
        timeout_ms: Option<u64>,
        max_output_bytes: u64,
    ) -> ProcessSnapshot {
        self.next_id = self.next_id.saturating_add(1);
        let now = self.now;
        let mut process = Process {
            id: format!("proc-{}", self.next_id),
            command,
            started_at: now,
            deadline: timeout_ms.map(|ms| now.saturating_add(ms)),
            life: Life::Reading,
            stdout: start.stdout,
            stderr: start.stderr,
            held: Stream::new(max_output_bytes),
            input_closed: false,
            pending_signal: None,
        };
        match start.next {
            Next::Exit(code) => process.end(ProcessStatus::Exited, Some(code), None, now),
            Next::Sleep(ms) => {
                process.life = Life::Sleeping {
                    ends_at: now.saturating_add(ms),
                };
            }
            Next::ReadInput => {}
        }
        process.settle(now);
        let snapshot = process.snapshot(now);
        self.processes.insert(self.next_id, process);
        snapshot
    }

    fn find(&mut self, id: &str) -> Result<&mut Process, EnvironmentError> {
        self.processes
            .values_mut()
            .find(|process| process.id == id)
            .ok_or_else(|| EnvironmentError::UnknownProcess {
                id: echo(id).into_owned(),
            })
    }

    /// Waits up to `timeout_ms` of virtual time for `id` to end: the
    /// clock moves to its end, or by the whole timeout if it does not
    /// end within it.
    pub(super) fn wait(
        &mut self,
        id: &str,
        timeout_ms: u64,
    ) -> Result<ProcessSnapshot, EnvironmentError> {
        let now = self.now;
        let target = now.saturating_add(timeout_ms);
        let process = self.find(id)?;
        process.settle(now);
        if process.is_running() {
            let until = process
                .next_event()
                .map_or(target, |event| event.min(target));
            self.advance_to(until);
        }
        let now = self.now;
        Ok(self.find(id)?.snapshot(now))
    }

    /// The state of `id` now.
    pub(super) fn status(&mut self, id: &str) -> Result<ProcessSnapshot, EnvironmentError> {
        let now = self.now;
        Ok(self.find(id)?.snapshot(now))
    }

    /// Every process, oldest first.
    pub(super) fn list(&self) -> Vec<ProcessSnapshot> {
        self.processes
            .values()
            .map(|process| process.snapshot(self.now))
            .collect()
    }

    /// Writes to the input of `id`: a reader copies it out (held while
    /// stopped), a sleeper ignores it. `close` closes the input after.
    ///
    /// # Errors
    /// [`EnvironmentError::UnknownProcess`], or `Unsupported` (named
    /// `environment`) when the process has ended or its input is closed.
    pub(super) fn write_stdin(
        &mut self,
        environment: &str,
        id: &str,
        input: &[u8],
        close: bool,
    ) -> Result<ProcessSnapshot, EnvironmentError> {
        let now = self.now;
        let process = self.find(id)?;
        let closed = |why: &str| EnvironmentError::Unsupported {
            environment: environment.to_string(),
            operation: format!(
                "input to process `{}`: {why}; start a new process to send it input",
                echo(id)
            ),
        };
        if !process.is_running() {
            return Err(closed("it has already ended"));
        }
        if process.input_closed {
            return Err(closed("its input was closed"));
        }
        match process.life {
            Life::Reading => process.stdout.push(input),
            Life::Stopped(Paused::Reading) => process.held.push(input),
            _ => {}
        }
        if close {
            process.input_closed = true;
            if process.life == Life::Reading {
                process.end(ProcessStatus::Exited, Some(0), None, now);
            }
        }
        Ok(process.snapshot(now))
    }

    /// Delivers `signal` to `id`: `STOP` pauses it (its sleep stops
    /// counting), `CONT` resumes it, any other signal ends it (a stopped
    /// process holds it until `CONT`, except `KILL`). An ended process is
    /// left as it was.
    pub(super) fn signal(
        &mut self,
        id: &str,
        signal: ProcessSignal,
    ) -> Result<ProcessSnapshot, EnvironmentError> {
        let now = self.now;
        let process = self.find(id)?;
        match (signal, process.life) {
            (_, Life::Ended(_)) | (ProcessSignal::Stop, Life::Stopped(_)) => {}
            (ProcessSignal::Stop, Life::Sleeping { ends_at }) => {
                process.life = Life::Stopped(Paused::Sleeping {
                    remaining: ends_at.saturating_sub(now),
                });
            }
            (ProcessSignal::Stop, Life::Reading) => process.life = Life::Stopped(Paused::Reading),
            (ProcessSignal::Cont, Life::Stopped(_)) => process.resume(now),
            (ProcessSignal::Cont, _) => {}
            (ProcessSignal::Kill, _) => process.end(ProcessStatus::Exited, None, Some(KILL), now),
            (other, Life::Stopped(_)) => process.pending_signal = Some(other),
            (other, _) => process.end(ProcessStatus::Exited, None, Some(number(other)), now),
        }
        Ok(process.snapshot(now))
    }

    /// Stops `id` as a kill does (TERM, then KILL for a stopped process,
    /// which holds TERM).
    pub(super) fn kill(&mut self, id: &str) -> Result<ProcessSnapshot, EnvironmentError> {
        let now = self.now;
        let process = self.find(id)?;
        if process.is_running() {
            let signal = if process.is_stopped() { KILL } else { TERM };
            process.end(ProcessStatus::Killed, None, Some(signal), now);
        }
        Ok(process.snapshot(now))
    }

    /// Drops the completed processes that ended earliest beyond
    /// `retention`.
    pub(super) fn prune(&mut self, retention: usize) {
        let mut ended: Vec<(u64, u64)> = self
            .processes
            .iter()
            .filter_map(|(key, process)| match process.life {
                Life::Ended(end) => Some((end.at, *key)),
                _ => None,
            })
            .collect();
        if ended.len() <= retention {
            return;
        }
        ended.sort_unstable();
        let excess = ended.len() - retention;
        for (_, key) in ended.into_iter().take(excess) {
            self.processes.remove(&key);
        }
    }
}
