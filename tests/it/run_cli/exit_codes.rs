//! Exit statuses: 0 done, 1 failed, 2 bad usage or a manifest that does not check, 3 waiting.

use super::{assert_status, folder, run, stderr, stdout, APPROVAL};

const LISTER: &str = "version: 1\nname: lister\nmodel: {id: test}\nenvironment: {type: local}\n\
toolsets:\n  - type: filesystem\n    tools: [ls]\n";

#[test]
fn a_completed_run_exits_0_with_the_answer_last_but_usage() {
    let dir = folder(&[("lister.yaml", LISTER)]);
    let output = run(dir.path(), &["run", "lister.yaml", "--prompt", "list"]);
    assert_status(&output, 0);
    let text = stdout(&output);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    assert!(
        lines[lines.len() - 1].starts_with("usage: 2 model request(s)"),
        "{text}"
    );
    // The answer: a header naming the prompt, then one line per call.
    assert_eq!(
        lines[lines.len() - 4],
        "Called 1 tool(s) for \"list\":",
        "{text}"
    );
    assert_eq!(
        lines[lines.len() - 3],
        "- ls: 1 entries: lister.yaml",
        "{text}"
    );
}

#[test]
fn a_run_out_of_steps_exits_1_with_the_reason() {
    let dir = folder(&[("lister.yaml", LISTER)]);
    let output = run(
        dir.path(),
        &["run", "lister.yaml", "--max-steps", "1", "--prompt", "list"],
    );
    assert_status(&output, 1);
    assert!(
        stderr(&output).contains("stopped after 1 model steps"),
        "{}",
        stderr(&output)
    );
    // The fix names the command line's flag, not the library's policy type.
    assert!(
        stderr(&output).contains("raise --max-steps"),
        "{}",
        stderr(&output)
    );
    assert!(
        !stderr(&output).contains("AgentRuntimePolicy"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_manifest_that_does_not_check_exits_2_with_the_diagnostic() {
    let dir = folder(&[(
        "broken.yaml",
        "version: 1\nname: broken\nmodel:\n  idd: test\n",
    )]);
    let output = run(dir.path(), &["run", "broken.yaml", "--prompt", "hi"]);
    assert_status(&output, 2);
    let text = stderr(&output);
    assert!(text.contains("error[unknown-field]"), "{text}");
    assert!(text.contains("--> broken.yaml:4:3"), "{text}");
}

#[test]
fn bad_usage_exits_2_naming_the_problem() {
    let dir = folder(&[("lister.yaml", LISTER)]);
    let output = run(dir.path(), &["run", "missing.yaml", "--prompt", "hi"]);
    assert_status(&output, 2);
    assert!(
        stderr(&output).contains("missing.yaml"),
        "{}",
        stderr(&output)
    );
    let output = run(
        dir.path(),
        &["run", "lister.yaml", "--var", "tone=dry", "--prompt", "hi"],
    );
    assert_status(&output, 2);
    assert!(stderr(&output).contains("unknown variable(s) given with --var: tone"));
    assert!(
        stderr(&output).contains("declares no `vars`"),
        "{}",
        stderr(&output)
    );
    let output = run(dir.path(), &["run", "lister.yaml"]);
    assert_status(&output, 2);
    assert!(stderr(&output).contains("no prompt"), "{}", stderr(&output));
    let output = run(
        dir.path(),
        &["run", "lister.yaml", "--max-steps", "0", "--prompt", "x"],
    );
    assert_status(&output, 2);
}

#[test]
fn a_run_waiting_for_approval_exits_3() {
    let dir = folder(&[("careful.yaml", APPROVAL)]);
    let output = run(
        dir.path(),
        &["run", "careful.yaml", "--save", "run.json", "--prompt", "x"],
    );
    assert_status(&output, 3);
    assert!(
        stdout(&output).contains("waiting for 1 call(s)"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_code_tool_this_binary_lacks_is_a_check_diagnostic() {
    let manifest = "version: 1\nname: coded\nmodel: {id: test}\ntoolsets:\n  - type: tools\n    name: mine\n    tools: [lookup]\n";
    let dir = folder(&[("coded.yaml", manifest)]);
    let output = run(dir.path(), &["run", "coded.yaml", "--prompt", "hi"]);
    assert_status(&output, 2);
    let text = stderr(&output);
    assert!(text.contains("error[unknown-tool]"), "{text}");
    assert!(text.contains("--> coded.yaml:7:13"), "{text}");
}
