//! `starweaver tools`, run as the built binary: the table and the JSON list exactly what the
//! loader's agent offers on its first request, `--all` adds what a proxy or a search reaches
//! later, code tools come from `--catalog`, and a manifest that does not check exits 2.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::running;
use serde_json::{json, Value};
use starweaver::config::load::{load_file, LoadOptions};
use starweaver::config::validate::CheckContext;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tools(args: &[&str]) -> Output {
    crate::common::starweaver_binary()
        .current_dir(repository())
        .arg("tools")
        .args(args)
        .output()
        .unwrap()
}

fn json_of(args: &[&str]) -> Value {
    let output = tools(args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_json_is_exactly_what_the_first_request_carries() {
    for name in [
        "repo-helper",
        "docs-assistant",
        "release-checklist",
        "sandbox-shell",
        "triage",
    ] {
        let path = repository().join(format!("agents/{name}.yaml"));
        let (loaded, _) = load_file(&path, &CheckContext::new(), &LoadOptions::new())
            .await
            .unwrap();
        // A run adds the output tool of an agent with `output:` to its own.
        let expected = loaded
            .agent
            .with_run_tools(loaded.agent.tool_registry())
            .definitions_for_context(loaded.session.context());
        let listed = json_of(&[&format!("agents/{name}.yaml"), "--json"]);
        assert_eq!(listed["version"], 1);
        assert_eq!(listed["file"], format!("agents/{name}.yaml"));
        assert_eq!(
            listed["tools"],
            serde_json::to_value(&expected).unwrap(),
            "{name}"
        );
        assert_eq!(names(&listed["tools"]), loaded.tool_names, "{name}");
        assert!(listed.get("later").is_none(), "`later` needs --all");
        // Regression: the output tool every request of `triage` offers was left out.
        let answers = names(&listed["tools"]).contains(&"final_answer".to_string());
        assert_eq!(answers, name == "triage", "{name}");
    }
}

#[test]
fn the_table_shows_name_toolset_approval_reach_and_description() {
    let output = tools(&["agents/release-checklist.yaml"]);
    assert_eq!(output.status.code(), Some(0));
    let table = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("NAME"), "{table}");
    for column in ["TOOLSET", "WAITS FOR", "REACH", "DESCRIPTION"] {
        assert!(lines[0].contains(column), "{table}");
    }
    let row = |tool: &str| {
        lines
            .iter()
            .find(|line| line.split_whitespace().next() == Some(tool))
            .map(|line| line.split_whitespace().collect::<Vec<_>>())
            .unwrap_or_else(|| panic!("no row for {tool}:\n{table}"))
    };
    assert_eq!(row("write_file")[1..4], ["drafts", "approval", "direct"]);
    assert_eq!(row("read_file")[1..4], ["drafts", "-", "direct"]);
    assert_eq!(
        row("ask_user_question")[1..4],
        ["maintainer", "answers", "direct"]
    );
    assert!(row("ls").join(" ").contains("List the direct children"));
    assert!(
        table.ends_with("5 tools on the first request.\n"),
        "{table}"
    );
}

#[test]
fn all_adds_the_tools_behind_proxies_and_searches_marked_with_the_way_in() {
    let table = String::from_utf8(tools(&["agents/sandbox-shell.yaml"]).stdout).unwrap();
    assert!(!table.contains("shell_exec"), "{table}");
    assert!(table.contains("12 more reachable later"), "{table}");
    let listed = json_of(&["agents/sandbox-shell.yaml", "--json", "--all"]);
    assert_eq!(names(&listed["tools"]), ["call_tool", "search_tools"]);
    let later = listed["later"].as_array().unwrap();
    let exec = later
        .iter()
        .find(|tool| tool["definition"]["name"] == "shell_exec")
        .unwrap();
    assert_eq!(exec["reach"], "proxy");
    assert_eq!(exec["via"], "workspace");
    assert_eq!(exec["toolset"], "commands");
    assert!(exec["definition"]["parameters"]["properties"].is_object());
    assert_eq!(later.len(), 12);
    // Behind a search: loaded later, by `tool_search`; a preloaded tool is on the first request.
    let listed = json_of(&["agents/triage.yaml", "--json", "--all"]);
    assert!(names(&listed["tools"]).contains(&"grep".to_string()));
    let read_file = listed["later"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["definition"]["name"] == "read_file")
        .unwrap();
    assert_eq!(
        (&read_file["reach"], &read_file["via"]),
        (&json!("search"), &json!("lookup"))
    );
    let table = String::from_utf8(tools(&["agents/triage.yaml", "--all"]).stdout).unwrap();
    assert!(table.contains("search: lookup"), "{table}");
    assert!(
        table.contains("4 tools on the first request, 3 reachable later."),
        "{table}"
    );
}

#[test]
fn a_deferred_first_party_tool_is_marked_in_its_definition_and_the_table() {
    let listed = json_of(&["agents/triage.yaml", "--json"]);
    let proposal = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "propose_edit_file")
        .unwrap();
    assert_eq!(proposal["metadata"]["deferred_call"], true);
    assert!(proposal["parameters"]["properties"]["old_string"].is_object());
    let table = String::from_utf8(tools(&["agents/triage.yaml"]).stdout).unwrap();
    assert!(
        table
            .lines()
            .any(|line| line.starts_with("propose_edit_file") && line.contains("deferred")),
        "{table}"
    );
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn code_tools_come_from_the_catalog_or_are_listed_unverified() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "scout.yaml",
        "version: 1\nname: scout\nmodel: {id: test}\ntoolsets:\n  - {type: tools, name: glossary, tools: [lookup], approval_required: true}\n",
    );
    let catalog = write(
        dir.path(),
        "catalog.json",
        r#"{"version":1,"tools":[{"name":"lookup","description":"Looks a term up.","parameters":{"type":"object","properties":{"term":{"type":"string"}}}}]}"#,
    );
    // Without a catalog: listed, marked unverified, and the check's warning on stderr.
    let output = tools(&[&manifest]);
    assert_eq!(output.status.code(), Some(0));
    let table = String::from_utf8(output.stdout).unwrap();
    assert!(table.contains("unverified code tool"), "{table}");
    assert!(table.contains("--catalog FILE"), "{table}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("warning[unknown-tool]"), "{stderr}");
    // With one: its definition, as the model would get it, gated for approval.
    let listed = json_of(&[&manifest, "--json", "--catalog", &catalog]);
    let lookup = &listed["tools"][0];
    assert_eq!(lookup["description"], "Looks a term up.");
    assert_eq!(lookup["parameters"]["properties"]["term"]["type"], "string");
    assert_eq!(lookup["metadata"]["starweaver_approval_required"], true);
    // A catalog without the tool: the manifest does not check.
    let other = write(
        dir.path(),
        "other.json",
        r#"{"version":1,"tools":[{"name":"lokup"}]}"#,
    );
    let output = tools(&[&manifest, "--catalog", &other]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("error[unknown-tool]") && stderr.contains("lokup"),
        "{stderr}"
    );
}

