//! Fuzz target: arbitrary bytes through the manifest checker and its checked form.
//!
//! Besides "never panics, never hangs", it asserts that the two agree:
//!
//! * the checker, with an empty context and with one that knows tools, variables and model
//!   ids, returns without panicking;
//! * [`check_manifest`] gives a checked manifest exactly when [`check`] in the same folder
//!   reports no error: a file the checker passes must deserialize (the conversion's safety net must
//!   never fire), and a file with a checked form was passed by the checker;
//! * a checked manifest, written back as JSON (which is YAML), is accepted by the checker
//!   again.
//!
//! A broken invariant panics with the diagnostics involved, which AFL records as a crash.
//!
//! With `STARWEAVER_FUZZ_SKIP_KNOWN=1` the disagreements listed in [`KNOWN`] (each with a
//! reproducer in `fuzz/reproducers/`) are not reported, so a campaign can look past them
//! until they are fixed.

use starweaver_config::diagnostics::{Diagnostic, Severity};
use starweaver_config::validate::{check, check_bytes, check_manifest, CheckContext};

fn errors(found: &[Diagnostic]) -> Vec<String> {
    found
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            format!(
                "{}:{} {:?} {}",
                d.span.start.line, d.span.start.column, d.rule, d.message
            )
        })
        .collect()
}

/// Safety-net messages of disagreements already reported, skipped under
/// `STARWEAVER_FUZZ_SKIP_KNOWN=1`. Remove an entry once its reproducer passes.
const KNOWN: &[&str] = &[
    // Empty: every reproducer in fuzz/reproducers/ passes. Add the reader's message here while
    // a newly found disagreement waits for its fix.
];

fn known(read_errors: &[String]) -> bool {
    read_errors
        .iter()
        .any(|error| KNOWN.iter().any(|known| error.contains(known)))
}

fn run(data: &[u8], skip_known: bool) {
    let _ = check_bytes(data);

    // A context that knows code tools, host variables and model ids: different semantic
    // branches run, and it must not panic either.
    let context = CheckContext::new()
        .with_catalog(["lookup", "render_video", "search"])
        .with_vars(["audience", "host"])
        .with_model_ids(["gpt", "local"]);
    let _ = check(data, &context);

    // The checked form runs the folder rules in a folder (the current one when the context
    // names none): compare it with the checker in the same folder.
    let here = CheckContext::new().with_base_dir(".");
    let plain_errors = errors(&check(data, &here));
    match check_manifest(data, &here) {
        (_, Some(checked)) => {
            assert!(
                plain_errors.is_empty(),
                "a file the checker rejects has a checked form: {plain_errors:?}"
            );
            let json = match serde_json::to_vec(checked.manifest()) {
                Ok(json) => json,
                Err(error) => panic!("a checked manifest does not serialize: {error}"),
            };
            let again = errors(&check_bytes(&json));
            assert!(
                again.is_empty(),
                "the checker rejects its own checked manifest written as JSON: {again:?}\n{}",
                String::from_utf8_lossy(&json)
            );
        }
        (found, None) => {
            let read_errors = errors(&found);
            assert!(
                !plain_errors.is_empty() || (skip_known && known(&read_errors)),
                "the checker passes a file that gets no checked form: {read_errors:?}"
            );
        }
    }
}

fn main() {
    let skip_known = std::env::var_os("STARWEAVER_FUZZ_SKIP_KNOWN").is_some_and(|v| v == "1");
    afl::fuzz!(|data: &[u8]| {
        run(data, skip_known);
    });
}
