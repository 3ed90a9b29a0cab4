//! Starting one command: `/bin/sh -c` for scripts, the program itself
//! (no shell, literal arguments) for programs; a scrubbed environment;
//! its own process group; piped output drained by capture tasks.
//!
//! The start happens on a fresh thread that is tagged (see
//! [`super::escapees`]) and restricted by the sandbox first: the command
//! inherits both, and the host's other threads keep every right. The
//! working directory is entered through the handle the root's confined
//! handle opened (`/proc/self/fd/N` in the child), never by a path that
//! could have been swapped for a link since it was checked.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use tokio::process::{Child, ChildStdin, Command};
use tokio::time::Instant;

use cap_std::fs::Dir;

use super::capture::Capture;
use super::escapees::{become_subreaper, Tag};
use super::group::ProcessGroup;
use crate::environment::local::sandbox::Prepared;
use crate::environment::{CommandRequest, EnvironmentError, ProcessLimits};

/// The stack of the short-lived thread that starts a command.
const SPAWN_STACK: usize = 256 * 1024;

/// A command's working directory: the handle it is entered through, and
/// its host path for messages.
#[derive(Debug)]
pub(in crate::environment::local) struct CommandDirectory {
    /// Opened through the root's confined handle.
    pub(in crate::environment::local) handle: Dir,
    /// The host path (inside the root).
    pub(in crate::environment::local) path: PathBuf,
}

/// The shell scripts run under.
const SHELL: &str = "/bin/sh";

/// Everything a start needs besides the command.
#[derive(Debug)]
pub(super) struct Launch<'a> {
    /// The directory the command runs in (opened inside the root).
    pub(super) directory: &'a CommandDirectory,
    /// The sandbox it runs under.
    pub(super) sandbox: &'a Arc<Prepared>,
    /// Bounds and the host variables to pass on.
    pub(super) limits: &'a ProcessLimits,
    /// Variables the provider sets for every command.
    pub(super) fixed_env: &'a BTreeMap<String, String>,
    /// Whether the command gets a stdin pipe (else `/dev/null`).
    pub(super) piped_stdin: bool,
}

/// A running command with its group and output capture.
#[derive(Debug)]
pub(super) struct Spawned {
    /// The group leader.
    pub(super) child: Child,
    /// Its group; dropping it kills the group.
    pub(super) group: ProcessGroup,
    /// The stdin pipe, when asked for.
    pub(super) stdin: Option<ChildStdin>,
    /// Standard output, being drained.
    pub(super) stdout: Capture,
    /// Standard error, being drained.
    pub(super) stderr: Capture,
    /// When it started.
    pub(super) started: Instant,
}

