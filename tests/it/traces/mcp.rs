//! An MCP server's tool in a traced run: its request to the server is a `tools/call <tool>`
//! client span inside the call's `execute_tool` span, with the `mcp.*` attributes.

use super::{read_spans, span};
use crate::run_cli::{assert_status, folder, run};

#[test]
fn a_call_to_an_mcp_servers_tool_is_a_tools_call_client_span_under_its_execute_tool() {
    if !crate::common::hostile::python3("the MCP trace test") {
        return;
    }
    let script = crate::common::hostile::hostile_server();
    let manifest = format!(
        "version: 1\nname: relay\nmodel: {{id: script, script: relay.script.yaml}}\ntoolsets:\n  \
         - type: mcp\n    name: good\n    command: python3\n    args: ['{}', normal, traced]\n    \
         tools: [echo]\n",
        script.to_string_lossy()
    );
    let dir = folder(&[
        ("relay.yaml", &manifest),
        (
            "relay.script.yaml",
            "- calls:\n    - {tool: echo, args: {}}\n- answer: done\n",
        ),
    ]);
    let output = run(
        dir.path(),
        &[
            "run",
            "relay.yaml",
            "--prompt",
            "echo",
            "--trace",
            "trace.jsonl",
        ],
    );
    assert_status(&output, 0);
    let spans = read_spans(&dir.path().join("trace.jsonl"));
    let call = span(&spans, "execute_tool echo");
    let request = span(&spans, "tools/call echo");
    assert_eq!(request["parent_span_id"], call["span_id"]);
    assert_eq!(request["kind"], "client");
    assert_eq!(request["attributes"]["mcp.method.name"], "tools/call");
    assert_eq!(request["attributes"]["gen_ai.tool.name"], "echo");
    assert_eq!(request["attributes"]["starweaver.mcp.server"], "good");
    assert_eq!(request["status"]["code"], "unset");
}
