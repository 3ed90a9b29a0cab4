//! The pieces of a sandboxed command start, each timed alone with the
//! same kernel calls and crates as starweaver-core (as of the commit
//! that added this): `process/spawn.rs` (a fresh 256 KiB thread per
//! command), `process/escapees.rs` (the timer-slack tag, the sweep of
//! `/proc/self/task/*/children`) and `sandbox/linux.rs` (the Landlock
//! ruleset of the default policy, cloned per command, and the seccomp
//! filter with the network off). The provider itself is not used, so
//! each piece can be taken apart; a change there needs the same change
//! here.
//!
//! ```sh
//! cd benches/sandbox_pieces
//! CARGO_TARGET_DIR=../../target/sandbox-pieces cargo run --release -- 2000
//! ```
//!
//! Prints the median (and mean, p10, p90) of each piece in microseconds.
//! `-- N seccomp-only` installs the filter on N fresh threads and nothing
//! else, for `perf record`.

use std::collections::BTreeMap;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, LandlockStatus, PathBeneath,
    PathFd, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope, ABI,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

/// The start thread's stack (`SPAWN_STACK`).
const STACK: usize = 256 * 1024;
/// A tag (`FIRST_TAG`).
const TAG: u64 = 50_001;

fn stats(name: &str, mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    let n = samples.len();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let median = us(samples[n / 2]);
    let mean = samples.iter().map(|d| us(*d)).sum::<f64>() / n as f64;
    println!(
        "{name:<66} median {median:>7.1}  mean {mean:>7.1}  p10 {:>7.1}  p90 {:>7.1}  (n={n})",
        us(samples[n / 10]),
        us(samples[n * 9 / 10])
    );
    median
}

/// `n` timed calls of `f` after `n / 10` untimed ones.
fn time(n: usize, mut f: impl FnMut()) -> Vec<Duration> {
    for _ in 0..n / 10 {
        f();
    }
    (0..n)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .collect()
}

/// Runs `f` on a fresh start thread and joins it, as `spawn.rs` does.
fn in_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("starweaver-spawn".into())
            .stack_size(STACK)
            .spawn_scoped(scope, f)
            .unwrap()
            .join()
            .unwrap()
    })
}

fn tag() {
    // SAFETY: prctl with integer arguments.
    let done = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, TAG, 0, 0, 0) };
    assert_eq!(done, 0);
}

/// The kernel's Landlock ABI, probed on a throwaway thread (`kernel.rs`).
fn kernel_abi() -> i32 {
    std::thread::spawn(|| {
        let status = Ruleset::default()
            .handle_access(AccessFs::Execute)
            .and_then(Ruleset::create)
            .and_then(|ruleset| ruleset.no_new_privs(false).restrict_self())
            .unwrap();
        match status.landlock {
            LandlockStatus::Available {
                effective_abi,
                kernel_abi,
            } => kernel_abi.unwrap_or(effective_abi as i32),
            _ => 0,
        }
    })
    .join()
    .unwrap()
}

/// `linux.rs`'s `ruleset` for `SandboxPolicy::default()`: reads in the
/// root, the system folders and a few devices, writes in the root and
/// the temporary folder, TCP and scopes handled.
fn ruleset(root: &std::fs::File, temporary: &std::fs::File, abi: i32) -> RulesetCreated {
    let version = ABI::from(abi);
    let fs_all = AccessFs::from_all(version);
    let fs_read = AccessFs::from_read(version);
    let file = AccessFs::from_file(version);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(fs_all)
        .unwrap();
    if abi >= 4 {
        ruleset = ruleset.handle_access(AccessNet::from_all(version)).unwrap();
    }
    if abi >= 6 {
        ruleset = ruleset.scope(Scope::from_all(version)).unwrap();
    }
    let mut rules: Vec<(OwnedFd, BitFlags<AccessFs>)> = Vec::new();
    let mut allow = |fd: &dyn AsFd, access: BitFlags<AccessFs>| {
        rules.push((fd.as_fd().try_clone_to_owned().unwrap(), access));
    };
    allow(root, fs_read);
    let mut folders: Vec<String> = ["/usr", "/bin", "/sbin", "/etc", "/proc"]
        .iter()
        .map(ToString::to_string)
        .collect();
    for entry in std::fs::read_dir("/").unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("lib") {
            folders.push(format!("/{name}"));
        }
    }
    for folder in folders {
        if let Ok(fd) = PathFd::new(&folder) {
            allow(&fd, fs_read);
        }
    }
    for device in ["/dev/null", "/dev/zero", "/dev/urandom"] {
        allow(&PathFd::new(device).unwrap(), AccessFs::ReadFile.into());
    }
    for device in ["/dev/null", "/dev/zero", "/dev/full"] {
        allow(&PathFd::new(device).unwrap(), file);
    }
    allow(temporary, fs_all);
    allow(root, fs_all);
    let rules = rules
        .into_iter()
        .map(|(fd, access)| Ok::<_, landlock::RulesetError>(PathBeneath::new(fd, access)));
    ruleset.create().unwrap().add_rules(rules).unwrap()
}

