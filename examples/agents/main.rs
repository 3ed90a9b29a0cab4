//! An application's own agent binary: two tools made with `#[starweaver::tool]`, a manifest
//! that names them (`glossary.yaml`), a checker that knows them, and a runner.
//!
//! The tools register in the catalog when the binary links, so `check` verifies the manifest's
//! tool names against exactly the tools this binary has, with no catalog file to export:
//!
//! ```text
//! cargo run --example agents -- check examples/agents/glossary.yaml --deny-warnings
//! cargo run --example agents -- run examples/agents/glossary.yaml --prompt "What is a toolset?"
//! ```
//!
//! `run` loads the manifest and runs it on its model (the embedded `test` model, which calls
//! each tool once and then answers) and prints the answer.

use std::path::Path;
use std::process::ExitCode;

use starweaver::config::load::{load_file, LoadFileError, LoadOptions};
use starweaver::config::validate::CheckContext;
use starweaver::ToolError;

/// The glossary the tools answer from: term and definition.
const GLOSSARY: [(&str, &str); 4] = [
    (
        "agent",
        "a model with instructions and tools, run until it answers",
    ),
    ("manifest", "a YAML file that declares one agent"),
    (
        "toolset",
        "a named group of tools offered to the model together",
    ),
    (
        "tool proxy",
        "a toolset that hides others behind search_tools and call_tool",
    ),
];

/// Define a project term.
///
/// Answers with the glossary entry for the term, or says that the glossary lacks it.
#[starweaver::tool]
fn define(
    /// The term, as `list_terms` names it.
    term: String,
) -> String {
    let wanted = term.trim().to_lowercase();
    GLOSSARY
        .iter()
        .find(|(name, _)| *name == wanted)
        .map_or_else(
            || format!("`{term}` is not in the glossary"),
            |(name, meaning)| format!("{name}: {meaning}"),
        )
}

/// List the glossary's terms that contain a text (all terms for an empty text).
#[starweaver::tool]
async fn list_terms(
    /// Text to look for in the terms.
    #[arg(default = String::new())]
    containing: String,
) -> Result<Vec<String>, ToolError> {
    let wanted = containing.to_lowercase();
    Ok(GLOSSARY
        .iter()
        .map(|(name, _)| (*name).to_string())
        .filter(|name| name.contains(&wanted))
        .collect())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        // `check ...` (and anything else) is the checker, with this binary's tools as the
        // catalog.
        _ => starweaver::config::check_main(),
    }
}

/// `run PATH --prompt TEXT`.
fn run(args: &[String]) -> ExitCode {
    let (path, prompt) = match args {
        [path, flag, prompt] if flag == "--prompt" => (Path::new(path), prompt.clone()),
        _ => {
            eprintln!("usage: agents run MANIFEST --prompt TEXT");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    // The tools linked into this binary are the catalog the check verifies names against.
    let context = CheckContext::new().with_catalog(starweaver::catalog::names());
    runtime.block_on(async {
        // Read once, checked, then loaded in the manifest's folder.
        let mut loaded = match load_file(path, &context, &LoadOptions::new()).await {
            Ok((loaded, _warnings)) => loaded,
            Err(error @ LoadFileError::Read { .. }) => {
                eprintln!("error: {error}");
                return ExitCode::from(2);
            }
            Err(LoadFileError::Check(problems)) => {
                for problem in problems {
                    eprintln!(
                        "{}[{}]: {}",
                        problem.severity, problem.rule, problem.message
                    );
                }
                eprintln!("run `agents check {}` for the details", path.display());
                return ExitCode::from(1);
            }
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::from(1);
            }
        };
        match loaded.session.run(prompt).await {
            Ok(result) => {
                println!("{}", result.output);
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("error: the run failed: {error}");
                ExitCode::FAILURE
            }
        }
    })
}
