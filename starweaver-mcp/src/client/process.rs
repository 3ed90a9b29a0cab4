//! A stdio server's process: started in a process group of its own with
//! the scrubbed base environment the shell uses, its stderr drained, its
//! exit watched, and its whole group stopped when it is no longer used.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use starweaver_core::environment::{SandboxLauncher, SandboxPolicy, DEFAULT_INHERITED_ENV};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use super::stderr::StderrTail;
use super::McpError;

/// Time between `SIGTERM` and `SIGKILL` when a server is stopped.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// What starting a server needs.
pub(crate) struct Launch<'a> {
    /// The toolset's name, for messages.
    pub(crate) toolset: &'a str,
    /// A name on `PATH`, or a path.
    pub(crate) command: &'a str,
    /// Literal arguments.
    pub(crate) args: &'a [String],
    /// Variables over the scrubbed base.
    pub(crate) env: &'a BTreeMap<String, String>,
    /// The folder it starts in.
    pub(crate) cwd: &'a Path,
    /// The sandbox it starts under, if any.
    pub(crate) sandbox: Option<&'a SandboxPolicy>,
}

/// A running (or ended) server process. Dropping it kills its group.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    toolset: String,
    /// The group the server leads.
    group: Option<Pid>,
    /// `Some(status text)` once it ended.
    exit: watch::Receiver<Option<String>>,
    stderr: StderrTail,
    /// Keeps the sandbox's private folder while the server runs.
    _launcher: Option<SandboxLauncher>,
}

/// A started server and its pipes.
pub(crate) struct Started {
    /// The process.
    pub(crate) process: ServerProcess,
    /// What it writes (protocol).
    pub(crate) stdout: ChildStdout,
    /// What it reads (protocol).
    pub(crate) stdin: ChildStdin,
}

/// Starts the server.
///
/// # Errors
/// [`McpError::Spawn`] when it cannot start; [`McpError::Invalid`] when
/// its sandbox cannot be set up.
pub(crate) async fn start(launch: &Launch<'_>) -> Result<Started, McpError> {
    let failed = |source: std::io::Error| McpError::Spawn {
        toolset: launch.toolset.to_string(),
        command: launch.command.to_string(),
        source,
    };
    let launcher =
        match launch.sandbox {
            Some(policy) => Some(SandboxLauncher::new(policy, launch.cwd).map_err(|error| {
                McpError::Invalid {
                    toolset: launch.toolset.to_string(),
                    message: format!("its sandbox cannot be set up: {error}"),
                }
            })?),
            None => None,
        };
    let mut env = base_environment();
    if let Some(temporary) = launcher.as_ref().and_then(SandboxLauncher::temporary_dir) {
        env.insert(OsString::from("TMPDIR"), temporary.as_os_str().to_owned());
    }
    for (name, value) in launch.env {
        if name.is_empty() || name.contains(['=', '\0']) {
            return Err(failed(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("environment variable name `{name}` is empty or holds `=` or a NUL byte"),
            )));
        }
        env.insert(OsString::from(name), OsString::from(value));
    }
    let program = resolve(launch.command, &env, launch.cwd).map_err(failed)?;
    let mut command = Command::new(program);
    command
        .args(launch.args)
        .env_clear()
        .envs(&env)
        .current_dir(launch.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match &launcher {
        Some(launcher) => launcher.spawn(command).await,
        None => command.spawn(),
    }
    .map_err(failed)?;
    let group = child
        .id()
        .and_then(|pid| i32::try_from(pid).ok())
        .map(Pid::from_raw);
    let (Some(stdout), Some(stdin), Some(stderr)) =
        (child.stdout.take(), child.stdin.take(), child.stderr.take())
    else {
        return Err(failed(std::io::Error::other("the pipes were not set up")));
    };
    let stderr = StderrTail::drain(stderr);
    let (report, exit) = watch::channel(None);
    tokio::spawn(async move {
        let status = match child.wait().await {
            Ok(status) => describe(status),
            Err(error) => format!("could not be waited for ({error})"),
        };
        let _ = report.send(Some(status));
    });
    Ok(Started {
        process: ServerProcess {
            toolset: launch.toolset.to_string(),
            group,
            exit,
            stderr,
            _launcher: launcher,
        },
        stdout,
        stdin,
    })
}

