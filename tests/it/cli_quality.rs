//! The command line as a whole, run as the built binary: every command's help carries an
//! example, mistyped commands, flags and values get a suggestion, completion scripts are
//! generated for bash, zsh and fish, `--version` answers, and errors name what went wrong,
//! where, and how to fix it.

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    crate::common::starweaver_binary()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// The subcommands `starweaver --help` lists (without `help`), so a command added later is
/// held to the same rules.
fn subcommands() -> Vec<String> {
    let help = text(&run(&["--help"]).stdout);
    help.lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_command_has_help_with_an_example() {
    let commands = subcommands();
    for expected in ["run", "check", "schema", "tools", "completions"] {
        assert!(commands.iter().any(|c| c == expected), "{commands:?}");
    }
    let top = run(&["--help"]);
    assert_eq!(top.status.code(), Some(0));
    assert!(text(&top.stdout).contains("Examples:\n  starweaver "));
    for command in &commands {
        let output = run(&[command, "--help"]);
        let help = text(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{command}: {help}");
        assert!(
            help.contains("Examples:\n") && help.contains(&format!("  starweaver {command}")),
            "`starweaver {command} --help` shows no example:\n{help}"
        );
        // `-h` is the short form.
        let short = run(&[command, "-h"]);
        assert_eq!(short.status.code(), Some(0), "{command}");
        assert!(text(&short.stdout).contains(&format!("Usage: starweaver {command}")));
    }
}

/// The example lines of a help text: those after `Examples:` that start a command.
fn example_lines(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| !line.starts_with("Examples:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .map(|line| line.trim().to_string())
        .filter(|line| line.contains("starweaver"))
        .collect()
}

// Regression: the top-level help did not say it runs agents, and its examples (and `check`'s,
// and `tools`') named `agents/scout.yaml`, which does not exist: a newcomer pasting one got an
// error.
#[test]
fn the_help_examples_name_only_manifests_that_exist_and_show_every_command() {
    let top = text(&run(&["--help"]).stdout);
    let about = top.lines().next().unwrap_or_default();
    assert!(about.contains("run") && about.contains("check"), "{about}");
    let examples = example_lines(&top);
    for command in subcommands() {
        assert!(
            examples
                .iter()
                .any(|line| line.starts_with(&format!("starweaver {command}"))),
            "the top-level examples show no `{command}`:\n{top}"
        );
    }
    let mut helps = vec![("starweaver".to_string(), top.clone())];
    for command in subcommands() {
        let help = text(&run(&[&command, "--help"]).stdout);
        helps.push((format!("starweaver {command}"), help));
    }
    let repository = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, help) in &helps {
        let lines = example_lines(help);
        assert!(!lines.is_empty(), "`{name} --help` has no example");
        for line in lines {
            // The manifests and folders of this repository an example names; files the user
            // brings (a catalog, a save file) and paths outside it are not looked for.
            for word in line.split_whitespace() {
                let word = word.trim_matches(|c| c == '\'' || c == '"');
                let manifest = word.ends_with(".yaml") || word.ends_with(".yml");
                let folder = word == "agents/" || word.starts_with("agents/");
                if manifest || folder {
                    assert!(
                        repository.join(word).exists(),
                        "`{name} --help` names `{word}`, which does not exist: {line}"
                    );
                }
            }
        }
    }
}

#[test]
fn mistyped_commands_flags_and_values_get_a_suggestion() {
    let cases: [(&[&str], &str); 5] = [
        (&["chek"], "'check'"),
        (&["tols", "agents/repo-helper.yaml"], "'tools'"),
        (&["check", "--deny-warning"], "'--deny-warnings'"),
        (&["tools", "agents/repo-helper.yaml", "--jsn"], "'--json'"),
        (&["completions", "fsh"], "'fish'"),
    ];
    for (args, suggestion) in cases {
        let output = run(args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("tip: ") && stderr.contains(suggestion),
            "{args:?} does not suggest {suggestion}:\n{stderr}"
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn completion_scripts_cover_every_command_and_flag() {
    for shell in ["bash", "zsh", "fish"] {
        let output = run(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = text(&output.stdout);
        for word in ["starweaver", "check", "tools", "completions"] {
            assert!(script.contains(word), "the {shell} script lacks `{word}`");
        }
        for flag in ["deny-warnings", "all", "json", "catalog"] {
            let written = if shell == "fish" {
                format!("-l {flag}")
            } else {
                format!("--{flag}")
            };
            assert!(
                script.contains(&written),
                "the {shell} script lacks `{written}`"
            );
        }
    }
    // Bash, when installed, parses its script.
    let bash = run(&["completions", "bash"]).stdout;
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), bash).unwrap();
    if let Ok(parsed) = Command::new("bash").arg("-n").arg(file.path()).output() {
        assert!(parsed.status.success(), "{}", text(&parsed.stderr));
    }
}

#[test]
fn a_completion_script_read_only_in_part_is_no_crash() {
    // A reader that stops early (`| head -1`) closes the pipe; the binary must not panic.
    let mut child = crate::common::starweaver_binary()
        .args(["completions", "zsh"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert!(
        !text(&output.stderr).contains("panicked"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn version_names_the_program_and_its_version() {
    for flag in ["--version", "-V"] {
        let output = run(&[flag]);
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(
            text(&output.stdout),
            format!("starweaver {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn errors_name_what_where_and_the_fix() {
    // A folder where one manifest is expected: the path, and the command that fits.
    let output = run(&["tools", "agents"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("`agents` is a folder"), "{stderr}");
    assert!(stderr.contains("help: name a file"), "{stderr}");
    // A file that does not exist: its path and the reason.
    let output = run(&["tools", "agents/nope.yaml"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr.contains("cannot read `agents/nope.yaml`") && stderr.contains("No such file"),
        "{stderr}"
    );
    // A missing argument: what is missing and the usage line.
    let output = run(&["tools"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr.contains("<MANIFEST>") && stderr.contains("Usage: starweaver tools"),
        "{stderr}"
    );
    // A manifest with an error: the diagnostic with its line and column, and its help.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.yaml");
    std::fs::write(
        &file,
        "version: 1\nname: x\nmodel: {id: test}\ntoolsets: [{type: filesystem}]\n",
    )
    .unwrap();
    let output = run(&["tools", &file.display().to_string()]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(stderr.contains("error[missing-field]"), "{stderr}");
    assert!(stderr.contains("broken.yaml:4:19"), "{stderr}");
    assert!(stderr.contains("help: add `environment:"), "{stderr}");
    assert!(Path::new(&file).is_file());
}