/// Starts `request` as the leader of a new process group.
///
/// # Errors
/// [`EnvironmentError::Spawn`] when it cannot start (no such program, an
/// invalid variable name, ...).
pub(super) async fn spawn(
    request: &CommandRequest,
    launch: &Launch<'_>,
) -> Result<Spawned, EnvironmentError> {
    let failed = |source| EnvironmentError::Spawn {
        command: request.display(),
        source,
    };
    let env = environment(request, launch).map_err(failed)?;
    let mut command = match request {
        CommandRequest::Shell(shell) => {
            let mut command = Command::new(SHELL);
            command.arg("-c").arg(&shell.form.script);
            command
        }
        CommandRequest::Program(program) => {
            let executable = resolve(&program.form.executable, &env).map_err(failed)?;
            let mut command = Command::new(executable);
            command.args(&program.form.args);
            command
        }
    };
    command
        .env_clear()
        .envs(env)
        .stdin(if launch.piped_stdin {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let directory = launch.directory.handle.try_clone().map_err(failed)?;
    let start = Start {
        command,
        directory,
        path: launch.directory.path.clone(),
        tag: Tag::allocate(),
        sandbox: Arc::clone(launch.sandbox),
    };
    let (mut child, tag) = start.run().await.map_err(failed)?;
    let started = Instant::now();
    let group = child
        .id()
        .and_then(|pid| ProcessGroup::led_by(pid, tag))
        .ok_or_else(|| {
            failed(std::io::Error::other(
                "the process ended before its group could be recorded",
            ))
        })?;
    let limit = launch.limits.max_output_bytes;
    let stdout = child.stdout.take().map(|pipe| Capture::start(pipe, limit));
    let stderr = child.stderr.take().map(|pipe| Capture::start(pipe, limit));
    let (Some(stdout), Some(stderr)) = (stdout, stderr) else {
        return Err(failed(std::io::Error::other(
            "output pipes were not set up",
        )));
    };
    Ok(Spawned {
        stdin: child.stdin.take(),
        child,
        group,
        stdout,
        stderr,
        started,
    })
}

/// What the thread that starts a command takes with it: everything it
/// uses is its own, so a call dropped while it starts leaves it nothing
/// dangling (a working-directory descriptor closed and reused, say).
struct Start {
    command: Command,
    /// A handle of its own on the working directory.
    directory: Dir,
    path: PathBuf,
    tag: Tag,
    sandbox: Arc<Prepared>,
}

impl Start {
    /// Starts the command from a fresh thread marked with the tag and
    /// restricted by the sandbox, awaiting it without holding up the
    /// runtime's worker. A call dropped meanwhile gets its process killed
    /// by the thread, with what it started.
    async fn run(self) -> std::io::Result<(Child, Tag)> {
        become_subreaper();
        let runtime = tokio::runtime::Handle::try_current().map_err(std::io::Error::other)?;
        let (answer, answered) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("starweaver-spawn".into())
            .stack_size(SPAWN_STACK)
            .spawn(move || {
                let Self {
                    mut command,
                    directory,
                    path,
                    tag,
                    sandbox,
                } = self;
                let started = {
                    let _entered = runtime.enter();
                    command.current_dir(entered(&directory, &path));
                    tag.mark_current_thread(&sandbox)
                        .and_then(|()| command.spawn())
                };
                let unclaimed = match answer.send(started.map(|child| (child, tag))) {
                    Err(Ok((child, tag))) => Some((child, tag)),
                    _ => None,
                };
                if let Some((child, tag)) = unclaimed {
                    if let Some(group) = child.id().and_then(|pid| ProcessGroup::led_by(pid, tag)) {
                        drop(group);
                    }
                }
            })?;
        answered
            .await
            .unwrap_or_else(|_| Err(std::io::Error::other("the thread starting it ended early")))
    }
}

/// The working directory as the child enters it: the open handle through
/// `/proc/self/fd` where Linux offers it, else the checked path.
fn entered(handle: &Dir, path: &Path) -> PathBuf {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let _ = path;
        PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd()))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = handle;
        path.to_path_buf()
    }
}

/// The scrubbed environment: the inherited host variables that are set,
/// then the sandbox's `TMPDIR`, then the provider's fixed variables, then
/// the request's, later ones replacing earlier ones.
fn environment(
    request: &CommandRequest,
    launch: &Launch<'_>,
) -> Result<BTreeMap<OsString, OsString>, std::io::Error> {
    let mut env = BTreeMap::new();
    for name in &launch.limits.inherited_env {
        if valid_name(name) {
            if let Some(value) = std::env::var_os(name) {
                env.insert(OsString::from(name), value);
            }
        }
    }
    if let Some(temporary) = launch.sandbox.temporary() {
        env.insert(OsString::from("TMPDIR"), temporary.as_os_str().to_owned());
    }
    let overrides = launch.fixed_env.iter().chain(&request.options().env);
    for (name, value) in overrides {
        if !valid_name(name) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "environment variable name `{}` is empty or holds `=` or a NUL byte",
                    crate::bounds::echo(name)
                ),
            ));
        }
        env.insert(OsString::from(name), OsString::from(value));
    }
    Ok(env)
}

