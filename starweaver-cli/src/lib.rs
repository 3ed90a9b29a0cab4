//! The Starweaver command line, as a library: every command of the `starweaver` binary, the
//! terminal UI it runs agents in, and the secret masking it applies to what it shows and saves.
//! The binary is a thin `main` over [`main`]; an application's own checker is one line over
//! [`check_main`]; a host that shows runs its own way reuses [`ui`], [`terminal`] and [`mask`].
//!
//! - [`check`]: `check`, `check --explain` and `schema`, over the manifest library's checker.
//! - [`report`]: the check's report formats (human, JSON, GitHub, SARIF).
//! - [`run`] and [`tools`]: running a manifest, and listing the tools its model would see.
//! - [`ui`], [`terminal`], [`plain`], [`json`], [`waits`]: who watches a run, and how.
//! - [`mask`]: which variables are secret, and masking their values.
//! - [`completions`]: shell completion scripts.
//! - `mcp` (feature `mcp`): `mcp serve`, a manifest's toolsets served over MCP.
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     starweaver_cli::check_main()
//! }
//! ```

mod app;
pub mod check;
pub mod completions;
#[cfg(feature = "store")]
pub mod durable;
pub mod json;
pub mod mask;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod plain;
pub mod report;
pub mod run;
pub mod terminal;
pub mod tools;
pub mod ui;
pub mod waits;

pub use app::main;
pub use check::entry::check_main;
