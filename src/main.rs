//! The `starweaver` command line: `run`, `check`, `schema`, `tools` and `completions`. Every
//! command lives in the command-line library (`starweaver::cli`); this is its `main`.

fn main() -> std::process::ExitCode {
    starweaver::cli::main()
}
