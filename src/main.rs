//! The `starweaver` command line. The manifest commands (`check`, `run`,
//! `schema`, `tools`) arrive with the manifest issue; until then the binary
//! says so instead of pretending.

use std::process::ExitCode;

fn main() -> ExitCode {
    let version = env!("CARGO_PKG_VERSION");
    match std::env::args().nth(1).as_deref() {
        Some("--version" | "-V") => {
            println!("starweaver {version}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!(
                "starweaver {version}: the manifest commands (check, run, schema, tools) are not built yet.\n\
                 Try the agent example instead: cargo run --example agent_run"
            );
            ExitCode::from(2)
        }
    }
}
