#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::diagnostics::{Diagnostic, Rule, Severity};
use crate::validate::{check, check_bytes, CheckContext};

fn found(text: &str) -> Vec<Diagnostic> {
    check_bytes(text.as_bytes())
}

const HEAD: &str = "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: local}\n";

#[test]
fn shell_messages_say_what_the_setting_means() {
    let none = found(&format!("{HEAD}toolsets: [{{type: shell}}]\n"));
    assert_eq!(none.len(), 1);
    assert!(none[0]
        .message
        .contains("no shell section means no execution"));
    let off = found(&format!("{HEAD}shell: {{}}\ntoolsets: [{{type: shell}}]\n"));
    assert!(off[0].message.contains("allow_execute` is false"));
    let typo = found(&format!(
        "{HEAD}shell: {{allow_execute: yes}}\ntoolsets: [{{type: shell}}]\n"
    ));
    assert_eq!(typo.len(), 1, "{typo:?}");
    assert_eq!(typo[0].rule, Rule::InvalidValue);
    let any = found(&format!("{HEAD}shell: {{allow_execute: true}}\n"));
    assert_eq!(any[0].severity, Severity::Warning);
    assert!(any[0]
        .message
        .contains("any program and shell scripts may run"));
    let listed = found(&format!(
        "{HEAD}shell: {{allow_execute: true, allowed_programs: [git, 'a;b', 'x|y', '']}}\n"
    ));
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert!(listed.iter().all(|d| d.rule == Rule::ShellPolicy));
}

#[test]
fn unknown_models_name_the_known_ids() {
    let gemini = found("version: 1\nname: a\nmodel: {id: 'gemini:pro'}\n");
    assert_eq!(gemini[0].message, "unknown model `gemini:pro`");
    assert_eq!(
        gemini[0].help.as_deref(),
        Some("the known model ids are `test`, `script`, `openai:<model>`, `anthropic:<model>`")
    );
    let empty = found("version: 1\nname: a\nmodel: {id: 'openai:'}\n");
    assert_eq!(
        empty[0].message,
        "model `openai:` names no model after `openai:`"
    );
    let other = found("version: 1\nname: a\nmodel: {id: tset}\n");
    assert_eq!(other[0].message, "unknown model `tset`");
}

#[test]
fn template_variables_get_pointed_suggestions() {
    let bare = found(&format!(
        "{HEAD}vars: {{audience: x}}\ninstructions: '{{{{ audience }}}} {{{{ nmae }}}} {{{{ vars.audience }}}} {{% for i in vars.audience %}}{{{{ i }}}}{{% endfor %}}'\n"
    ));
    let helps: Vec<_> = bare.iter().map(|d| d.help.clone().unwrap()).collect();
    assert_eq!(
        helps,
        [
            "variables are under `vars`: write `vars.audience`",
            "did you mean `name`?"
        ]
    );
    assert!(bare.iter().all(|d| d.rule == Rule::UndefinedVariable));
    let missing = found(&format!("{HEAD}instructions: '{{{{ vars.topic }}}}'\n"));
    assert_eq!(
        missing[0].help.as_deref(),
        Some("declare it under `vars:` (`topic: default value`)")
    );
}

#[test]
fn a_catalog_makes_the_unverified_warning_go_away() {
    let text = format!("{HEAD}toolsets: [{{type: tools, name: g, tools: [lookup]}}]\n");
    let unverified = found(&text);
    assert_eq!(unverified.len(), 1);
    assert!(unverified[0].message.contains("not verified"));
    let context = CheckContext::new().with_catalog(["lookup"]);
    assert_eq!(check(text.as_bytes(), &context), []);
    assert_eq!(found(HEAD), []);
}

#[test]
fn prefixes_separate_names_and_approval_accepts_either_form() {
    let text = format!(
        "{HEAD}toolsets:\n  - {{type: filesystem, approval_required: [write_file]}}\n  - {{type: filesystem, name: other, prefix: b, approval_required: [b_edit_file]}}\n"
    );
    assert_eq!(found(&text), []);
    let clash = format!(
        "{HEAD}toolsets:\n  - {{type: filesystem}}\n  - {{type: filesystem, name: other}}\n"
    );
    let clashes = found(&clash);
    assert_eq!(clashes.len(), 6, "{clashes:?}");
    let null_name = found(&format!("{HEAD}toolsets:\n  - {{type: shell, name: null}}\n  - {{type: shell}}\nshell: {{allow_execute: true, allowed_programs: [git]}}\n"));
    assert_eq!(null_name[0].rule, Rule::DuplicateName);
    assert!(null_name[0].message.contains("`shell`"), "{null_name:?}");
    assert!(clashes.iter().all(|d| d.rule == Rule::DuplicateName));
}

