//! The explanation on one screen: one line per section, one line per tool, aligned columns.

use std::fmt::Write as _;

use super::facts::{
    ExplainedTool, Explanation, OutputFacts, PathReach, SandboxFacts, SandboxMode, ServerFacts,
    ShellFacts, ShellReach,
};

/// `writeln!` for text that comes from a manifest or a catalog: control characters (a newline,
/// a terminal escape) show as `?`, so a name can neither forge a line nor drive the terminal.
macro_rules! visible_line {
    ($out:expr, $($arg:tt)*) => {{
        let text = visible(&format!($($arg)*));
        std::fmt::Write::write_str(&mut $out, &text)
    }};
}

/// `text` with its control characters shown as `?`, then a newline.
fn visible(text: &str) -> String {
    let mut line: String = text
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    line.push('\n');
    line
}

/// Every explanation, separated by a blank line; the text ends with a newline.
#[must_use]
pub(super) fn render(agents: &[Explanation]) -> String {
    let texts: Vec<String> = agents.iter().map(one).collect();
    texts.join("\n")
}

fn one(agent: &Explanation) -> String {
    let mut out = String::new();
    let _ = visible_line!(out, "Agent     {} ({})", agent.name, agent.file);
    if let Some(description) = &agent.description {
        let _ = visible_line!(out, "          {description}");
    }
    let _ = visible_line!(out, "Model     {}", model(agent));
    let seen: Vec<&ExplainedTool> = agent.tools.iter().filter(|tool| tool.seen).collect();
    let later: Vec<&ExplainedTool> = agent.tools.iter().filter(|tool| !tool.seen).collect();
    let _ = visible_line!(out, "Tools seen on the first request ({})", seen.len());
    table(&mut out, &seen);
    if !later.is_empty() {
        let _ = visible_line!(
            out,
            "Reachable only through a proxy or search ({})",
            later.len()
        );
        table(&mut out, &later);
    }
    for (index, server) in agent.servers.iter().enumerate() {
        let label = if index == 0 {
            "MCP       "
        } else {
            "          "
        };
        let (head, detail) = server_lines(server);
        let _ = visible_line!(out, "{label}{head}");
        let _ = visible_line!(out, "            {detail}");
    }
    let _ = visible_line!(out, "Shell     {}", shell(&agent.shell));
    if agent.shell.reach != ShellReach::nothing() {
        if let Some(facts) = &agent.shell.sandbox {
            let _ = visible_line!(out, "          sandbox: {}", sandbox(facts));
        }
        let _ = visible_line!(out, "          reach: {}", reach(&agent.shell.reach));
    }
    let _ = visible_line!(out, "Files     {}", files(agent));
    match &agent.skills {
        None => {
            let _ = visible_line!(out, "Skills    none (no `skills:` section)");
        }
        Some(skills) => {
            let _ = visible_line!(
                out,
                "Skills    {} loaded (scopes: {})",
                skills.loaded.len(),
                list(&skills.scopes)
            );
            let width = skills
                .loaded
                .iter()
                .map(|s| s.name.len())
                .max()
                .unwrap_or(0);
            for skill in &skills.loaded {
                let _ = visible_line!(out, "  {:width$}  {}", skill.name, skill.path);
            }
            for problem in &skills.diagnostics {
                let _ = visible_line!(
                    out,
                    "  {}: {}: {}",
                    problem.severity,
                    problem.path,
                    problem.message
                );
            }
        }
    }
    let _ = visible_line!(out, "Runtime   {}", runtime(agent));
    match &agent.output {
        None => {
            let _ = visible_line!(out, "Output    text (no `output:` section)");
        }
        Some(facts) => {
            let _ = visible_line!(out, "Output    {}", output(facts));
        }
    }
    if !agent.sub_agents.is_empty() {
        let _ = visible_line!(out, "Sub-agents ({})", agent.sub_agents.len());
    }
    for sub in &agent.sub_agents {
        let _ = visible_line!(out, "  {} (toolset {})", sub.tool, sub.toolset);
        // The sub-agent's own explanation, indented under its tool; its sub-agents nest the
        // same way.
        for line in one(&sub.agent).lines() {
            out.push_str("    ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The answer's contract: the tool, the shape, where the schema is written, the retries.
fn output(facts: &OutputFacts) -> String {
    let shape = if facts.properties.is_empty() {
        let kind = match facts.schema.get("type").and_then(serde_json::Value::as_str) {
            Some(kind) if kind.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {kind}"),
            Some(kind) => format!("a {kind}"),
            None => "a value".to_string(),
        };
        format!("{kind} matching the schema")
    } else {
        let fields: Vec<String> = facts
            .properties
            .iter()
            .map(|name| {
                if facts.required.contains(name) {
                    format!("{name} (required)")
                } else {
                    name.clone()
                }
            })
            .collect();
        format!("an object with {}", fields.join(", "))
    };
    let source = match &facts.schema_file {
        Some(file) => format!("schema from {file}"),
        None => "schema inline".to_string(),
    };
    let retries = match facts.retries {
        0 => "no retry: one answer, then the run fails".to_string(),
        1 => "1 retry: 2 answers in all, then the run fails".to_string(),
        n => format!(
            "{n} retries: {} answers in all, then the run fails",
            u64::from(n) + 1
        ),
    };
    format!(
        "answers through `{}`: {shape} ({source}); {retries}",
        facts.tool
    )
}

fn model(agent: &Explanation) -> String {
    let model = &agent.model;
    let mut text = model.id.clone();
    if let Some(script) = &model.script {
        let _ = write!(text, " (plays the turns in {script})");
    }
    if let Some(url) = &model.base_url {
        let _ = write!(text, " at {url}");
    }
    if let Some(key) = &model.api_key_env {
        let _ = write!(text, ", key from ${key}");
    }
    if !model.settings.is_empty() {
        let settings: Vec<String> = model
            .settings
            .iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect();
        let _ = write!(text, " ({})", settings.join(", "));
    }
    text
}

/// `name  toolset (type)  notes` rows, columns aligned.
fn table(mut out: &mut String, tools: &[&ExplainedTool]) {
    if tools.is_empty() {
        let _ = visible_line!(out, "  (none)");
        return;
    }
    let origin = |tool: &ExplainedTool| match (&tool.toolset, &tool.kind) {
        (Some(name), Some(kind)) if name == kind => name.clone(),
        (Some(name), Some(kind)) => format!("{name} ({kind})"),
        (None, Some(kind)) if kind == "output" => "(output:)".to_string(),
        _ => "(added by the loader)".to_string(),
    };
    let name_width = tools.iter().map(|tool| tool.name.len()).max().unwrap_or(0);
    let origin_width = tools
        .iter()
        .map(|tool| origin(tool).len())
        .max()
        .unwrap_or(0);
    for tool in tools {
        let notes = notes(tool);
        let line = format!(
            "  {:name_width$}  {:origin_width$}  {}",
            tool.name,
            origin(tool),
            notes.join(", ")
        );
        let _ = visible_line!(out, "{}", line.trim_end());
    }
}

fn notes(tool: &ExplainedTool) -> Vec<String> {
    let mut notes = Vec::new();
    // The words `run` and `tools` use for the same wait.
    if tool.approval && tool.kind.as_deref() == Some("user_input") {
        notes.push("waits for answers".to_string());
    } else if tool.approval {
        notes.push("waits for approval".to_string());
    }
    if tool.deferred {
        notes.push("deferred to an external worker".to_string());
    }
    if !tool.verified {
        notes.push("unverified (no catalog)".to_string());
    }
    if tool.toolset.is_none() && tool.kind.as_deref() == Some("output") {
        notes.push("gives the answer; the run ends when it is accepted".to_string());
    }
    match (tool.reach, &tool.via) {
        ("proxy", Some(via)) => notes.push(format!("via proxy `{via}` (call_tool)")),
        ("search", Some(via)) if tool.seen => notes.push(format!("preloaded by search `{via}`")),
        ("search", Some(via)) => notes.push(format!("via search `{via}` (tool_search)")),
        _ if !tool.seen => notes.push("not offered at the start".to_string()),
        _ => {}
    }
    notes
}

fn shell(shell: &ShellFacts) -> String {
    let toolset = match &shell.toolset {
        Some(name) => format!("toolset `{name}`"),
        None => "no shell toolset".to_string(),
    };
    if !shell.execution {
        return format!("execution off ({toolset}; no command can run)");
    }
    let programs = if shell.any_program {
        "any program and shell scripts".to_string()
    } else {
        format!("only {}", list(&shell.programs))
    };
    format!(
        "execution on: {programs} ({toolset}); timeout {} ms, {} bytes kept per stream, {} processes at once",
        shell.timeout_ms, shell.max_output_bytes, shell.max_concurrent_processes
    )
}

fn files(agent: &Explanation) -> String {
    let files = &agent.files;
    let place = match (files.environment, &files.root) {
        (None, _) => return "no environment (no file or shell access)".to_string(),
        (Some("local"), Some(root)) => format!("local folder {root}"),
        (Some(kind), _) => format!("{kind} (in memory, starts empty)"),
    };
    // "read-only" only when nothing the agent runs can write: a shell that can write makes
    // the folder writable whatever the file tools are.
    let access = match (files.writable, files.shell_can_write) {
        (true, _) => format!("writable through {}", list(&files.write_tools)),
        (false, true) => "no file-writing tool".to_string(),
        (false, false) => "read-only (no file-writing tool)".to_string(),
    };
    let reach = &agent.shell.reach;
    let reads_beyond = reach.read == PathReach::Anywhere;
    let shell = if reads_beyond && reach.write == PathReach::Anywhere {
        "; shell commands can read and change files beyond it too (see Shell)"
    } else if reads_beyond && reach.can_write() {
        "; shell commands can change files too, and read files beyond it (see Shell)"
    } else if reads_beyond {
        "; shell commands can read files beyond it (see Shell)"
    } else if reach.can_write() {
        "; shell commands can change files too"
    } else {
        ""
    };
    format!("{place}, {access}{shell}")
}

/// The kernel sandbox: its mode and settings, then whether this kernel enforces it.
fn sandbox(facts: &SandboxFacts) -> String {
    if facts.mode == SandboxMode::Off {
        return "off (`mode: off`): commands run with your rights".to_string();
    }
    let mode = match facts.mode {
        SandboxMode::ReadOnly => "read-only",
        _ => "workspace-write",
    };
    let writable = if facts.writable.is_empty() {
        String::new()
    } else {
        format!(", also writable: {}", list(&facts.writable))
    };
    let network = if facts.network { "on" } else { "off" };
    let enforced = if facts.enforced {
        "this kernel enforces it".to_string()
    } else if facts.required {
        format!(
            "this kernel cannot enforce it, so every command is refused here (it lacks {})",
            facts.not_enforced.join("; ")
        )
    } else {
        format!(
            "this kernel cannot enforce all of it and `required: false` runs commands anyway \
             (it lacks {})",
            facts.not_enforced.join("; ")
        )
    };
    format!(
        "{mode}{writable}, network {network}, reads {}; {enforced}",
        facts.read
    )
}

/// What shell commands reach: the sandbox, then where they read and write, then the network.
fn reach(reach: &ShellReach) -> String {
    let sandbox = match reach.sandbox {
        SandboxMode::Off => "no sandbox, commands run with your rights",
        SandboxMode::Virtual => "simulated, no process runs on this machine",
        SandboxMode::ReadOnly => "read-only sandbox",
        SandboxMode::WorkspaceWrite => "workspace-write sandbox",
    };
    let paths = |paths: &PathReach, system: bool| {
        let mut places = match paths {
            PathReach::Anywhere => return "anything you can".to_string(),
            PathReach::InMemory => return "only the in-memory files".to_string(),
            PathReach::Folders(folders) => folders.clone(),
            PathReach::Nowhere => Vec::new(),
        };
        if system {
            places.push("the system folders programs need".to_string());
        }
        if reach.temporary_folder {
            places.push("their private temporary folder".to_string());
        }
        match places.as_slice() {
            [] => "nothing".to_string(),
            [only] => format!("only {}", in_place(only)),
            [rest @ .., last] => format!(
                "only {} and {}",
                rest.iter()
                    .map(|place| in_place(place))
                    .collect::<Vec<_>>()
                    .join(", "),
                in_place(last)
            ),
        }
    };
    let network = if reach.network {
        "can use the network"
    } else {
        "cannot use the network"
    };
    format!(
        "{sandbox}: they read {}, write {}, and {network}",
        paths(&reach.read, reach.system_folders),
        paths(&reach.write, false)
    )
}

/// A folder as the object of "read"/"write": `in /abs/path`, or the words as they are.
fn in_place(place: &str) -> String {
    if place.starts_with('/') {
        format!("in {place}")
    } else {
        place.to_string()
    }
}

fn runtime(agent: &Explanation) -> String {
    let runtime = &agent.runtime;
    let default = |value: Option<String>| value.unwrap_or_else(|| "the tools' own".to_string());
    format!(
        "{} tool calls, at most {} steps, {}, unavailable tools: {}, tool timeout: {}, retries: {}",
        runtime.tool_execution,
        runtime.max_steps,
        runtime.max_tokens.map_or_else(
            || "no token budget".to_string(),
            |n| format!("at most {n} tokens")
        ),
        runtime.unavailable_tools.replace('_', " "),
        default(runtime.timeout_ms.map(|ms| format!("{ms} ms"))),
        default(runtime.max_retries.map(|n| n.to_string())),
    )
}

/// One MCP server: what it runs or connects to and whether it is sandboxed, then its tools,
/// approvals, variables and how the model reaches it.
fn server_lines(server: &ServerFacts) -> (String, String) {
    let head = match (&server.command, &server.url) {
        (Some(command), _) => {
            let mut line = command.clone();
            for arg in &server.args {
                line.push(' ');
                line.push_str(arg);
            }
            let place = server.cwd.as_deref().unwrap_or(".");
            let sandboxed = match &server.sandbox {
                Some(facts) => format!("sandboxed: {}", sandbox(facts)),
                None => "not sandboxed: a local server runs with your rights unless its entry \
                         sets `sandbox:`"
                    .to_string(),
            };
            format!("{}: runs `{line}` in {place}; {sandboxed}", server.name)
        }
        (None, Some(url)) => format!(
            "{}: connects to {url} (an HTTP server: nothing runs on this machine)",
            server.name
        ),
        (None, None) => format!("{}: no server", server.name),
    };
    let tools = match &server.tools {
        None => "tools: every tool the server lists when it starts".to_string(),
        Some(tools) => {
            let named: Vec<String> = tools
                .iter()
                .map(|tool| {
                    if tool.seen_as == tool.name {
                        tool.name.clone()
                    } else {
                        format!("{} (as {})", tool.name, tool.seen_as)
                    }
                })
                .collect();
            format!("tools: {}", list(&named))
        }
    };
    let mut parts = vec![tools];
    parts.push(match server.approval {
        "all" => "every call waits for approval".to_string(),
        "destructive" => "calls to tools not marked safe wait for approval".to_string(),
        "listed" => format!("waits for approval: {}", list(&server.approval_tools)),
        _ => "no approval".to_string(),
    });
    if !server.env.is_empty() {
        parts.push(format!("env: {}", list(&server.env)));
    }
    if !server.env_from.is_empty() {
        parts.push(format!("from the host: {}", list(&server.env_from)));
    }
    if !server.headers.is_empty() {
        parts.push(format!("headers from the host: {}", list(&server.headers)));
    }
    if let Some(via) = &server.via {
        parts.push(format!("via {} `{via}`", server.reach));
    }
    (head, parts.join("; "))
}

/// `a, b, c`, or `nothing`.
fn list(items: &[String]) -> String {
    if items.is_empty() {
        "nothing".to_string()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_line_says_whether_this_kernel_enforces_it() {
        let mut facts = SandboxFacts {
            mode: SandboxMode::ReadOnly,
            writable: vec!["/work/repo/target".to_string()],
            network: false,
            read: "all",
            required: true,
            enforced: true,
            not_enforced: Vec::new(),
        };
        assert_eq!(
            sandbox(&facts),
            "read-only, also writable: /work/repo/target, network off, reads all; this kernel \
             enforces it"
        );
        facts.enforced = false;
        facts.not_enforced = vec!["Landlock".to_string(), "seccomp filters".to_string()];
        assert_eq!(
            sandbox(&facts),
            "read-only, also writable: /work/repo/target, network off, reads all; this kernel \
             cannot enforce it, so every command is refused here (it lacks Landlock; seccomp \
             filters)"
        );
        facts.required = false;
        assert!(sandbox(&facts).contains("`required: false` runs commands anyway"));
        facts.mode = SandboxMode::Off;
        assert_eq!(
            sandbox(&facts),
            "off (`mode: off`): commands run with your rights"
        );
    }

    #[test]
    fn a_reach_confined_to_folders_names_them() {
        let confined = ShellReach {
            sandbox: SandboxMode::WorkspaceWrite,
            read: PathReach::Anywhere,
            write: PathReach::Folders(vec!["/work/repo".to_string()]),
            network: false,
            temporary_folder: true,
            system_folders: false,
        };
        assert_eq!(
            reach(&confined),
            "workspace-write sandbox: they read anything you can, write only in /work/repo and \
             their private temporary folder, and cannot use the network"
        );
        let sealed = ShellReach {
            sandbox: SandboxMode::ReadOnly,
            read: PathReach::Folders(vec!["/work/repo".to_string()]),
            write: PathReach::Nowhere,
            ..confined
        };
        assert_eq!(
            reach(&ShellReach {
                system_folders: true,
                ..sealed
            }),
            "read-only sandbox: they read only in /work/repo, the system folders programs need \
             and their private temporary folder, write only their private temporary folder, and \
             cannot use the network"
        );
    }
}
