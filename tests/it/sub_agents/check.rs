//! What `check` reports for a tree of sub-agents: each problem with its rule, its file and its
//! line and column.

use starweaver::cli::check::{run_check, CheckArgs};
use starweaver::config::diagnostics::{Diagnostic, Rule};

use super::{check_root, leaf, parent};

/// `(rule, line, column)` of each diagnostic.
fn places(found: &[Diagnostic]) -> Vec<(Rule, usize, usize)> {
    found
        .iter()
        .map(|d| (d.rule, d.span.start.line, d.span.start.column))
        .collect()
}

#[test]
fn a_missing_sub_agent_file_is_reported_at_its_path() {
    let (_dir, tree) = check_root(
        &[("lead.yaml", &parent("lead", &["gone.yaml"], ""))],
        "lead.yaml",
    );
    assert_eq!(places(&tree.diagnostics), [(Rule::MissingFile, 8, 15)]);
    assert!(
        tree.diagnostics[0]
            .message
            .contains("`gone.yaml` does not exist"),
        "{}",
        tree.diagnostics[0].message
    );
    assert!(tree.checked.is_none());
    assert!(tree.sub_agents.is_empty());
}

#[test]
fn a_path_out_of_the_manifests_folder_is_a_path_escape() {
    let (_dir, tree) = check_root(
        &[
            ("team/lead.yaml", &parent("lead", &["../outside.yaml"], "")),
            ("outside.yaml", &leaf("outside")),
        ],
        "team/lead.yaml",
    );
    assert_eq!(places(&tree.diagnostics), [(Rule::PathEscape, 8, 15)]);
    assert!(tree.sub_agents.is_empty(), "the file outside is never read");
}

#[test]
fn a_cycle_is_reported_where_it_closes_and_names_both_files() {
    let (dir, tree) = check_root(
        &[
            ("a.yaml", &parent("a", &["b.yaml"], "")),
            ("b.yaml", &parent("b", &["a.yaml"], "")),
        ],
        "a.yaml",
    );
    // In `a.yaml`: its sub-agent has an error.
    assert_eq!(places(&tree.diagnostics), [(Rule::AgentInvalid, 8, 15)]);
    // In `b.yaml`, at its own `path:` line: the edge back to `a.yaml`.
    assert_eq!(tree.sub_agents.len(), 1);
    let b = &tree.sub_agents[0];
    assert_eq!(b.file, dir.path().join("b.yaml"));
    assert_eq!(places(&b.diagnostics), [(Rule::AgentCycle, 8, 15)]);
    let message = &b.diagnostics[0].message;
    let a_shown = dir.path().join("a.yaml").display().to_string();
    let b_shown = dir.path().join("b.yaml").display().to_string();
    assert!(
        message.contains(&format!("{a_shown} -> {b_shown} -> {a_shown}")),
        "{message}"
    );
    assert!(tree.checked.is_none());
}

#[test]
fn a_manifest_naming_itself_is_a_cycle() {
    let (_dir, tree) = check_root(&[("a.yaml", &parent("a", &["./a.yaml"], ""))], "a.yaml");
    assert_eq!(places(&tree.diagnostics), [(Rule::AgentCycle, 8, 15)]);
}