fn rule(conditions: &[(u8, SeccompCmpOp, u64)]) -> SeccompRule {
    let conditions = conditions
        .iter()
        .map(|(arg, op, value)| {
            SeccompCondition::new(*arg, SeccompCmpArgLen::Dword, op.clone(), *value).unwrap()
        })
        .collect();
    SeccompRule::new(conditions).unwrap()
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>) -> BpfProgram {
    SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        std::env::consts::ARCH.try_into().unwrap(),
    )
    .unwrap()
    .try_into()
    .unwrap()
}

fn tag_rule() -> (i64, Vec<SeccompRule>) {
    let set = libc::PR_SET_TIMERSLACK as u64;
    (libc::SYS_prctl, vec![rule(&[(0, SeccompCmpOp::Eq, set)])])
}

/// `linux.rs`'s `tag_filter(false)`: the tag's protection, and with the
/// network off every socket but unix and TCP ones, and `io_uring`.
fn filter() -> BpfProgram {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::from([tag_rule()]);
    let (unix, inet, inet6) = (
        libc::AF_UNIX as u64,
        libc::AF_INET as u64,
        libc::AF_INET6 as u64,
    );
    let stream = libc::SOCK_STREAM as u64;
    let mut socket = vec![rule(&[
        (0, SeccompCmpOp::Ne, unix),
        (0, SeccompCmpOp::Ne, inet),
        (0, SeccompCmpOp::Ne, inet6),
    ])];
    for family in [inet, inet6] {
        for kind in (0..16u64).filter(|kind| *kind != stream) {
            socket.push(rule(&[
                (0, SeccompCmpOp::Eq, family),
                (1, SeccompCmpOp::MaskedEq(0xf), kind),
            ]));
        }
        socket.push(rule(&[
            (0, SeccompCmpOp::Eq, family),
            (1, SeccompCmpOp::MaskedEq(0xf), stream),
            (2, SeccompCmpOp::Ne, 0),
            (2, SeccompCmpOp::Ne, libc::IPPROTO_TCP as u64),
        ]));
    }
    rules.insert(libc::SYS_socket, socket);
    rules.insert(
        libc::SYS_socketpair,
        vec![rule(&[(0, SeccompCmpOp::Ne, unix)])],
    );
    for call in [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        rules.insert(call, vec![]);
    }
    compile(rules)
}

fn restrict(ruleset: &RulesetCreated) {
    ruleset.try_clone().unwrap().restrict_self().unwrap();
}

fn apply(program: &BpfProgram) {
    seccompiler::apply_filter(program).unwrap();
}

/// The full prelude of a sandboxed start: tag, Landlock, seccomp.
fn prelude(ruleset: &RulesetCreated, program: &BpfProgram) {
    tag();
    restrict(ruleset);
    apply(program);
}

/// `true` as `spawn.rs` starts it: resolved path (so `posix_spawn`),
/// cleared environment, its own group, the root entered through
/// `/proc/self/fd/N`, stdin from `/dev/null`, both streams piped.
fn command(directory: &str) -> Command {
    use std::os::unix::process::CommandExt as _;
    let mut command = Command::new("/usr/bin/true");
    command
        .current_dir(directory)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("TMPDIR", "/tmp")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    command
}