#[test]
fn skill_folders_are_looked_up_only_with_a_base() {
    let text = format!("{HEAD}skills: {{scopes: [{{path: no-such-folder}}]}}\n");
    assert_eq!(found(&text), []);
    let base = std::env::temp_dir();
    let with_base = check(text.as_bytes(), &CheckContext::new().with_base_dir(&base));
    assert_eq!(with_base.len(), 1);
    assert_eq!(with_base[0].rule, Rule::SkillScope);
    let absolute = found(&format!("{HEAD}skills: {{scopes: [{{path: /etc}}]}}\n"));
    assert_eq!(absolute[0].rule, Rule::PathEscape);
}

#[test]
fn deeply_nested_templates_are_refused_not_crashed() {
    let deep = format!("{}x{}", "(".repeat(100_000), ")".repeat(100_000));
    let blocks = "{% if x %}".repeat(20_000);
    for body in [format!("{{{{ {deep} }}}}"), blocks] {
        let text = format!("{HEAD}instructions: '{body}'\n");
        let found = found(&text);
        assert_eq!(found.len(), 1, "{:?}", found.first());
        assert_eq!(found[0].rule, Rule::Template);
    }
}

#[test]
fn host_supplied_vars_and_models_are_known() {
    let text = "version: 1\nname: a\nmodel: {id: 'house:gpt'}\ninstructions: '{{ vars.topic }}'\n";
    assert_eq!(found(text).len(), 2);
    let context = CheckContext::new()
        .with_vars(["topic"])
        .with_model_ids(["house:gpt"]);
    assert_eq!(check(text.as_bytes(), &context), []);
    let other = check(
        b"version: 1\nname: a\nmodel: {id: x}\n",
        &CheckContext::new().with_model_ids(["house:gpt"]),
    );
    assert_eq!(
        other[0].help.as_deref(),
        Some("the known model ids are `test`, `script`, `openai:<model>`, `anthropic:<model>`, `house:gpt`")
    );
}

// `range` and the other built-in functions were reported as undefined variables, though the
// loader's renders have them (found by fuzzing).
#[test]
fn template_builtin_functions_are_not_undefined_variables() {
    let text = format!(
        "{HEAD}instructions: \"{{% for i in range(3) %}}{{{{ i }}}} {{% endfor %}}{{{{ dict(a=1).a }}}}\"\n"
    );
    assert_eq!(found(&text), []);
}

const SHELL: &str = "shell:\n  allow_execute: true\n  allowed_programs: [git]\n";
const READ_ONLY_FILES: &str =
    "toolsets:\n  - {type: filesystem, read_only: true}\n  - {type: shell, tools: [shell_exec]}\n";

#[test]
fn a_sandbox_turned_off_is_a_warning_that_says_what_commands_can_do() {
    let off = found(&format!("{HEAD}{SHELL}  sandbox: {{mode: off}}\n"));
    assert_eq!(off.len(), 1, "{off:?}");
    assert_eq!(off[0].rule, Rule::SandboxOff);
    assert_eq!(off[0].severity, Severity::Warning);
    assert_eq!((off[0].span.start.line, off[0].span.start.column), (8, 19));
    assert!(off[0].message.contains("write anywhere"), "{off:?}");
    assert!(off[0].message.contains("network"), "{off:?}");
    let help = off[0].help.as_deref().unwrap();
    assert!(
        help.contains("remove `mode: off`") && help.contains("read-only"),
        "{help}"
    );
    for fine in ["read-only", "workspace-write"] {
        let text = format!("{HEAD}{SHELL}  sandbox: {{mode: {fine}}}\n");
        assert_eq!(found(&text), [], "{fine}");
    }
    let marked = format!(
        "{HEAD}{SHELL}  sandbox:\n    # starweaver-check: allow(sandbox-off)\n    mode: off\n"
    );
    assert_eq!(found(&marked), []);
}

