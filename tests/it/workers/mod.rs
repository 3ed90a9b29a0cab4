//! Durable runs across processes, through the binary: `starweaver worker` processes killed,
//! paused and racing, on a SQLite file and on PostgreSQL, and approvals given from another
//! process. The tools are shell commands that leave marks in the run's folder, so a test
//! counts how often each really ran.

mod across;
mod commands;
mod crash;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use starweaver::runs::{NewRun, RunStatus, RunStore, StoredRun};
use starweaver::store::StoreUrl;
use starweaver::RunId;

use crate::run_store::postgres::{database, TestDb};

/// Where a test's runs are stored.
pub enum Target {
    /// A SQLite file in the test's folder.
    Sqlite(PathBuf),
    /// A fresh PostgreSQL database.
    Postgres(TestDb),
}

impl Target {
    /// A SQLite file `runs.db` in `dir`.
    pub fn sqlite(dir: &Path) -> Self {
        Self::Sqlite(dir.join("runs.db"))
    }

    /// A fresh PostgreSQL database, or `None` (the test skips) without a server.
    pub async fn postgres() -> Option<Self> {
        database().await.map(Self::Postgres)
    }

    /// The store URL the binary is given.
    pub fn url(&self) -> String {
        match self {
            Self::Sqlite(path) => format!("sqlite:{}", path.display()),
            Self::Postgres(db) => db.url().to_string(),
        }
    }

    /// The store, opened in the test.
    pub async fn open(&self) -> Arc<dyn RunStore> {
        StoreUrl::parse(&self.url()).unwrap().open().await.unwrap()
    }

    /// Drops a PostgreSQL database.
    pub async fn remove(self) {
        if let Self::Postgres(db) = self {
            db.remove().await;
        }
    }
}

/// A manifest named `name` on the `script` model in `script`, with the shell (`sh`, `sleep`)
/// in the folder it sits in.
pub fn shell_manifest(name: &str, script: &str, extra: &str) -> String {
    format!(
        "version: 1\nname: {name}\nmodel:\n  id: script\n  script: {script}\n\
environment:\n  type: local\nshell:\n  allow_execute: true\n  allowed_programs: [sh, sleep, \
echo]\n  timeout_ms: 60000\ntoolsets:\n  - type: shell\n    name: commands\n{extra}\
runtime:\n  max_steps: 8\n"
    )
}

/// A script turn that runs `command` with `sh -c`.
pub fn sh_turn(command: &str) -> String {
    format!(
        "- calls:\n    - tool: shell_exec\n      args: {{ program: sh, args: [\"-c\", {}] }}\n",
        serde_json::to_string(command).unwrap()
    )
}

/// The binary in `dir` with the store `url`.
pub fn starweaver(dir: &Path, url: &str) -> Command {
    let mut command = crate::common::starweaver_binary();
    command
        .current_dir(dir)
        .env("STARWEAVER_STORE", url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs the binary to its end.
pub fn run(dir: &Path, url: &str, args: &[&str]) -> Output {
    starweaver(dir, url).args(args).output().unwrap()
}

/// A worker process on `dir`'s manifests (`--agents .`), with more `args`.
pub fn worker(dir: &Path, url: &str, args: &[&str]) -> Child {
    starweaver(dir, url)
        .args(["worker", "--agents", ".", "--json"])
        .args(args)
        .spawn()
        .unwrap()
}

/// Queues a run of `agent` on `prompt`.
pub async fn submit(store: &Arc<dyn RunStore>, agent: &str) -> RunId {
    store.create(NewRun::new(agent, "go")).await.unwrap().id
}

/// The run `id` as stored.
pub async fn stored(store: &Arc<dyn RunStore>, id: &RunId) -> StoredRun {
    store.get(id).await.unwrap().unwrap()
}

/// Waits (up to two minutes, polling) until `done` holds.
pub async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done().await {
        assert!(Instant::now() < deadline, "gave up waiting until {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until `id` is in `status`, running idle workers (`--exit-when-idle`) until one takes
/// it: a worker started while an earlier lease still holds finds nothing to claim.
pub async fn finish_with_workers(dir: &Path, target: &Target, id: &RunId) -> StoredRun {
    let store = target.open().await;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let run = stored(&store, id).await;
        if run.status.is_final() {
            return run;
        }
        assert!(Instant::now() < deadline, "the run never ended: {run:?}");
        let output = worker(
            dir,
            &target.url(),
            &["--exit-when-idle", "--lease-ms", "1000", "--poll-ms", "50"],
        )
        .wait_with_output()
        .unwrap();
        assert!(output.status.success(), "{output:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The lines of `file` in `dir` (none when it does not exist).
pub fn lines(dir: &Path, file: &str) -> usize {
    std::fs::read_to_string(dir.join(file)).map_or(0, |text| text.lines().count())
}

/// Every line of a worker's `--json` output.
pub fn settled(output: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// Sends `signal` to `child`.
pub fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Kills the process group whose leader's pid is in `file` (a command a killed worker left).
pub fn kill_group_in(dir: &Path, file: &str) {
    if let Ok(pid) = std::fs::read_to_string(dir.join(file)) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", pid.trim())])
            .status();
    }
}

/// Whether the status is final and finished.
pub fn finished(run: &StoredRun) -> bool {
    run.status == RunStatus::Finished
}