fn spawn_wait(directory: &str) {
    assert!(command(directory).status().unwrap().success());
}

/// Sweeps whose list of the host's threads held one that was gone by
/// the time its `children` file was read: `escapees.rs` then falls back
/// to `children_by_scan`, a scan of every process in `/proc`.
static VANISHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// `escapees.rs`'s `Tag::sweep` when nothing escaped: the host's
/// children, then the tag of each.
fn sweep() -> usize {
    let mut found = 0;
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(children) = std::fs::read_to_string(task.path().join("children")) else {
            VANISHED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            found += scan();
            break;
        };
        for pid in children.split_whitespace() {
            let slack = std::fs::read_to_string(format!("/proc/{pid}/timerslack_ns"));
            if slack.is_ok_and(|slack| slack.trim() == TAG.to_string()) {
                found += 1;
            }
        }
    }
    found
}

/// `escapees.rs`'s `children_by_scan`: every process's `stat`, for
/// those whose parent is the host; then the tag of each.
fn scan() -> usize {
    let host = std::process::id().to_string();
    let children: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<i32>().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let parent = stat.rsplit_once(')')?.1.split_whitespace().nth(1)? == host;
            parent.then(|| pid.to_string())
        })
        .collect();
    children
        .iter()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/timerslack_ns"))
                .is_ok_and(|slack| slack.trim() == TAG.to_string())
        })
        .count()
}

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

/// The whole start, as `spawn.rs` and `group.rs` do it: a fresh thread
/// runs `before` and spawns, the caller joins it, waits for the child
/// and sweeps once.
fn start(directory: &str, before: impl Fn() + Sync) {
    let mut command = command(directory);
    let mut child = in_thread(|| {
        before();
        command.spawn().unwrap()
    });
    assert!(child.wait().unwrap().success());
    assert_eq!(sweep(), 0);
}

/// Installing `program` `count` times on one long-lived thread: the
/// install alone, without a thread's start and end.
fn stacked(program: &BpfProgram, count: usize) -> Vec<Duration> {
    in_thread(|| {
        (0..count)
            .map(|_| {
                let started = Instant::now();
                apply(program);
                started.elapsed()
            })
            .collect()
    })
}