#[test]
fn a_read_only_filesystem_beside_a_shell_that_writes_is_a_warning() {
    let default = found(&format!("{HEAD}{SHELL}{READ_ONLY_FILES}"));
    assert_eq!(default.len(), 1, "{default:?}");
    assert_eq!(default[0].rule, Rule::ShellCanWrite);
    assert_eq!(default[0].severity, Severity::Warning);
    assert!(
        default[0]
            .message
            .contains("the shell can still change files"),
        "{default:?}"
    );
    assert!(
        default[0].message.contains("workspace-write"),
        "{default:?}"
    );
    assert_eq!(
        default[0].help.as_deref(),
        Some("set `sandbox.mode: read-only` under `shell:` so commands cannot change files either")
    );
    let off = found(&format!(
        "{HEAD}{SHELL}  sandbox: {{mode: off}}\n{READ_ONLY_FILES}"
    ));
    let rules: Vec<Rule> = off.iter().map(|d| d.rule).collect();
    assert_eq!(rules, [Rule::SandboxOff, Rule::ShellCanWrite], "{off:?}");
    // Nothing to warn about: commands cannot write, cannot run, or a file tool writes anyway.
    for quiet in [
        format!("{HEAD}{SHELL}  sandbox: {{mode: read-only, writable: [target]}}\n{READ_ONLY_FILES}"),
        format!("{HEAD}shell: {{allow_execute: false}}\ntoolsets: [{{type: filesystem, read_only: true}}]\n"),
        format!("{HEAD}{SHELL}toolsets:\n  - {{type: filesystem, read_only: true}}\n  - {{type: shell, tools: [shell_status]}}\n"),
        format!("{HEAD}{SHELL}{READ_ONLY_FILES}  - {{type: filesystem, name: rw, prefix: rw}}\n"),
    ] {
        assert_eq!(found(&quiet), [], "{quiet}");
    }
    let marked = format!(
        "{HEAD}{SHELL}toolsets:\n  # starweaver-check: allow(shell-can-write)\n  - {{type: filesystem, read_only: true}}\n  - {{type: shell}}\n"
    );
    assert_eq!(found(&marked), []);
}

#[test]
fn writable_folders_stay_inside_the_root() {
    let text = format!(
        "{HEAD}{SHELL}  sandbox: {{mode: read-only, writable: [target, ../out, /tmp, a/../../b, ./build/..]}}\n"
    );
    let escapes = found(&text);
    let places: Vec<(Rule, usize)> = escapes
        .iter()
        .map(|d| (d.rule, d.span.start.column))
        .collect();
    assert_eq!(
        places,
        [
            (Rule::PathEscape, 49),
            (Rule::PathEscape, 57),
            (Rule::PathEscape, 63)
        ],
        "{escapes:?}"
    );
    assert!(escapes[0]
        .message
        .contains("`../out` leaves the environment root"));
    // With the folder known, a link out of the root escapes too.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(std::env::temp_dir(), dir.path().join("out")).unwrap();
    let linked = format!("{HEAD}{SHELL}  sandbox: {{writable: [out, target]}}\n");
    let found = check(
        linked.as_bytes(),
        &CheckContext::new().with_base_dir(dir.path()),
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, Rule::PathEscape);
}

#[test]
fn a_virtual_environment_refuses_a_sandbox() {
    let text = "version: 1\nname: a\nmodel: {id: test}\nenvironment: {type: virtual}\nshell:\n  allow_execute: true\n  allowed_programs: [echo]\n  sandbox: {mode: off}\n";
    let refused = found(text);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].rule, Rule::InvalidValue);
    assert_eq!(refused[0].span.start.line, 8);
    assert!(
        refused[0].message.contains("virtual environment"),
        "{refused:?}"
    );
    assert!(
        refused[0]
            .help
            .as_deref()
            .unwrap()
            .contains("remove `sandbox`"),
        "{refused:?}"
    );
}

#[test]
fn bad_sandbox_values_get_the_line_to_write() {
    let cases = [
        ("{mode: readonly}", "did you mean `read-only`?"),
        (
            "{mode: sealed}",
            "write one of the values listed, for example `mode: read-only`",
        ),
        (
            "{network: yes}",
            "write `network: true` or `network: false`",
        ),
        (
            "{writable: target}",
            "even of one item: `writable: [target]`",
        ),
        (
            "{read: home}",
            "write one of the values listed, for example `read: all`",
        ),
        ("{required: 'true'}", "remove the quotes: `required: true`"),
        ("{mdoe: off}", "did you mean `mode`?"),
    ];
    for (sandbox, hint) in cases {
        let text = format!("{HEAD}{SHELL}  sandbox: {sandbox}\n");
        let found = found(&text);
        assert_eq!(found.len(), 1, "{sandbox}: {found:?}");
        let help = found[0].help.as_deref().unwrap_or_default();
        assert!(help.contains(hint), "{sandbox}: {help}");
    }
}

