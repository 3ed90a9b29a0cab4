//! `starweaver mcp serve MANIFEST`: load the manifest as `run` does, set its toolsets up, and
//! serve their tools over stdio (until the client closes standard input) or streamable HTTP
//! (`--http 127.0.0.1:PORT`, until Ctrl-C or SIGTERM). Standard output carries the protocol
//! and nothing else; what the server has to say goes to standard error.
//!
//! Exit status: 0 served until the client left (or the signal), 1 the session failed, 2 bad
//! usage or a manifest that cannot be read, checked or loaded.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use starweaver_core::tools::ToolsetLifecycleStatus;
use starweaver_mcp::server::{
    check_http_address, AgentTool, McpServer, ServeOptions, StartupReport,
};
use tokio::signal::unix::{signal, SignalKind};
use tokio_util::sync::CancellationToken;

use crate::run::{name_value, prepare, Hooks, Prepared, Stop};

/// The arguments of `starweaver mcp serve`.
#[derive(Clone, Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver mcp serve agents/repo-helper.yaml\n  starweaver mcp serve agents/repo-helper.yaml --http 127.0.0.1:3001\n  starweaver mcp serve agents/repo-helper.yaml --agent --yes\n\nOver stdio, standard output carries only the protocol and the server exits when its\nstandard input closes. Over HTTP the endpoint is http://ADDR/mcp, printed on standard\nerror once it listens.\n\nExit status: 0 served, 1 the session failed, 2 bad usage or a manifest that does not check."
)]
pub struct ServeArgs {
    /// The agent manifest whose toolsets are served.
    #[arg(value_name = "MANIFEST")]
    pub manifest: PathBuf,
    /// Serve streamable HTTP at this address (`127.0.0.1:PORT`; port 0 picks a free one)
    /// instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// Let --http listen on an address other than loopback: anyone who can reach it can call
    /// every served tool.
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// Also serve `run_<name>`, which runs the agent itself on its model with a prompt.
    #[arg(long)]
    pub agent: bool,
    /// Approve every call that needs approval, without asking the client.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Overrides a variable the manifest declares under `vars` (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = name_value)]
    pub vars: Vec<(String, String)>,
    /// How large the manifest file may be.
    #[command(flatten)]
    pub limit: crate::check::ManifestLimitArgs,
}

/// The command: a runtime, the manifest loaded, the server started and served, its toolsets
/// torn down at the end.
#[must_use]
pub fn serve_main(args: &ServeArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cannot start the async runtime: {error}"), 1),
    };
    let status = runtime.block_on(serve(args));
    // Standard input's reader may still be blocked in a read (after a signal): do not wait
    // for it.
    runtime.shutdown_background();
    match status {
        Ok(()) => ExitCode::SUCCESS,
        Err(stop) => fail(&stop.message, stop.status),
    }
}

async fn serve(args: &ServeArgs) -> Result<(), Stop> {
    // Before anything starts: a refused address sets up no toolset and starts no server.
    if let Some(addr) = args.http {
        check_http_address(addr, args.allow_remote)
            .map_err(|error| Stop::usage(format!("{error}: pass --allow-remote")))?;
    }
    let vars = args.vars.iter().cloned().collect();
    let prepared = prepare(
        &args.manifest,
        &vars,
        None,
        args.limit.limit(),
        &Hooks::default(),
    )
    .await?;
    // What the server logs is masked as a run's output is: secret vars, and the values an MCP
    // toolset takes from the host (a re-served server's stderr tail may repeat them).
    let redactor = prepared.redactor(&vars);
    let mut warnings = prepared.warnings.clone();
    for warning in redactor.take_warnings() {
        warnings.push_str(&warning);
        warnings.push('\n');
    }
    if !warnings.is_empty() {
        log(&redactor.text(&warnings));
    }
    let Prepared {
        loaded,
        name,
        description,
        ..
    } = prepared;
    let policy = &loaded.runtime_policy;
    let registry = loaded
        .agent
        .tool_registry()
        .clone()
        .with_fallback_limits(policy.timeout_ms, policy.max_retries);
    let context = loaded.session.context().clone();
    let instructions: Vec<String> = registry
        .instructions()
        .into_iter()
        .map(|instruction| instruction.text)
        .collect();
    let mut options = ServeOptions::new()
        .with_approve_all(args.yes)
        .with_name(name.clone())
        .with_instructions(instructions.join("\n\n"));
    if args.agent {
        let mut tool = AgentTool::new(&name, loaded.agent.clone(), context.clone());
        if let Some(description) = description {
            tool = tool.with_description(description);
        }
        options = options.with_agent(tool);
    }
    let server = McpServer::start(registry, context, options)
        .await
        .map_err(|error| Stop::usage(redactor.text(&error.to_string())))?;
    log(&redactor.text(&startup_lines(
        &args.manifest.display().to_string(),
        server.report(),
        args,
    )));
    let shutdown = CancellationToken::new();
    watch_signals(shutdown.clone())?;
    let served = match args.http {
        None => {
            tokio::select! {
                served = server.serve_stdio() => served.map_err(|error| Stop {
                    message: redactor.text(&error.to_string()),
                    status: 1,
                }),
                () = shutdown.cancelled() => Ok(()),
            }
        }
        Some(addr) => match server.bind_http(addr, args.allow_remote).await {
            Ok(listener) => {
                log(&format!("listening on {}\n", listener.url()));
                listener.run(shutdown).await;
                Ok(())
            }
            Err(error) => Err(Stop::usage(error.to_string())),
        },
    };
    for report in server.stop().await {
        if report.status == ToolsetLifecycleStatus::Failed {
            log(&redactor.text(&format!(
                "toolset `{}` failed to stop: {}\n",
                report.toolset,
                report.error.unwrap_or_default()
            )));
        }
    }
    served
}