/// The end of a start thread (its exit, seen by the join) after `last`.
fn thread_end(n: usize, last: impl Fn() + Sync) -> Vec<Duration> {
    (0..n)
        .map(|_| {
            let ended = in_thread(|| {
                last();
                Instant::now()
            });
            ended.elapsed()
        })
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(2_000);
    let seccomp_only = args.next().as_deref() == Some("seccomp-only");
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    let program = filter();
    if seccomp_only {
        for _ in 0..n {
            in_thread(|| apply(&program));
        }
        return;
    }
    let abi = kernel_abi();
    let base = std::env::temp_dir();
    let (root_path, temporary_path) = (
        base.join("sandbox-pieces-root"),
        base.join("sandbox-pieces-tmp"),
    );
    std::fs::create_dir_all(&root_path).unwrap();
    std::fs::create_dir_all(&temporary_path).unwrap();
    let root = std::fs::File::open(&root_path).unwrap();
    let temporary = std::fs::File::open(&temporary_path).unwrap();
    let directory = format!("/proc/self/fd/{}", root.as_raw_fd());
    let started = Instant::now();
    let rules = ruleset(&root, &temporary, abi);
    let built = started.elapsed();
    let tag_only = compile(BTreeMap::from([tag_rule()]));
    println!(
        "Landlock ABI {abi}; ruleset built once in {built:?}; seccomp filter {} BPF \
         instructions (tag-only filter {}); {n} calls per line, microseconds",
        program.len(),
        tag_only.len()
    );

    println!("\n-- the start thread's prelude: a fresh thread each, joined --");
    let empty = stats("thread, nothing", time(n, || in_thread(|| ())));
    let tagged = stats(
        "thread + tag (PR_SET_TIMERSLACK)",
        time(n, || in_thread(tag)),
    );
    stats(
        "ruleset try_clone alone (a dup), no thread",
        time(n, || drop(rules.try_clone().unwrap())),
    );
    let landlocked = stats(
        "thread + Landlock restrict_self (clone of the cached ruleset)",
        time(n, || in_thread(|| restrict(&rules))),
    );
    let filtered = stats(
        "thread + seccomp apply_filter",
        time(n, || in_thread(|| apply(&program))),
    );
    let filtered_tag_only = stats(
        "thread + seccomp apply_filter, tag-only filter",
        time(n, || in_thread(|| apply(&tag_only))),
    );
    let all = stats(
        "thread + tag + Landlock + seccomp",
        time(n, || in_thread(|| prelude(&rules, &program))),
    );
    println!(
        "  => over an empty thread: tag {:.1}, Landlock {:.1}, seccomp {:.1} (tag-only filter \
         {:.1}), all three {:.1}",
        tagged - empty,
        landlocked - empty,
        filtered - empty,
        filtered_tag_only - empty,
        all - empty
    );
    stats(
        "seccomp apply_filter alone, stacked on one thread (60)",
        stacked(&program, 60),
    );
    stats(
        "tag-only apply_filter alone, stacked on one thread (60)",
        stacked(&tag_only, 60),
    );
    let plain_end = stats("end of a plain thread", thread_end(n, || ()));
    let filtered_end = stats(
        "end of a thread holding the filter",
        thread_end(n, || apply(&program)),
    );
    println!(
        "  => the filter's release at thread end {:.1}",
        filtered_end - plain_end
    );

    println!("\n-- spawn and wait, from one long-lived thread restricted once --");
    let mut from = Vec::new();
    for (name, landlock, seccomp) in [
        ("unrestricted", false, false),
        ("Landlock", true, false),
        ("seccomp", false, true),
        ("Landlock + seccomp", true, true),
    ] {
        from.push(in_thread(|| {
            tag();
            if landlock {
                restrict(&rules);
            }
            if seccomp {
                apply(&program);
            }
            stats(
                &format!("spawn + wait of true, thread {name}"),
                time(n, || spawn_wait(&directory)),
            )
        }));
    }
    println!(
        "  => in the child: Landlock {:.1}, seccomp {:.1}, both {:.1}",
        from[1] - from[0],
        from[2] - from[0],
        from[3] - from[0]
    );

    println!("\n-- the whole start: fresh thread, prelude, spawn; join, wait, sweep --");
    let bare = stats(
        "bare: the same Command, spawned and waited on this thread",
        time(n, || spawn_wait(&directory)),
    );
    let off = stats(
        "SandboxPolicy::off: thread + tag, spawn; wait + sweep",
        time(n, || start(&directory, tag)),
    );
    let on = stats(
        "sandboxed: thread + tag + Landlock + seccomp, spawn; wait + sweep",
        time(n, || start(&directory, || prelude(&rules, &program))),
    );
    println!(
        "  => off/bare {:.2}x, sandboxed/bare {:.2}x, sandboxed - off {:.1}; sweeps that met a \
         vanished thread and scanned /proc: {} of {}",
        off / bare,
        on / bare,
        on - off,
        VANISHED.load(std::sync::atomic::Ordering::Relaxed),
        2 * (n + n / 10)
    );
    let processes = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|name| name.parse::<u32>().is_ok())
        })
        .count();
    stats(
        &format!("the /proc scan of that fallback, {processes} processes"),
        time(n / 10, || assert_eq!(scan(), 0)),
    );

    println!("\n-- the sweep (nothing escaped) by the host's thread count --");
    let (park, parked) = std::sync::mpsc::channel::<()>();
    let parked = std::sync::Arc::new(std::sync::Mutex::new(parked));
    let mut idle = Vec::new();
    for target in [threads(), 3, 8, 16, 32, 64] {
        while threads() < target {
            let parked = parked.clone();
            idle.push(std::thread::spawn(move || {
                let _ = parked.lock().unwrap().recv();
            }));
            std::thread::sleep(Duration::from_millis(2));
        }
        stats(
            &format!("sweep, {} threads", threads()),
            time(n, || assert_eq!(sweep(), 0)),
        );
    }
    drop(park);
    for thread in idle {
        let _ = thread.join();
    }
}