#[test]
fn a_tree_deeper_than_max_depth_is_reported_at_the_edge_too_deep() {
    let files = [
        ("a.yaml", parent("a", &["b.yaml"], "")),
        ("b.yaml", parent("b", &["c.yaml"], "")),
        ("c.yaml", parent("c", &["d.yaml"], "")),
        ("d.yaml", leaf("d")),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let (dir, tree) = check_root(&files, "a.yaml");
    assert_eq!(places(&tree.diagnostics), [(Rule::AgentInvalid, 8, 15)]);
    let c = tree
        .sub_agents
        .iter()
        .find(|file| file.file == dir.path().join("c.yaml"))
        .unwrap();
    // a -> b is level 1, b -> c level 2 (the default allows two), c -> d would be level 3.
    assert_eq!(places(&c.diagnostics), [(Rule::AgentDepth, 8, 15)]);
    assert!(
        c.diagnostics[0].message.contains("level 3"),
        "{}",
        c.diagnostics[0].message
    );
    // `d.yaml` is never reached.
    assert_eq!(tree.sub_agents.len(), 2);

    // The same tree within `max_depth: 3` is clean; `c.yaml` checked alone is clean too.
    let (_dir, deeper) = check_root(
        &[
            ("a.yaml", &parent("a", &["b.yaml"], "    max_depth: 3\n")),
            ("b.yaml", &parent("b", &["c.yaml"], "")),
            ("c.yaml", &parent("c", &["d.yaml"], "")),
            ("d.yaml", &leaf("d")),
        ],
        "a.yaml",
    );
    // `b.yaml` still allows only its own two levels below it: c and d.
    assert!(deeper.diagnostics.is_empty(), "{:#?}", deeper.diagnostics);
    assert!(deeper.checked.is_some());
}

#[test]
fn a_sub_agents_own_max_depth_can_only_narrow_the_limit() {
    let (dir, tree) = check_root(
        &[
            ("a.yaml", &parent("a", &["b.yaml"], "    max_depth: 5\n")),
            ("b.yaml", &parent("b", &["c.yaml"], "    max_depth: 1\n")),
            ("c.yaml", &parent("c", &["d.yaml"], "")),
            ("d.yaml", &leaf("d")),
        ],
        "a.yaml",
    );
    let c = tree
        .sub_agents
        .iter()
        .find(|file| file.file == dir.path().join("c.yaml"))
        .unwrap();
    assert_eq!(places(&c.diagnostics), [(Rule::AgentDepth, 8, 15)]);
}

#[test]
fn a_diagnostic_inside_a_sub_agent_is_reported_in_its_own_file() {
    let child = "version: 1\nname: reviewer\nmodel: {id: test}\ninstructions: Review.\nruntime: {max_stpes: 3}\n";
    let (dir, tree) = check_root(
        &[
            ("lead.yaml", &parent("lead", &["reviewer.yaml"], "")),
            ("reviewer.yaml", child),
        ],
        "lead.yaml",
    );
    assert_eq!(places(&tree.diagnostics), [(Rule::AgentInvalid, 8, 15)]);
    assert!(
        tree.diagnostics[0].notes[0].contains("5:11: error[unknown-field]"),
        "{:?}",
        tree.diagnostics[0].notes
    );
    let reviewer = &tree.sub_agents[0];
    assert_eq!(reviewer.file, dir.path().join("reviewer.yaml"));
    assert_eq!(places(&reviewer.diagnostics), [(Rule::UnknownField, 5, 11)]);
    assert_eq!(reviewer.bytes, child.as_bytes());
}

#[test]
fn sub_agent_tools_take_part_in_the_duplicate_name_rule() {
    // The default tool name is the sub-agent's `name`: `grep`, as the filesystem's.
    let text = format!(
        "{}  - type: filesystem\n    read_only: true\nenvironment: {{type: virtual}}\n",
        parent("lead", &["grep.yaml"], "")
    );
    let (_dir, tree) = check_root(
        &[("lead.yaml", &text), ("grep.yaml", &leaf("grep"))],
        "lead.yaml",
    );
    assert_eq!(places(&tree.diagnostics), [(Rule::DuplicateName, 9, 11)]);
    assert!(
        tree.diagnostics[0]
            .message
            .contains("two tools named `grep`"),
        "{}",
        tree.diagnostics[0].message
    );
    // A `tool:` name of its own clears it.
    let renamed = text.replace("path: grep.yaml", "path: grep.yaml\n        tool: ask_grep");
    let (_dir, tree) = check_root(
        &[("lead.yaml", &renamed), ("grep.yaml", &leaf("grep"))],
        "lead.yaml",
    );
    assert!(tree.diagnostics.is_empty(), "{:#?}", tree.diagnostics);
}

#[test]
fn approval_required_names_the_sub_agents_tools() {
    let extra = "    approval_required: [reviewer, nobody]\n";
    let (_dir, tree) = check_root(
        &[
            ("lead.yaml", &parent("lead", &["reviewer.yaml"], extra)),
            ("reviewer.yaml", &leaf("reviewer")),
        ],
        "lead.yaml",
    );
    assert_eq!(places(&tree.diagnostics), [(Rule::UnknownTool, 9, 35)]);
}

#[test]
fn the_check_command_reports_each_file_of_the_tree_once() {
    let dir = crate::run_cli::folder(&[
        ("lead.yaml", &parent("lead", &["reviewer.yaml"], "")),
        (
            "reviewer.yaml",
            "version: 1\nname: reviewer\nmodel: {id: tset}\n",
        ),
    ]);
    // Named alone, the sub-agent still gets its report.
    let alone = run_check(&CheckArgs {
        paths: vec![dir.path().join("lead.yaml")],
        ..CheckArgs::default()
    });
    let files: Vec<(&str, Vec<Rule>)> = alone
        .reports
        .iter()
        .map(|report| {
            (
                report.path.rsplit('/').next().unwrap(),
                report.diagnostics.iter().map(|d| d.rule).collect(),
            )
        })
        .collect();
    assert_eq!(
        files,
        [
            ("lead.yaml", vec![Rule::AgentInvalid]),
            ("reviewer.yaml", vec![Rule::UnknownModel])
        ]
    );
    // The folder: each file once, the sub-agent's problem not repeated.
    let folder = run_check(&CheckArgs {
        paths: vec![dir.path().to_path_buf()],
        ..CheckArgs::default()
    });
    let counts: Vec<usize> = folder
        .reports
        .iter()
        .map(|report| report.diagnostics.len())
        .collect();
    assert_eq!(counts, [1, 1], "{}", folder.stdout);
}

#[test]
fn explain_shows_the_tree_with_each_sub_agents_tool_model_and_tools() {
    let lead = "version: 1\nname: lead\nmodel: {id: test}\ntoolsets:\n  - type: agents\n    name: helpers\n    prefix: ask\n    agents:\n      - path: reviewer.yaml\n";
    let reviewer = "version: 1\nname: reviewer\nmodel: {id: test}\nenvironment: {type: virtual}\ntoolsets:\n  - type: filesystem\n    read_only: true\n  - type: agents\n    name: second\n    agents: [{path: speller.yaml, tool: spell}]\n";
    let dir = crate::run_cli::folder(&[
        ("lead.yaml", lead),
        ("reviewer.yaml", reviewer),
        ("speller.yaml", &leaf("speller")),
    ]);
    let explain = |format| {
        run_check(&CheckArgs {
            paths: vec![dir.path().join("lead.yaml")],
            explain: true,
            format,
            ..CheckArgs::default()
        })
    };
    let json = explain(starweaver::cli::report::Format::Json);
    assert_eq!(json.stderr, "");
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    // The sub-agent files are explained inside the tree, not as agents of their own.
    let agents = value["agents"].as_array().unwrap();
    let lead = &agents[0];
    assert_eq!(lead["name"], "lead");
    let sub = &lead["sub_agents"][0];
    assert_eq!(sub["toolset"], "helpers");
    assert_eq!(sub["tool"], "ask_reviewer");
    assert_eq!(sub["agent"]["name"], "reviewer");
    assert_eq!(sub["agent"]["model"]["id"], "test");
    let own: Vec<&str> = sub["agent"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(own, ["ls", "read_file", "glob", "grep", "spell"]);
    assert_eq!(sub["agent"]["sub_agents"][0]["agent"]["name"], "speller");

    let human = explain(starweaver::cli::report::Format::Human).stdout;
    assert!(
        human
            .contains("Sub-agents (1)\n  ask_reviewer (toolset helpers)\n    Agent     reviewer ("),
        "{human}"
    );
    assert!(human.contains("\n    Model     test"), "{human}");
    assert!(
        human.contains("\n      spell (toolset second)\n        Agent     speller ("),
        "{human}"
    );
}

#[test]
fn an_agents_toolset_has_no_max_retries_since_a_run_is_never_repeated() {
    let (_dir, tree) = check_root(
        &[
            (
                "lead.yaml",
                &parent("lead", &["reviewer.yaml"], "    max_retries: 2\n"),
            ),
            ("reviewer.yaml", &leaf("reviewer")),
        ],
        "lead.yaml",
    );
    assert_eq!(places(&tree.diagnostics), [(Rule::UnknownField, 9, 5)]);
}
