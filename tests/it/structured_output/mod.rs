//! Structured output: the output tool offered beside the agent's tools on every request,
//! answers validated against the schema and retried, the run failing with the errors and no
//! further request, typed runs, manifests' `output:` and its `check` rules, and the command
//! line's `run_finished.output`, and the run store keeping the object.

mod check;
mod cli;
mod runtime;
mod stored;
