//! `type: mcp` toolsets through the built binary: `check` and `check --explain` judge a
//! server's settings without starting it, and the explanation says what each server runs and
//! whether it is sandboxed.

use serde_json::Value;

use super::{folder, run, stderr, stdout};

/// A local server whose program, were it ever started, would leave a file behind, and an HTTP
/// server behind a search. `GITHUB_TOKEN`-style host variables are named, never needed.
const SERVERS: &str = "version: 1
name: servers
model: {id: test}
toolsets:
  - type: mcp
    name: local
    command: sh
    args: [-c, 'touch started; cat']
    env_from: [STARWEAVER_CHECK_MCP_UNSET]
    tools: [echo]
    prefix: lo
  - type: mcp
    name: remote
    url: 'http://127.0.0.1:9/mcp'
    headers_from_env: {Authorization: STARWEAVER_CHECK_MCP_UNSET}
  - type: search
    name: find
    toolsets: [remote]
";

#[test]
fn check_and_explain_start_no_server_and_say_a_local_one_is_not_sandboxed() {
    let dir = folder(&[("agent.yaml", SERVERS.as_bytes())]);
    let checked = run(dir.path(), &["check", "agent.yaml"]);
    assert_eq!(checked.status.code(), Some(0), "{}", stderr(&checked));
    let output = run(dir.path(), &["check", "--explain", "agent.yaml"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}{}", stderr(&output));
    let local = text
        .lines()
        .find(|line| line.starts_with("MCP       local: "))
        .unwrap_or_else(|| panic!("no MCP line:\n{text}"));
    assert!(
        local.contains("runs `sh -c touch started; cat`")
            && local.contains("not sandboxed: a local server runs with your rights"),
        "{text}"
    );
    assert!(text.contains("tools: echo (as lo_echo)"), "{text}");
    assert!(
        text.contains("remote: connects to http://127.0.0.1:9/mcp"),
        "{text}"
    );
    assert!(text.contains("via search `find`"), "{text}");
    let json = run(
        dir.path(),
        &["check", "--explain", "--format", "json", "agent.yaml"],
    );
    let value: Value = serde_json::from_str(&stdout(&json)).unwrap();
    let servers = &value["agents"][0]["servers"];
    assert_eq!(servers[0]["sandboxed"], false);
    assert_eq!(servers[1]["transport"], "http");
    // Neither command ran the server's program.
    assert!(!dir.path().join("started").exists());
}

#[test]
fn a_server_with_both_transports_and_a_secret_in_env_is_reported_at_its_lines() {
    let manifest = "version: 1
name: servers
model: {id: test}
toolsets:
  - type: mcp
    name: both
    command: mcp-server-everything
    url: 'http://127.0.0.1:9/mcp'
  - type: mcp
    name: leaky
    command: mcp-server-github
    env: {GITHUB_TOKEN: ghp_0123456789abcdefABCDEF}
";
    let dir = folder(&[("agent.yaml", manifest.as_bytes())]);
    let output = run(dir.path(), &["check", "--format", "json", "agent.yaml"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let found: Value = serde_json::from_str(&stdout(&output)).unwrap();
    let rules: Vec<(String, u64, String)> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rules,
        [
            ("invalid-value".to_string(), 8, "error".to_string()),
            ("literal-secret".to_string(), 12, "warning".to_string()),
        ]
    );
    assert!(
        found[1]["help"]
            .as_str()
            .unwrap()
            .contains("env_from: [GITHUB_TOKEN]"),
        "{found:#}"
    );
}

/// The names the checker calls secret by name (`literal-secret`) are the names a run masks:
/// a value under each is hidden in text and JSON exactly when the checker would warn about it.
#[test]
fn a_run_masks_the_values_of_exactly_the_names_the_checker_calls_secret() {
    use starweaver::cli::mask::{Redactor, MASK};
    use starweaver::config::secrets::{secret_sign, SecretSign};

    let value = "plain words";
    for name in [
        "GITHUB_TOKEN",
        "apiKey",
        "APIKey",
        "db_password",
        "keyring",
        "key_name",
        "LOG_LEVEL",
        "aws-credentials",
        "passwd",
        "tokens",
    ] {
        let vars = std::collections::BTreeMap::from([(name.to_string(), value.to_string())]);
        let redactor = Redactor::for_vars(&vars);
        let by_name = secret_sign(name, value) == Some(SecretSign::Name);
        let shown = redactor.text(&format!("said {value}"));
        assert_eq!(shown == format!("said {MASK}"), by_name, "{name}: {shown}");
        let mut record = serde_json::json!({"content": value});
        redactor.json(&mut record);
        assert_eq!(record["content"] == MASK, by_name, "{name}: {record}");
        assert_eq!(
            Redactor::vars_to_save(&vars, &[])[name] == MASK,
            by_name,
            "{name}"
        );
    }
}