#[test]
fn a_manifest_that_does_not_check_exits_2_with_the_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "broken.yaml",
        "version: 1\nname: x\nmodel: {idd: test}\n",
    );
    let output = tools(&[&manifest, "--json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("broken.yaml:3:9"), "{stderr}");
    assert!(stderr.contains("does not check"), "{stderr}");
}

// A catalog description holding a terminal escape reached the screen raw through the table.
#[test]
fn control_characters_from_a_catalog_never_reach_the_table() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("c.json"),
        r#"{"version":1,"tools":[{"name":"ok","description":"\u001b[31mred"}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("m.yaml"),
        "version: 1\nname: m\nmodel: {id: test}\ntoolsets: [{type: tools, name: t, tools: [ok]}]\n",
    )
    .unwrap();
    let catalog = dir.path().join("c.json");
    let manifest = dir.path().join("m.yaml");
    let output = tools(&[
        "--catalog",
        catalog.to_str().unwrap(),
        manifest.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("?[31mred"), "{text}");
}

#[test]
fn a_provider_model_shows_the_schemas_it_adapts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.yaml"),
        "version: 1\nname: a\nmodel: {id: 'openai:gpt-4o', api_key_env: HOME}\nenvironment: {type: local}\ntoolsets:\n  - {type: filesystem, tools: [ls, write_file]}\n",
    )
    .unwrap();
    let table = crate::common::starweaver_binary()
        .current_dir(dir.path())
        .args(["tools", "a.yaml"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&table.stdout).to_string();
    assert_eq!(table.status.code(), Some(0), "{text}");
    assert!(
        text.contains("openai:gpt-4o adapts 1 of these for its provider:"),
        "{text}"
    );
    assert!(
        text.contains("! tool schema adapted `ls`: the argument schema was rewritten for OpenAI Chat Completions strict mode"),
        "{text}"
    );
    let json = crate::common::starweaver_binary()
        .current_dir(dir.path())
        .args(["tools", "a.yaml", "--json"])
        .output()
        .unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["adjusted"][0]["subject"], "ls");
    assert_eq!(value["adjusted"][0]["kind"], "tool_schema_adapted");
    assert!(value["adjusted"][0]["changes"][0]["path"].is_string());
}

