//! `starweaver check --explain`: what each agent can do, on one screen, for people who review
//! agents instead of reading their YAML. The model; every tool the first request offers and
//! every tool reachable later through a proxy or a search, with approvals and deferrals; what
//! the shell may run; which folder the agent works in and whether it can write there; the
//! skills that load; the run's limits; the answer's contract (`output:`).
//!
//! The facts come from the agent the loader assembles (with [`starweaver_config::load::load`]), never from
//! a second reading of the manifest, so the explanation cannot drift from what runs. Only a
//! manifest without errors is explained: otherwise the check's report is printed as usual.
//!
//! `--format json` prints [`Explanations`]: `{"version": 1, "agents": [{file, name,
//! description, model, tools, shell, files, skills, servers, runtime, output, warnings}]}` (see
//! `docs/check.md`).

mod assemble;
mod facts;
mod gather;
mod human;
mod json;
mod output;
mod sandbox;
mod servers;
mod source;
mod stand_in;

pub use facts::{
    ExplainedTool, Explanation, Explanations, FileFacts, ModelFacts, OutputFacts, PathReach,
    RuntimeFacts, SandboxFacts, SandboxMode, ServerFacts, ServerTool, ShellFacts, ShellReach,
    SkillFact, SkillFacts, SkillProblem, SubAgentFacts, EXPLAIN_FORMAT_VERSION,
};

pub use assemble::load_checked;

use assemble::assemble;
use source::ToolSource;

use super::command::{check_files, CheckArgs, CheckOutcome};
use super::status::CheckStatus;
use crate::report::{self, FileReport, Format};
use starweaver_config::diagnostics::Severity;

/// Checks the files, then explains each one if none has an error.
///
/// Errors in any file give the check's usual report and status. A catalog that cannot be read,
/// or a format other than `human` or `json`, is a usage error. A manifest that checks clean but
/// cannot be assembled (a folder that does not exist, a setting the runtime refuses) is reported
/// on `stderr` and fails the run.
#[must_use]
pub fn run_explain(args: &CheckArgs) -> CheckOutcome {
    if !matches!(args.format, Format::Human | Format::Json) {
        return usage("--explain prints `--format human` or `--format json`".to_string());
    }
    let checked = check_files(args);
    if checked.status != CheckStatus::Clean {
        return checked;
    }
    let source = match ToolSource::of(args) {
        Ok(source) => source,
        Err(error) => return usage(error.to_string()),
    };
    let mut stderr = checked.stderr;
    let mut agents = Vec::with_capacity(checked.reports.len());
    let mut failed = false;
    // A clean report without a checked manifest is a sub-agent file the check reached through
    // a tree: it is explained inside the tree, under the tool that runs it.
    for report in checked
        .reports
        .iter()
        .filter(|report| report.checked.is_some())
    {
        let warnings = report::json::to_value(std::slice::from_ref(report));
        match assemble(report, &source, warnings) {
            Ok(explanation) => agents.push(explanation),
            Err(message) => {
                failed = true;
                stderr.push_str(&format!(
                    "error: `{}` checks clean but its agent cannot be assembled: {message}\n",
                    report.path
                ));
            }
        }
    }
    let stdout = match args.format {
        Format::Json => json::render(agents),
        _ => {
            stderr.push_str(&warnings_of(&checked.reports));
            human::render(&agents)
        }
    };
    CheckOutcome {
        stdout,
        stderr,
        status: if failed {
            CheckStatus::Failed
        } else {
            CheckStatus::Clean
        },
        reports: checked.reports,
    }
}

/// The check's warnings in the human format, for standard error (empty when there are none).
fn warnings_of(reports: &[FileReport]) -> String {
    let warned: Vec<FileReport> = reports
        .iter()
        .filter(|report| {
            report
                .diagnostics
                .iter()
                .any(|found| found.severity == Severity::Warning)
        })
        .cloned()
        .collect();
    if warned.is_empty() {
        String::new()
    } else {
        report::human::render(&warned)
    }
}