/// The program a bare name runs: the first executable file of that name
/// in the command's own `PATH`, as `execvp` would pick it. A name with a
/// `/` is used as given. Resolving here rather than in the child lets the
/// standard library start the process with `posix_spawn` instead of
/// forking this (possibly large) process, which costs a millisecond or
/// more per command. Only absolute `PATH` entries are searched: empty
/// and relative ones (`.`, `bin`; the working directory and folders
/// below it, for `execvp`) are skipped, so a bare name never runs a file
/// a folder of the environment happens to hold.
fn resolve(
    executable: &str,
    env: &BTreeMap<OsString, OsString>,
) -> Result<PathBuf, std::io::Error> {
    use std::os::unix::fs::PermissionsExt;
    if executable.contains('/') || executable.is_empty() {
        return Ok(PathBuf::from(executable));
    }
    let path = env
        .get(&OsString::from("PATH"))
        .cloned()
        .unwrap_or_default();
    let found = std::env::split_paths(&path)
        .filter(|directory| directory.is_absolute())
        .map(|directory| directory.join(executable))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
        });
    found.ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!(
                "no executable `{}` on the command's PATH; check the name, or pass the \
                 program's full path if the policy allows it",
                crate::bounds::echo(executable)
            ),
        )
    })
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['=', '\0'])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::environment::{ProgramCommand, ShellCommand};

    fn root() -> CommandDirectory {
        CommandDirectory {
            handle: Dir::open_ambient_dir("/", cap_std::ambient_authority()).unwrap(),
            path: PathBuf::from("/"),
        }
    }

    fn launch<'a>(
        limits: &'a ProcessLimits,
        fixed: &'a BTreeMap<String, String>,
        directory: &'a CommandDirectory,
        sandbox: &'a Arc<Prepared>,
    ) -> Launch<'a> {
        Launch {
            directory,
            sandbox,
            limits,
            fixed_env: fixed,
            piped_stdin: false,
        }
    }

    #[test]
    fn later_sources_replace_earlier_ones_and_bad_names_are_refused() {
        let limits = ProcessLimits {
            inherited_env: vec!["PATH".into(), "".into(), "A=B".into()],
            ..ProcessLimits::default()
        };
        let fixed = BTreeMap::from([("PATH".to_string(), "/fixed".to_string())]);
        let request: CommandRequest = ShellCommand::shell("true").with_env("X", "1").into();
        let env = environment(
            &request,
            &launch(&limits, &fixed, &root(), &Arc::new(Prepared::unsandboxed())),
        )
        .unwrap();
        assert_eq!(env.get(&OsString::from("PATH")).unwrap(), "/fixed");
        assert_eq!(env.get(&OsString::from("X")).unwrap(), "1");
        assert_eq!(env.len(), 2);
        let bad: CommandRequest = ShellCommand::shell("true").with_env("A=B", "1").into();
        assert!(environment(
            &bad,
            &launch(&limits, &fixed, &root(), &Arc::new(Prepared::unsandboxed()))
        )
        .is_err());
    }

    #[test]
    fn bare_names_resolve_on_the_commands_path() {
        let env = BTreeMap::from([(
            OsString::from("PATH"),
            OsString::from("::/nonexistent:/bin"),
        )]);
        assert_eq!(resolve("sh", &env).unwrap(), Path::new("/bin/sh"));
        assert_eq!(resolve("./x", &env).unwrap(), Path::new("./x"));
        let error = resolve("starweaver-no-such-program", &env).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        assert!(resolve("sh", &BTreeMap::new()).is_err());
    }

    // A relative PATH entry (`.`, `bin`) was searched from the host
    // process's own directory and the file then run from the command's:
    // a bare allowlisted name could start a file the model wrote there.
    #[test]
    fn relative_path_entries_never_resolve_a_bare_name() {
        let climb = "../".repeat(64);
        for relative in [format!("{climb}bin"), format!("{climb}usr/bin")] {
            let env = BTreeMap::from([(OsString::from("PATH"), OsString::from(&relative))]);
            let error = resolve("sh", &env).unwrap_err();
            assert_eq!(error.kind(), std::io::ErrorKind::NotFound, "{relative}");
        }
    }

    #[tokio::test]
    async fn a_missing_program_is_a_spawn_error() {
        let limits = ProcessLimits::default();
        let fixed = BTreeMap::new();
        let request: CommandRequest =
            ProgramCommand::new("/nonexistent/starweaver-none", [""; 0]).into();
        let sandbox = Arc::new(Prepared::unsandboxed());
        let directory = root();
        let error = spawn(&request, &launch(&limits, &fixed, &directory, &sandbox))
            .await
            .unwrap_err();
        assert!(matches!(error, EnvironmentError::Spawn { .. }), "{error}");
    }
}