/// A manifest with two MCP servers on the tests' small Python server: `good` offers three of
/// its tools under the prefix `hs`, `broken` exits at startup. `label` marks the servers'
/// command lines, to find them afterwards.
fn mcp_manifest(dir: &Path, label: &str) -> String {
    let script = crate::common::hostile::hostile_server();
    let script = script.to_string_lossy();
    write(
        dir,
        "servers.yaml",
        &format!(
            "version: 1
name: servers
description: Two MCP servers, one of which cannot start.
model: {{id: test}}
toolsets:
  - type: mcp
    name: good
    command: python3
    args: ['{script}', normal, '{label}']
    tools: [pid, write, echo]
    prefix: hs
  - type: mcp
    name: broken
    command: python3
    args: ['{script}', exit, '{label}']
"
        ),
    )
}

#[test]
fn mcp_servers_start_list_their_names_and_hints_and_stop_and_a_failed_one_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let label = format!("tools-cli-{}", std::process::id());
    let manifest = mcp_manifest(dir.path(), &label);

    let output = tools(&[&manifest]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let table = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stderr}\n{table}");
    // The failed server: its exit status and the end of its stderr; the others still list.
    assert!(stderr.contains("`broken`"), "{stderr}");
    assert!(stderr.contains("status 3"), "{stderr}");
    assert!(
        stderr.contains("cannot start: the config file is missing"),
        "{stderr}"
    );
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("NAME"), "{table}");
    assert!(lines[0].contains("SERVER'S NAME"), "{table}");
    assert!(lines[0].contains("HINTS"), "{table}");
    let row = |name: &str| {
        lines
            .iter()
            .find(|line| line.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no row for {name}:\n{table}"))
            .split("  ")
            .map(str::trim)
            .filter(|cell| !cell.is_empty())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        row("hs_pid")[..5],
        ["hs_pid", "pid", "good", "-", "read-only"]
    );
    assert_eq!(
        row("hs_write")[..5],
        ["hs_write", "write", "good", "-", "writes, destructive"]
    );
    assert_eq!(
        row("hs_echo")[..5],
        ["hs_echo", "echo", "good", "-", "no hints"]
    );
    assert!(!running(&label), "a server outlived `starweaver tools`");

    let output = tools(&[&manifest, "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let listed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(names(&listed["tools"]), ["hs_echo", "hs_pid", "hs_write"]);
    assert_eq!(listed["tools"][1]["metadata"]["mcp"]["tool"], "pid");
    let servers = listed["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 2);
    assert_eq!(servers[0]["toolset"], "good");
    assert_eq!(servers[0]["started"], true);
    assert_eq!(servers[0]["error"], Value::Null);
    assert_eq!(
        servers[0]["tools"][1],
        json!({"name": "hs_pid", "server_name": "pid", "read_only_hint": true, "destructive_hint": null})
    );
    assert_eq!(
        servers[0]["tools"][2],
        json!({"name": "hs_write", "server_name": "write", "read_only_hint": false, "destructive_hint": true})
    );
    assert_eq!(servers[1]["toolset"], "broken");
    assert_eq!(servers[1]["started"], false);
    assert!(
        servers[1]["error"]
            .as_str()
            .unwrap()
            .contains("the config file is missing"),
        "{servers:?}"
    );
    assert_eq!(servers[1]["tools"], json!([]));
    assert!(
        !running(&label),
        "a server outlived `starweaver tools --json`"
    );
}

/// server-everything's entry script under `STARWEAVER_INTEROP_DIR`, or `None` after a one-line
/// notice (a failure when the interop tests are required).
fn everything() -> Option<PathBuf> {
    let script = std::env::var_os("STARWEAVER_INTEROP_DIR")
        .map(|dir| {
            PathBuf::from(dir)
                .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        })
        .filter(|path| path.is_file());
    if script.is_none() {
        let reason = "@modelcontextprotocol/server-everything is not installed under \
                      STARWEAVER_INTEROP_DIR; `starweaver tools` lists it in this test";
        let required =
            std::env::var("STARWEAVER_INTEROP_TESTS").is_ok_and(|value| value == "required");
        assert!(
            !required,
            "the MCP interop tests are required here, but {reason}"
        );
        eprintln!("skipped: {reason}");
    }
    script
}

#[test]
fn server_everything_lists_with_its_names_and_hints() {
    let Some(script) = everything() else { return };
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "everything.yaml",
        &format!(
            "version: 1
name: everything
description: The reference MCP server's echo and sum.
model: {{id: test}}
toolsets:
  - type: mcp
    name: everything
    command: node
    args: ['{}', stdio]
    tools: [echo, get-sum]
    prefix: ev
    startup_timeout_ms: 60000
",
            script.display()
        ),
    );
    let listed = json_of(&[&manifest, "--json"]);
    assert_eq!(names(&listed["tools"]), ["ev_echo", "ev_get-sum"]);
    let offered = &listed["servers"][0]["tools"];
    assert_eq!(offered[1]["server_name"], "get-sum");
    assert_eq!(offered[1]["read_only_hint"], true);
    assert_eq!(offered[1]["destructive_hint"], false);
    let table = String::from_utf8(tools(&[&manifest]).stdout).unwrap();
    assert!(
        table
            .lines()
            .any(|line| line.starts_with("ev_get-sum")
                && line.contains("read-only, not destructive")),
        "{table}"
    );
}

#[test]
fn values_an_mcp_server_takes_from_the_host_are_masked_in_the_listing_and_its_errors() {
    let (variable, value) = ("STARWEAVER_TOOLS_PASSED_SETTING", "hushed-9Zk4-listed");
    let script = crate::common::hostile::hostile_server();
    let script = script.to_string_lossy();
    let dir = tempfile::tempdir().unwrap();
    let manifest = write(
        dir.path(),
        "leaky.yaml",
        &format!(
            "version: 1
name: leaky
model: {{id: test}}
toolsets:
  - type: mcp
    name: talks
    command: python3
    args: ['{script}', leak, {variable}]
    env_from: [{variable}]
    tools: [echo]
  - type: mcp
    name: fails
    command: python3
    args: ['{script}', leak, {variable}, exit]
    env_from: [{variable}]
"
        ),
    );
    let listed = |args: &[&str]| {
        crate::common::starweaver_binary()
            .current_dir(repository())
            .env(variable, value)
            .arg("tools")
            .args(args)
            .output()
            .unwrap()
    };
    for args in [vec![manifest.as_str()], vec![manifest.as_str(), "--json"]] {
        let output = listed(&args);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}\n{stdout}");
        assert!(
            !stdout.contains(value),
            "{args:?} lists the value:\n{stdout}"
        );
        assert!(
            !stderr.contains(value),
            "{args:?} reports the value:\n{stderr}"
        );
        // The failed server said it on its way out, and its error still shows the rest.
        assert!(stderr.contains("cannot start with ***"), "{stderr}");
    }
    let output = listed(&[&manifest, "--json"]);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let description = json["tools"][0]["description"].as_str().unwrap_or_default();
    assert!(description.contains("knows ***"), "{json:#}");
    assert!(
        json["servers"][1]["error"]
            .as_str()
            .unwrap()
            .contains("cannot start with ***"),
        "{json:#}"
    );
}

/// `headers_from_env` reaches an HTTP server: the value of the host variable goes with the
/// server's first request (`initialize`) under the header's name, and `starweaver tools`
/// masks it wherever it shows the server's failure.
#[test]
fn headers_from_env_are_sent_to_an_http_server_and_masked_in_what_is_shown() {
    use crate::common::loopback::{LoopbackServer, Reply};
    const TOKEN: &str = "Bearer hushed-9Zk-token";
    let server = LoopbackServer::start(vec![Reply::text(401, format!("who is {TOKEN}?"))]);
    let dir = tempfile::tempdir().unwrap();
    let manifest = format!(
        "version: 1\nname: remote\nmodel: {{id: test}}\ntoolsets:\n  - type: mcp\n    name: remote\n    url: {}/mcp\n    headers_from_env: {{Authorization: STARWEAVER_TEST_MCP_AUTH}}\n    startup_timeout_ms: 30000\n",
        server.base_url()
    );
    std::fs::write(dir.path().join("agent.yaml"), manifest).unwrap();
    let output = crate::common::starweaver_binary()
        .current_dir(dir.path())
        .env("STARWEAVER_TEST_MCP_AUTH", TOKEN)
        .args(["tools", "agent.yaml"])
        .output()
        .unwrap();
    let requests = server.wait_for_requests(1);
    assert_eq!(
        requests[0].header("authorization"),
        Some(TOKEN),
        "{requests:?}"
    );
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(shown.contains("remote"), "{shown}");
    assert!(
        !shown.contains("hushed-9Zk-token"),
        "the token shows:\n{shown}"
    );
}