/// What the server says when it starts: what it serves, over which transport, and what it
/// leaves out.
fn startup_lines(manifest: &str, report: &StartupReport, args: &ServeArgs) -> String {
    let transport = if args.http.is_some() {
        "streamable HTTP"
    } else {
        "stdio"
    };
    let mut text = format!(
        "serving {} tool(s) from `{manifest}` over {transport}: {}\n",
        report.served.len(),
        if report.served.is_empty() {
            "none".to_string()
        } else {
            report.served.join(", ")
        }
    );
    if !report.deferred.is_empty() {
        text.push_str(&format!(
            "not served: {} (deferred: their calls wait for an outside worker, which an MCP \
             call cannot wait for)\n",
            report.deferred.join(", ")
        ));
    }
    for setup in &report.lifecycle {
        match setup.status {
            ToolsetLifecycleStatus::Failed | ToolsetLifecycleStatus::Unavailable => {
                text.push_str(&format!(
                    "toolset `{}` is unavailable, its tools are not served{}\n",
                    setup.toolset,
                    setup
                        .error
                        .as_deref()
                        .map(|error| format!(": {error}"))
                        .unwrap_or_default()
                ));
            }
            ToolsetLifecycleStatus::Initialized | ToolsetLifecycleStatus::Closed => {}
        }
    }
    if args.yes {
        text.push_str("--yes: every call that needs approval runs without asking\n");
    }
    text
}

/// Ctrl-C and SIGTERM end serving (and the toolsets are torn down).
fn watch_signals(shutdown: CancellationToken) -> Result<(), Stop> {
    let watch = |kind: SignalKind| {
        signal(kind).map_err(|error| Stop {
            message: format!("cannot watch for signals: {error}"),
            status: 1,
        })
    };
    let mut interrupt = watch(SignalKind::interrupt())?;
    let mut terminate = watch(SignalKind::terminate())?;
    tokio::spawn(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        shutdown.cancel();
    });
    Ok(())
}

/// Writes to standard error (never standard output: it carries the protocol).
fn log(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

fn fail(message: &str, status: u8) -> ExitCode {
    let mut text = if message.starts_with("error") {
        message.to_string()
    } else {
        format!("error: {message}")
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    log(&text);
    ExitCode::from(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_startup_log_names_what_is_served_and_what_is_not() {
        let mut report = StartupReport::default();
        report.served = vec!["echo".into(), "run_x".into()];
        report.deferred = vec!["render_video".into()];
        let args = ServeArgs {
            manifest: "x.yaml".into(),
            http: None,
            allow_remote: false,
            agent: true,
            yes: false,
            vars: Vec::new(),
            limit: crate::check::ManifestLimitArgs::default(),
        };
        let text = startup_lines("x.yaml", &report, &args);
        assert!(text.contains("serving 2 tool(s) from `x.yaml` over stdio: echo, run_x"));
        assert!(text.contains("not served: render_video (deferred"));
    }
}
