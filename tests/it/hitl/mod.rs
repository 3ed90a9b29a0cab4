//! Human-in-the-loop runs: approvals, deferred calls and resumes.

mod approvals;
mod deferred;
mod edited;
mod restore;