fn usage(message: String) -> CheckOutcome {
    CheckOutcome {
        stdout: String::new(),
        stderr: format!("error: {message}\n"),
        status: CheckStatus::Usage,
        reports: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::Arc;

    use serde_json::{json, Value};
    use starweaver_core::tools::{string_tool, ToolResult};

    use super::*;

    #[test]
    fn the_binarys_own_tools_are_the_catalog_of_its_checker() {
        starweaver_core::catalog::register(Arc::new(string_tool(
            "explain_linked_probe",
            Some("Probes.".to_string()),
            json!({"type": "object"}),
            |_, _| async { Ok(ToolResult::new(json!(null))) },
        )));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.yaml");
        std::fs::write(
            &file,
            "version: 1\nname: a\nmodel: {id: test}\ntoolsets:\n  - {type: tools, name: t, tools: [explain_linked_probe]}\n",
        )
        .unwrap();
        let args = CheckArgs {
            paths: vec![file],
            format: Format::Json,
            explain: true,
            linked_catalog: true,
            ..CheckArgs::default()
        };
        let outcome = run_explain(&args);
        assert_eq!(outcome.status, CheckStatus::Clean, "{}", outcome.stderr);
        let value: Value = serde_json::from_str(&outcome.stdout).unwrap();
        let tool = &value["agents"][0]["tools"][0];
        assert_eq!(tool["name"], "explain_linked_probe");
        assert_eq!(tool["verified"], true);
        assert_eq!(value["agents"][0]["warnings"], json!([]));
    }

    fn explain(manifest: &str, format: Format) -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.yaml");
        std::fs::write(&file, manifest).unwrap();
        let args = CheckArgs {
            paths: vec![file],
            format,
            explain: true,
            ..CheckArgs::default()
        };
        let outcome = run_explain(&args);
        assert_eq!(outcome.status, CheckStatus::Clean, "{}", outcome.stderr);
        (dir, outcome.stdout)
    }

    /// The JSON explanation of `manifest`'s agent, with the canonical folder
    /// it sits in (its environment root).
    fn explained_agent(manifest: &str) -> (std::path::PathBuf, Value) {
        let (dir, text) = explain(manifest, Format::Json);
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        (root, value["agents"][0].clone())
    }

    /// A local agent whose only file tools read, with a shell allowed to run `cat`.
    const CAT_ONLY: &str = "version: 1
name: a
model: {id: test}
environment: {type: local}
shell: {allow_execute: true, allowed_programs: [cat]}
toolsets:
  - {type: filesystem, read_only: true}
  - {type: shell, tools: [shell_exec]}
";

    // Regression: `--explain` called an agent "read-only" while its allowed `cat` could read
    // `/etc/hostname` (and any command could write anywhere the user can): what shell commands
    // reach was not on the screen. Under the default sandbox they still read anything the user
    // can, and change files inside the root.
    #[test]
    fn the_shell_s_reach_is_explained_and_files_are_not_called_read_only_beside_it() {
        let (root, agent) = explained_agent(CAT_ONLY);
        let root = root.display().to_string();
        assert_eq!(
            agent["shell"]["reach"],
            json!({"sandbox": "workspace-write", "read": {"scope": "anywhere"},
                   "write": {"scope": "folders", "folders": [root]}, "network": false,
                   "temporary_folder": true, "system_folders": false})
        );
        assert_eq!(agent["files"]["shell_can_write"], true);
        assert_eq!(agent["warnings"][0]["rule"], "shell-can-write");
        let (_dir, text) = explain(CAT_ONLY, Format::Human);
        let reach = text
            .lines()
            .find(|line| line.trim_start().starts_with("reach:"))
            .unwrap_or_else(|| panic!("no reach line:\n{text}"));
        assert!(
            reach.contains("workspace-write sandbox") && reach.contains("read anything you can"),
            "{text}"
        );
        assert!(reach.contains("cannot use the network"), "{text}");
        let files = text.lines().find(|line| line.starts_with("Files")).unwrap();
        assert!(!files.contains("read-only"), "{files}");
        assert!(
            files.contains("shell commands can change files too, and read files beyond it"),
            "{files}"
        );
    }

    /// CAT_ONLY with `sandbox` set to `settings`.
    fn cat_only_with(settings: &str) -> String {
        CAT_ONLY.replace(
            "allowed_programs: [cat]}",
            &format!("allowed_programs: [cat], sandbox: {settings}}}"),
        )
    }

    #[test]
    fn a_read_only_sandbox_leaves_the_folder_read_only_and_names_what_stays_writable() {
        let manifest = cat_only_with("{mode: read-only, writable: [target, ./out/../build]}");
        let (root, agent) = explained_agent(&manifest);
        let under = |folder: &str| root.join(folder).display().to_string();
        let dir = tempfile::tempdir().unwrap();
        let context = starweaver_config::validate::CheckContext::new().with_base_dir(dir.path());
        let (_, checked) =
            starweaver_config::validate::check_manifest(manifest.as_bytes(), &context);
        let policy =
            starweaver_config::load::sandbox_policy(checked.unwrap().manifest().shell.as_ref());
        let kernel = starweaver_core::environment::SandboxKernel::detect();
        assert_eq!(
            agent["shell"]["sandbox"],
            json!({"mode": "read-only", "writable": [under("target"), under("build")],
                   "network": false, "read": "all", "required": true,
                   "enforced": kernel.enforces(&policy), "not_enforced": kernel.missing(&policy)})
        );
        assert_eq!(
            agent["shell"]["reach"]["write"],
            json!({"scope": "folders", "folders": [under("target"), under("build")]})
        );
        assert_eq!(agent["warnings"], json!([]));
        // Without `writable`, commands change nothing but their private temporary folder.
        let sealed = cat_only_with("{mode: read-only, read: workspace}");
        let (root, agent) = explained_agent(&sealed);
        let root = root.display().to_string();
        assert_eq!(
            agent["shell"]["reach"],
            json!({"sandbox": "read-only", "read": {"scope": "folders", "folders": [root]},
                   "write": {"scope": "nowhere"}, "network": false,
                   "temporary_folder": true, "system_folders": true})
        );
        assert_eq!(agent["files"]["shell_can_write"], false);
        let (_dir, text) = explain(&sealed, Format::Human);
        let line = |start: &str| {
            text.lines()
                .find(|line| line.trim_start().starts_with(start))
                .unwrap_or_else(|| panic!("no {start} line:\n{text}"))
                .to_string()
        };
        let sandbox = line("sandbox:");
        assert!(
            sandbox.starts_with("          sandbox: read-only, network off, reads workspace; "),
            "{text}"
        );
        let enforced = kernel.enforces(&policy);
        assert_eq!(
            sandbox.contains("this kernel enforces it"),
            enforced,
            "{text}"
        );
        assert!(
            line("reach:").contains("write only their private temporary folder"),
            "{text}"
        );
        assert!(
            line("Files").contains("read-only (no file-writing tool)"),
            "{text}"
        );
    }

    #[test]
    fn a_sandbox_turned_off_reaches_anything_and_the_network() {
        let (_dir, text) = explain(&cat_only_with("{mode: off}"), Format::Json);
        let value: Value = serde_json::from_str(&text).unwrap();
        let agent = &value["agents"][0];
        assert_eq!(
            agent["shell"]["reach"],
            serde_json::to_value(ShellReach::unconfined()).unwrap()
        );
        assert_eq!(agent["shell"]["sandbox"]["mode"], "off");
        assert_eq!(agent["shell"]["sandbox"]["enforced"], true);
        let rules: Vec<&Value> = agent["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|warning| &warning["rule"])
            .collect();
        assert_eq!(rules, ["sandbox-off", "shell-can-write"]);
        let (_dir, text) = explain(&cat_only_with("{mode: off}"), Format::Human);
        assert!(
            text.contains("          sandbox: off (`mode: off`): commands run with your rights\n"),
            "{text}"
        );
        assert!(
            text.contains("shell commands can read and change files beyond it too"),
            "{text}"
        );
    }

    #[test]
    fn commands_of_a_virtual_environment_reach_only_its_files_and_no_shell_reaches_nothing() {
        let virtual_shell = "version: 1
name: a
model: {id: test}
environment: {type: virtual}
shell: {allow_execute: true, allowed_programs: [cat]}
toolsets:
  - {type: shell, tools: [shell_exec]}
";
        let (_dir, text) = explain(virtual_shell, Format::Json);
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["agents"][0]["shell"]["reach"],
            json!({"sandbox": "virtual", "read": {"scope": "in_memory"},
                   "write": {"scope": "in_memory"}, "network": false,
                   "temporary_folder": false, "system_folders": false})
        );
        assert_eq!(value["agents"][0]["shell"]["sandbox"], Value::Null);
        let read_only = "version: 1
name: a
model: {id: test}
environment: {type: local}
toolsets:
  - {type: filesystem, read_only: true}
";
        let (_dir, text) = explain(read_only, Format::Json);
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["agents"][0]["shell"]["reach"],
            json!({"sandbox": "off", "read": {"scope": "nowhere"},
                   "write": {"scope": "nowhere"}, "network": false,
                   "temporary_folder": false, "system_folders": false})
        );
        // The environment's sandbox is there, though no command can run under it.
        assert_eq!(
            value["agents"][0]["shell"]["sandbox"]["mode"],
            "workspace-write"
        );
        let (_dir, text) = explain(read_only, Format::Human);
        assert!(
            !text.contains("reach:") && !text.contains("sandbox:"),
            "{text}"
        );
        assert!(text.contains("read-only (no file-writing tool)"), "{text}");
    }

    /// Three MCP servers and no environment: one local and not sandboxed, one local under a
    /// read-only sandbox, one over HTTP behind a proxy. Nothing starts and no host variable is
    /// read (`GITHUB_TOKEN` need not be set).
    const SERVERS: &str = "version: 1
