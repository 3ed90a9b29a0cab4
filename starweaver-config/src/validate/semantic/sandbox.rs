//! `shell.sandbox`: the kernel sandbox of a local environment's commands. `mode: off` is a
//! warning (`sandbox-off`); a read-only filesystem toolset beside a shell that can still change
//! files is a warning (`shell-can-write`); a `writable` folder outside the root is a
//! `path-escape` error; a sandbox in a virtual environment, which runs no real process, is an
//! `invalid-value` error.

use super::environment::{kind, root_text, Kind};
use super::model::short;
use super::skills::escapes as leaves;
use super::toolsets::{strings, Entry};
use super::CheckContext;
use crate::diagnostics::{Diagnostic, Rule};
use crate::paths::{environment_root, writable_folder};
use crate::yaml::{Node, Value};

/// The shell bundle's tool that starts commands.
const EXEC: &str = "shell_exec";

/// Every problem of `shell.sandbox`, and of a read-only filesystem beside a shell that writes.
pub(super) fn check(root: &Node, entries: &[Entry<'_>], context: &CheckContext) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let shell = root.get("shell");
    let sandbox = shell.and_then(|shell| shell.entry("sandbox"));
    let environment = kind(root);
    if environment == Some(Kind::Virtual) {
        if let Some((key, _)) = sandbox.filter(|(_, value)| !matches!(value.value, Value::Null)) {
            found.push(
                Diagnostic::error(
                    Rule::InvalidValue,
                    key.span,
                    "a virtual environment runs no real process (its builtin commands touch \
                     only its in-memory files), so `shell.sandbox` cannot apply",
                )
                .with_help(
                    "remove `sandbox`, or use `environment: {type: local}` to run real commands \
                     under it",
                ),
            );
        }
        return found;
    }
    let sandbox = sandbox.map(|(_, value)| value);
    let mode = sandbox.and_then(|sandbox| sandbox.get("mode"));
    if let Some(mode) = mode.filter(|mode| mode.as_str() == Some("off")) {
        found.push(
            Diagnostic::warning(
                Rule::SandboxOff,
                mode.span,
                "`sandbox.mode: off` runs commands without a kernel sandbox: they can write \
                 anywhere the user running the agent can and reach the network",
            )
            .with_help(
                "remove `mode: off` to get `workspace-write` (writes only inside the root, no \
                 network), or use `mode: read-only`",
            ),
        );
    }
    found.extend(escapes(root, sandbox, context));
    found.extend(read_only_beside_a_writing_shell(root, entries, mode));
    found
}

/// `path-escape` for each `writable` folder that leaves the environment root: as written, and
/// through links when the checker knows the manifest's folder.
fn escapes(root: &Node, sandbox: Option<&Node>, context: &CheckContext) -> Vec<Diagnostic> {
    let folders = strings(sandbox.and_then(|sandbox| sandbox.get("writable")));
    let environment = context
        .base_dir()
        .map(|base| environment_root(base, root_text(root)))
        .filter(|folder| folder.is_dir());
    folders
        .into_iter()
        .filter(|folder| match &environment {
            Some(environment) => writable_folder(environment, folder.text).is_err(),
            None => leaves(folder.text),
        })
        .map(|folder| {
            Diagnostic::error(
                Rule::PathEscape,
                folder.span,
                format!(
                    "sandbox folder `{}` leaves the environment root: commands may write only \
                     inside it",
                    short(folder.text)
                ),
            )
            .with_help(
                "name a folder inside the environment root, relative to it (`target`), or widen \
                 `environment.root`",
            )
        })
        .collect()
}

/// `shell-can-write`: every filesystem toolset is read-only, yet the shell can run commands and
/// its sandbox lets them change files.
fn read_only_beside_a_writing_shell(
    root: &Node,
    entries: &[Entry<'_>],
    mode: Option<&Node>,
) -> Vec<Diagnostic> {
    let shell = root.get("shell");
    let executes = matches!(
        shell
            .and_then(|shell| shell.get("allow_execute"))
            .map(|value| &value.value),
        Some(Value::Bool(true))
    );
    let mode_text = match mode.map(|mode| &mode.value) {
        None | Some(Value::Null) => "workspace-write",
        Some(_) => match mode.and_then(Node::as_str) {
            Some(text @ ("workspace-write" | "off")) => text,
            // read-only, or a value the structure pass already refused.
            _ => return Vec::new(),
        },
    };
    let runs = entries
        .iter()
        .any(|entry| entry.kind == "shell" && entry.tools().iter().any(|tool| tool.text == EXEC));
    let files: Vec<&Entry<'_>> = entries
        .iter()
        .filter(|entry| entry.kind == "filesystem")
        .collect();
    // A filesystem toolset that writes already says the agent changes files.
    if !executes
        || !runs
        || files.is_empty()
        || !files.iter().all(|entry| read_only(entry).is_some())
    {
        return Vec::new();
    }
    let Some((_, first)) = files.first().and_then(|entry| read_only(entry)) else {
        return Vec::new();
    };
    let how = if mode.is_some_and(|mode| !matches!(mode.value, Value::Null)) {
        format!("`sandbox.mode: {mode_text}`")
    } else {
        "the default sandbox (`workspace-write`)".to_owned()
    };
    let mut diagnostic = Diagnostic::warning(
        Rule::ShellCanWrite,
        first.span,
        format!(
            "the filesystem tools are read-only, but the shell can still change files: its \
             commands run under {how}"
        ),
    )
    .with_help(
        "set `sandbox.mode: read-only` under `shell:` so commands cannot change files either",
    );
    for other in files.iter().skip(1).filter_map(|entry| read_only(entry)) {
        diagnostic = diagnostic.with_note(format!(
            "the `read_only: true` at line {} is beside the same shell",
            other.1.span.start.line
        ));
    }
    vec![diagnostic]
}

/// The `read_only` key and value of a filesystem entry, when it is `true`.
fn read_only<'a>(entry: &Entry<'a>) -> Option<(&'a Node, &'a Node)> {
    entry
        .node
        .entry("read_only")
        .filter(|(_, value)| matches!(value.value, Value::Bool(true)))
}
