//! Misuse of `#[starweaver::tool]` is a compile error spanned on the offending token, with
//! no follow-on errors. Refresh the expected output with
//! `TRYBUILD=overwrite cargo test -p starweaver-macro-ui` after a deliberate change to a
//! message.

#[test]
fn tool_macro_misuse_is_a_spanned_compile_error() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("cases/*.rs");
}