impl ServerProcess {
    /// How it ended, once it has.
    pub(crate) fn exit_status(&self) -> Option<String> {
        self.exit.borrow().clone()
    }

    /// Waits until it ends.
    pub(crate) async fn ended(&self) -> String {
        let mut exit = self.exit.clone();
        loop {
            if let Some(status) = exit.borrow_and_update().clone() {
                return status;
            }
            if exit.changed().await.is_err() {
                return "ended".to_string();
            }
        }
    }

    /// The tail of its stderr.
    pub(crate) fn stderr(&self) -> String {
        self.stderr.text()
    }

    /// The error for its end: `exited with status N` and its stderr tail.
    pub(crate) fn exited_error(&self, status: String) -> McpError {
        McpError::Exited {
            toolset: self.toolset.clone(),
            status,
            stderr: self.stderr(),
        }
    }

    /// Stops the group: `SIGTERM`, then `SIGKILL` after the grace period
    /// if the server is still running.
    pub(crate) async fn stop(&self) {
        let Some(group) = self.group else { return };
        if self.exit_status().is_none() {
            let _ = killpg(group, Signal::SIGTERM);
            let _ = tokio::time::timeout(STOP_GRACE, self.ended()).await;
        }
        let _ = killpg(group, Signal::SIGKILL);
    }
}

impl Drop for ServerProcess {
    /// No server process, nor anything it started in its group, outlives
    /// its toolset.
    fn drop(&mut self) {
        if let Some(group) = self.group {
            let _ = killpg(group, Signal::SIGKILL);
        }
    }
}

/// `exited with status N`, or `was killed by signal N`.
fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "exited".to_string(),
    }
}

/// The host variables every shell command gets (`PATH`, `HOME` and the
/// like), those that are set; nothing else of the host's environment.
fn base_environment() -> BTreeMap<OsString, OsString> {
    DEFAULT_INHERITED_ENV
        .iter()
        .filter_map(|name| std::env::var_os(name).map(|value| (OsString::from(name), value)))
        .collect()
}

/// The program `command` names: a path (anything with a `/`, relative to
/// `cwd`), or the first executable of that name on the server's own
/// `PATH` (absolute entries only).
fn resolve(
    command: &str,
    env: &BTreeMap<OsString, OsString>,
    cwd: &Path,
) -> Result<PathBuf, std::io::Error> {
    use std::os::unix::fs::PermissionsExt;
    if command.is_empty() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the command is empty",
        ));
    }
    if command.contains('/') {
        return Ok(cwd.join(command));
    }
    let path = env
        .get(&OsString::from("PATH"))
        .cloned()
        .unwrap_or_default();
    std::env::split_paths(&path)
        .filter(|directory| directory.is_absolute())
        .map(|directory| directory.join(command))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        })
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("no executable `{command}` on the server's PATH; check the name or give its path"),
            )
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn bare_names_are_found_on_path_and_paths_are_taken_from_cwd() {
        let env = BTreeMap::from([(OsString::from("PATH"), OsString::from("rel:/bin"))]);
        assert_eq!(
            resolve("sh", &env, Path::new("/tmp")).unwrap(),
            Path::new("/bin/sh")
        );
        assert_eq!(
            resolve("./server.py", &env, Path::new("/srv")).unwrap(),
            Path::new("/srv/./server.py")
        );
        assert!(resolve("starweaver-no-such-server", &env, Path::new("/")).is_err());
        assert!(resolve("", &env, Path::new("/")).is_err());
    }

    #[test]
    fn the_base_environment_holds_only_the_shells_variables() {
        let env = base_environment();
        assert!(env
            .keys()
            .all(|name| DEFAULT_INHERITED_ENV.contains(&name.to_str().unwrap())));
    }
}
