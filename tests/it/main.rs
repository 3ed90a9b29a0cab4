//! The integration tests, one binary, one module per behaviour.
//!
//! Each module is named after what it tests (the registry, toolsets, the
//! tool proxy, tool search, approvals, runs, sessions, the filesystem
//! bundle, skills, ...); `common` holds the helpers they share. Tests that
//! pin a defect found in review carry a one-line `Regression:` comment
//! saying what broke. The examples of the Tools chapter are a separate
//! binary, `tests/spec_examples/`.
//!
//! Run one area with a filter: `cargo test --test it proxy::`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agents_dir;
mod agents_example;
mod approval;
mod architecture;
mod boundaries;
mod bounded_inputs;
mod catalog;
mod check_cli;
mod cli_library;
mod cli_quality;
mod common;
mod context_events;
mod docs;
mod environment;
mod failed_runs;
mod filesystem;
mod hitl;
mod labels;
mod lifecycle;
mod local_environment;
mod local_processes;
mod loopback_server;
mod manifest_reference;
mod mcp;
mod mcp_serve;
mod network_guard;
mod providers;
mod proxy;
mod registry;
mod run_cli;
mod run_store;
mod run_terminal;
mod runs;
mod sandbox;
mod scheduling;
mod schema_compat;
mod search;
mod sessions;
mod shell_tools;
mod skills;
mod structured_output;
mod sub_agents;
mod tool_macro;
mod tool_search;
mod tools_cli;
mod toolsets;
mod user_input;
mod workers;
