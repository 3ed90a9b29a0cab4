//! The examples of the Tools chapter (`tools.md`), as tests: each is
//! copied from the spec with only the path mapping of `design.md`
//! applied (`starweaver_agent::X` -> `starweaver::X`, and so on; each
//! module spells out its mapping).
//!
//! - `tools`: the examples that belong to the tool layer;
//! - `agent`: the examples that need agents and sessions;
//! - `skills`: the "Fileops-loaded skills" examples;
//! - `shell`: the "Process-capable shell providers" examples.
//!
//! The behaviour tests are the other binary, `tests/it/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent;
mod shell;
mod skills;
mod tools;