/// The head of a manifest without an environment.
const BARE: &str = "version: 1\nname: a\nmodel: {id: test}\n";

#[test]
fn an_mcp_toolset_needs_no_environment_and_checking_starts_no_server() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("started");
    let text = format!(
        "{BARE}toolsets:\n  - type: mcp\n    name: probe\n    command: sh\n    args: [-c, 'touch {}']\n",
        marker.display()
    );
    let context = CheckContext::new().with_base_dir(dir.path());
    let (found, checked) = crate::validate::check_manifest(text.as_bytes(), &context);
    assert_eq!(found, []);
    assert!(checked.is_some());
    assert!(!marker.exists(), "checking ran the server's program");
}

#[test]
fn mcp_transport_messages_say_which_key_to_keep() {
    let both = found(&format!(
        "{BARE}toolsets: [{{type: mcp, name: s, command: x, url: 'http://h/mcp'}}]\n"
    ));
    assert_eq!(both.len(), 1, "{both:?}");
    assert!(both[0].message.contains("both `command` and `url`"));
    assert_eq!(
        both[0].help.as_deref(),
        Some("keep `command` for a local server, or `url` for an HTTP one")
    );
    let neither = found(&format!("{BARE}toolsets: [{{type: mcp, name: s}}]\n"));
    assert_eq!(neither[0].rule, Rule::MissingField);
    for bad in [
        "ftp://h/mcp",
        "http://",
        "127.0.0.1:3001/mcp",
        "http:///mcp",
        "http://a b/",
    ] {
        let found = found(&format!(
            "{BARE}toolsets: [{{type: mcp, name: s, url: '{bad}'}}]\n"
        ));
        assert_eq!(found.len(), 1, "{bad}: {found:?}");
        assert_eq!(found[0].rule, Rule::InvalidValue, "{bad}");
    }
    for good in ["http://127.0.0.1:3001/mcp", "HTTPS://docs.example.com/mcp"] {
        let found = found(&format!(
            "{BARE}toolsets: [{{type: mcp, name: s, url: '{good}'}}]\n"
        ));
        assert_eq!(found, [], "{good}");
    }
}

#[test]
fn a_secret_in_env_is_a_warning_that_names_env_from() {
    let found = found(&format!(
        "{BARE}toolsets: [{{type: mcp, name: s, command: x, env: {{API_KEY: abcdefgh, LOG_LEVEL: debug}}}}]\n"
    ));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, Rule::LiteralSecret);
    assert_eq!(found[0].severity, Severity::Warning);
    assert!(found[0].message.contains("`env.API_KEY`"));
    assert!(found[0].message.contains("its name says it holds a secret"));
    assert_eq!(
        found[0].help.as_deref(),
        Some("set `API_KEY` on the host and list it in `env_from: [API_KEY]` instead")
    );
}

#[test]
fn mcp_tools_unknown_until_the_server_starts_are_not_judged() {
    // No `tools:`: approvals, a search's preload and a prefix's names cannot be judged.
    let open = found(&format!(
        "{BARE}toolsets:\n  - {{type: mcp, name: s, command: x, prefix: ev, approval_required: [anything]}}\n  - {{type: search, name: f, toolsets: [s], preload: [ev_anything]}}\n"
    ));
    assert_eq!(open, []);
    // With `tools:`, a preload names the mapped name.
    let listed = found(&format!(
        "{BARE}toolsets:\n  - {{type: mcp, name: s, command: x, prefix: ev, tools: [get.sum]}}\n  - {{type: search, name: f, toolsets: [s], preload: [ev_get_sum, ev_nope]}}\n"
    ));
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].rule, Rule::UnknownTool);
    assert!(listed[0].message.contains("`ev_nope`"));
    assert_eq!(
        listed[0].help.as_deref(),
        Some("the tools allowed here are `ev_get_sum`")
    );
}

