//! Misuse of `#[starweaver::tool]` is a compile error spanned on the
//! offending token, with no follow-on errors. Each case in `macro_ui/`
//! has its expected compiler output beside it (`.stderr`); refresh them
//! with `TRYBUILD=overwrite cargo test --test macro_ui` after a deliberate
//! change to a message.

#[test]
fn tool_macro_misuse_is_a_spanned_compile_error() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/macro_ui/*.rs");
}