name: a
model: {id: test}
toolsets:
  - type: mcp
    name: everything
    command: mcp-server-everything
    args: [stdio, --verbose]
    env: {LOG_LEVEL: info}
    env_from: [STARWEAVER_EXPLAIN_UNSET_TOKEN]
    tools: [echo, get.sum]
    prefix: ev
    approval_required: [get.sum]
  - type: mcp
    name: boxed
    command: ./servers/time
    sandbox: {mode: read-only, network: true}
    approval_required: destructive
  - type: mcp
    name: docs
    url: https://docs.example.com/mcp
    headers_from_env: {Authorization: DOCS_TOKEN}
  - type: proxy
    name: remote
    toolsets: [docs]
";

    #[test]
    fn each_mcp_server_says_what_it_runs_and_whether_it_is_sandboxed() {
        let (root, agent) = explained_agent(SERVERS);
        let root = root.display().to_string();
        let servers = &agent["servers"];
        assert_eq!(servers.as_array().unwrap().len(), 3);
        let plain = &servers[0];
        assert_eq!(
            (
                &plain["transport"],
                &plain["command"],
                &plain["args"],
                &plain["cwd"]
            ),
            (
                &json!("stdio"),
                &json!("mcp-server-everything"),
                &json!(["stdio", "--verbose"]),
                &json!(root)
            )
        );
        assert_eq!(plain["sandboxed"], false);
        assert_eq!(plain["sandbox"], Value::Null);
        assert_eq!(
            plain["tools"],
            json!([{"name": "echo", "seen_as": "ev_echo"},
                   {"name": "get.sum", "seen_as": "ev_get_sum"}])
        );
        assert_eq!(
            (&plain["approval"], &plain["approval_tools"]),
            (&json!("listed"), &json!(["get.sum"]))
        );
        assert_eq!(plain["env"], json!(["LOG_LEVEL"]));
        assert_eq!(plain["env_from"], json!(["STARWEAVER_EXPLAIN_UNSET_TOKEN"]));
        let boxed = &servers[1];
        assert_eq!(boxed["sandboxed"], true);
        assert_eq!(boxed["sandbox"]["mode"], "read-only");
        assert_eq!(boxed["sandbox"]["network"], true);
        assert_eq!(boxed["approval"], "destructive");
        assert_eq!(boxed["tools"], Value::Null);
        let http = &servers[2];
        assert_eq!(
            (
                &http["transport"],
                &http["url"],
                &http["command"],
                &http["cwd"]
            ),
            (
                &json!("http"),
                &json!("https://docs.example.com/mcp"),
                &Value::Null,
                &Value::Null
            )
        );
        assert_eq!(
            (&http["reach"], &http["via"]),
            (&json!("proxy"), &json!("remote"))
        );
        assert_eq!(http["headers"], json!(["Authorization"]));
        assert_eq!(agent["files"]["environment"], Value::Null);

        let (_dir, text) = explain(SERVERS, Format::Human);
        let line = |start: &str| {
            text.lines()
                .find(|line| line.starts_with(start))
                .unwrap_or_else(|| panic!("no {start} line:\n{text}"))
                .to_string()
        };
        let first = line("MCP       everything: ");
        assert!(
            first.contains("runs `mcp-server-everything stdio --verbose` in ")
                && first.contains("not sandboxed: a local server runs with your rights unless its entry sets `sandbox:`"),
            "{text}"
        );
        assert!(
            line("            tools: echo (as ev_echo), get.sum (as ev_get_sum)")
                .contains("waits for approval: get.sum"),
            "{text}"
        );
        let boxed = line("          boxed: ");
        assert!(
            boxed.contains("runs `./servers/time` in ")
                && boxed.contains("sandboxed: read-only, network on"),
            "{text}"
        );
        let docs = line("          docs: ");
        assert!(
            docs.contains("connects to https://docs.example.com/mcp")
                && docs.contains("nothing runs on this machine"),
            "{text}"
        );
        assert!(text.contains("via proxy `remote`"), "{text}");
        // A manifest without servers has no MCP section.
        let (_dir, text) = explain(CAT_ONLY, Format::Human);
        assert!(!text.contains("MCP "), "{text}");
    }

    #[test]
    fn a_deferred_first_party_tool_is_verified_without_a_catalog() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.yaml");
        std::fs::write(
            &file,
            "version: 1\nname: a\nmodel: {id: test}\ntoolsets:\n  - {type: deferred, name: proposals, tools: [edit_file]}\n",
        )
        .unwrap();
        let args = CheckArgs {
            paths: vec![file],
            format: Format::Json,
            explain: true,
            ..CheckArgs::default()
        };
        let outcome = run_explain(&args);
        assert_eq!(outcome.status, CheckStatus::Clean, "{}", outcome.stderr);
        let value: Value = serde_json::from_str(&outcome.stdout).unwrap();
        let tool = &value["agents"][0]["tools"][0];
        assert_eq!(tool["name"], "edit_file");
        assert_eq!(
            (tool["deferred"].clone(), tool["verified"].clone()),
            (json!(true), json!(true))
        );
        // Deferred, so nothing the agent runs writes files.
        assert_eq!(value["agents"][0]["files"]["writable"], false);
        assert_eq!(value["agents"][0]["warnings"], json!([]));
    }
}