#[test]
fn a_deferred_set_names_toolsets_with_tools_of_their_own() {
    let fine = found(&format!(
        "{BARE}toolsets:\n  - {{type: mcp, name: s, command: x}}\n  - {{type: deferred, name: jobs, toolsets: [s]}}\n"
    ));
    assert_eq!(fine, []);
    let neither = found(&format!(
        "{BARE}toolsets:\n  - {{type: deferred, name: jobs}}\n"
    ));
    assert_eq!(neither.len(), 1, "{neither:?}");
    assert_eq!(neither[0].rule, Rule::MissingField);
    assert!(neither[0].help.as_deref().unwrap().contains("toolsets:"));
    let unknown = found(&format!(
        "{BARE}toolsets:\n  - {{type: mcp, name: server, command: x}}\n  - {{type: deferred, name: jobs, toolsets: [sever]}}\n"
    ));
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert_eq!(unknown[0].rule, Rule::UnknownToolset);
    assert!(unknown[0].help.as_deref().unwrap().contains("server"));
    // A proxy cannot hold a deferred set assembled from other toolsets, nor one itself.
    let nested = found(&format!(
        "{BARE}toolsets:\n  - {{type: mcp, name: s, command: x}}\n  - {{type: deferred, name: jobs, toolsets: [s]}}\n  - {{type: proxy, name: p, toolsets: [jobs]}}\n  - {{type: deferred, name: self, toolsets: [self]}}\n"
    ));
    assert_eq!(nested.len(), 2, "{nested:?}");
    assert!(nested.iter().all(|d| d.rule == Rule::UnknownToolset));
    assert!(
        nested[0].message.contains("is a deferred toolset"),
        "{nested:?}"
    );
}

#[test]
fn an_mcp_entrys_listed_tools_collide_with_another_toolsets_tools() {
    // Unprefixed: the server's `read_file` is the filesystem's `read_file`.
    let plain = found(&format!(
        "{HEAD}toolsets:\n  - {{type: filesystem}}\n  - {{type: mcp, name: s, command: x, tools: [read_file]}}\n"
    ));
    assert_eq!(plain.len(), 1, "{plain:?}");
    assert_eq!(plain[0].rule, Rule::DuplicateName);
    assert_eq!(
        plain[0].message,
        "the agent would have two tools named `read_file`: one from toolset `filesystem` \
         (line 6) and one from toolset `s`"
    );
    assert_eq!(
        plain[0].help.as_deref(),
        Some("set `prefix:` on one of the toolsets, or drop the tool from one")
    );
    // Prefixed and mapped: `fs` + `read.file` reaches the model as `fs_read_file`.
    let prefixed = found(&format!(
        "{HEAD}toolsets:\n  - {{type: filesystem, prefix: fs}}\n  - {{type: mcp, name: s, command: x, prefix: fs, tools: [read.file]}}\n"
    ));
    assert_eq!(prefixed.len(), 1, "{prefixed:?}");
    assert_eq!(prefixed[0].rule, Rule::DuplicateName);
    assert!(
        prefixed[0]
            .message
            .starts_with("the agent would have two tools named `fs_read_file`"),
        "{prefixed:?}"
    );
    // A different prefix on the server keeps them apart.
    let apart = found(&format!(
        "{HEAD}toolsets:\n  - {{type: filesystem}}\n  - {{type: mcp, name: s, command: x, prefix: srv, tools: [read_file]}}\n"
    ));
    assert_eq!(apart, []);
}

#[test]
fn two_listed_names_of_one_server_that_map_to_one_provider_name_are_reported() {
    let mapped = found(&format!(
        "{BARE}toolsets:\n  - type: mcp\n    name: s\n    command: x\n    tools: [a.b, a_b]\n"
    ));
    assert_eq!(mapped.len(), 1, "{mapped:?}");
    assert_eq!(mapped[0].rule, Rule::DuplicateName);
    assert_eq!(
        mapped[0].message,
        "`a_b` and `a.b` (line 8) of toolset `s` both reach the model as `a_b`: characters \
         tool names cannot hold become `_`"
    );
    assert_eq!(
        mapped[0].help.as_deref(),
        Some("list only one of them in `tools:`")
    );
    // With a prefix the mapped name carries it.
    let prefixed = found(&format!(
        "{BARE}toolsets:\n  - {{type: mcp, name: s, command: x, prefix: ev, tools: [get.sum, get_sum]}}\n"
    ));
    assert_eq!(prefixed.len(), 1, "{prefixed:?}");
    assert!(
        prefixed[0].message.ends_with(
            "both reach the model as `ev_get_sum`: characters tool names cannot hold become `_`"
        ),
        "{prefixed:?}"
    );
}
