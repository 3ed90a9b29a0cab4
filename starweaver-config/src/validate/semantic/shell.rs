//! `shell-policy`: allowlist entries that are not plain program names, a shell toolset that can
//! never run anything, and execution with no allowlist (which allows everything).

use super::model::short;
use super::toolsets::{strings, Entry};
use crate::diagnostics::{Diagnostic, Rule};
use crate::yaml::{Node, Value};

/// Characters that make an allowlist entry a path, a command line or a shell pattern rather
/// than a program name.
const FORBIDDEN: &[char] = &[
    '/', '\\', ';', '|', '&', '$', '<', '>', '(', ')', '{', '}', '[', ']', '*', '?', '!', '~', '`',
    '\'', '"', '#', '=',
];

/// Every shell-policy problem of the manifest.
pub(super) fn check(root: &Node, entries: &[Entry<'_>]) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let shell = root.get("shell");
    let allow = shell.and_then(|shell| shell.entry("allow_execute"));
    let executes = matches!(
        allow.map(|(_, value)| &value.value),
        Some(Value::Bool(true))
    );
    let programs = strings(shell.and_then(|shell| shell.get("allowed_programs")));
    for program in &programs {
        let text = program.text;
        if text.is_empty()
            || text
                .chars()
                .any(|c| c.is_whitespace() || FORBIDDEN.contains(&c))
        {
            found.push(
                Diagnostic::error(
                    Rule::ShellPolicy,
                    program.span,
                    format!(
                        "`allowed_programs` entry `{}` is not a program name: it holds a space, \
                         a `/` or a shell character",
                        short(text)
                    ),
                )
                .with_help(
                    "list bare program names such as `git`; arguments cannot be restricted here",
                ),
            );
        }
    }
    if let Some((key, _)) = allow.filter(|_| executes && programs.is_empty()) {
        found.push(
            Diagnostic::warning(
                Rule::ShellPolicy,
                key.span,
                "`allow_execute: true` with an empty `allowed_programs`: any program and shell \
                 scripts may run",
            )
            .with_help("list the programs the agent needs in `allowed_programs`"),
        );
    }
    // A non-boolean `allow_execute` is already a type error; saying the toolset cannot run
    // would only repeat it.
    let readable = allow.is_none_or(|(_, value)| matches!(value.value, Value::Bool(_)));
    if !executes && readable {
        // One setting makes every shell toolset inert: one error, the others as its notes.
        let mut shells = entries.iter().filter(|entry| entry.kind == "shell");
        if let Some(first) = shells.next() {
            let message = if shell.is_none() {
                "a `type: shell` toolset without a `shell:` section can run nothing: no shell \
                 section means no execution"
            } else {
                "a `type: shell` toolset while `shell.allow_execute` is false can run nothing"
            };
            let mut diagnostic = Diagnostic::error(Rule::ShellPolicy, first.kind_span, message)
                .with_help(
                "set `shell: {allow_execute: true, allowed_programs: [...]}`, or drop the toolset",
            );
            for other in shells {
                diagnostic = diagnostic.with_note(format!(
                    "the `type: shell` toolset at line {} can run nothing either",
                    other.kind_span.start.line
                ));
            }
            found.push(diagnostic);
        }
    }
    found
}
