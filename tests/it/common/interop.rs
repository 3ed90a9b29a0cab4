//! Whether the packages the MCP interop tests talk to are here: a test that needs one skips
//! with a one-line notice when it is missing, unless `STARWEAVER_INTEROP_TESTS=required` (CI),
//! where a missing package is a failure.

/// The manifest in `agents/` that starts `@modelcontextprotocol/server-everything` by its
/// command name.
pub const MCP_AGENT: &str = "mcp-everything.yaml";

/// Whether `mcp-server-everything` (the executable of
/// `@modelcontextprotocol/server-everything`) is on `PATH`, as `agents/mcp-everything.yaml`
/// needs; prints the notice when it is not (and fails when the interop tests are required).
pub fn everything_on_path() -> bool {
    let found = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| dir.join("mcp-server-everything").is_file())
    });
    if !found {
        let reason = "mcp-server-everything is not on PATH (`.ci/run` puts \
                      $STARWEAVER_INTEROP_DIR/node_modules/.bin there); agents/mcp-everything.yaml \
                      needs it";
        let required =
            std::env::var("STARWEAVER_INTEROP_TESTS").is_ok_and(|value| value == "required");
        assert!(
            !required,
            "the MCP interop tests are required here, but {reason}"
        );
        eprintln!("skipped {MCP_AGENT}: {reason}");
    }
    found
}
