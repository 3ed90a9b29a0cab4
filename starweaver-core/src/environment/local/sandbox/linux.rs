//! The Linux side of the sandbox: Landlock rules for the file system, TCP
//! and scopes, and a seccomp filter for the socket families Landlock does
//! not cover. Both restrict the calling thread and what it starts, never
//! the rest of the process.

use std::collections::BTreeMap;
use std::io;
use std::os::fd::{AsFd, OwnedFd};

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, LandlockStatus, PathBeneath,
    PathFd, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule,
};

use super::kernel::{LANDLOCK_ABI_FOR_NETWORK, LANDLOCK_ABI_FOR_SCOPES};
use super::{SandboxKernel, SandboxMode, SandboxPolicy, SandboxReads};

/// The system folders `read: workspace` keeps readable (with every
/// `/lib*` folder found at the root).
const SYSTEM_FOLDERS: [&str; 5] = ["/usr", "/bin", "/sbin", "/etc", "/proc"];
/// Devices every mode may read.
const READABLE_DEVICES: [&str; 3] = ["/dev/null", "/dev/zero", "/dev/urandom"];
/// What `read: all` may read of `/dev`: not terminals (a command could
/// read what is typed into the host's terminal), not disks or memory.
const DEVICES_FOR_ALL: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/shm",
];
/// Devices every mode may write.
const WRITABLE_DEVICES: [&str; 3] = ["/dev/null", "/dev/zero", "/dev/full"];

/// Probes Landlock and seccomp by restricting the calling thread, which
/// must be a throwaway thread: it keeps the restrictions.
pub(super) fn probe_current_thread() -> SandboxKernel {
    let abi = Ruleset::default()
        .handle_access(AccessFs::Execute)
        .and_then(Ruleset::create)
        .and_then(|ruleset| ruleset.restrict_self())
        .map_or(0, |status| match status.landlock {
            LandlockStatus::Available {
                effective_abi,
                kernel_abi,
            } => kernel_abi
                .map_or(effective_abi as i32, |abi| abi)
                .clamp(0, i32::from(u8::MAX)) as u8,
            _ => 0,
        });
    let seccomp = tag_filter(true).is_ok_and(|program| seccompiler::apply_filter(&program).is_ok());
    SandboxKernel::probed(abi, seccomp)
}

/// The folders a policy opens once per provider and gives to Landlock.
#[derive(Debug)]
pub(super) struct Folders<'a> {
    /// The environment root.
    pub(super) root: &'a cap_std::fs::Dir,
    /// The private temporary folder.
    pub(super) temporary: &'a cap_std::fs::Dir,
    /// The policy's extra writable folders, opened through the root.
    pub(super) writable: &'a [cap_std::fs::Dir],
}

/// The Landlock ruleset for `policy` on `kernel`, built once; each
/// command restricts its spawning thread with a clone of it.
pub(super) fn ruleset(
    policy: &SandboxPolicy,
    kernel: &SandboxKernel,
    folders: &Folders<'_>,
) -> io::Result<RulesetCreated> {
    let abi = ABI::from(i32::from(kernel.landlock_abi()));
    let fs_all = AccessFs::from_all(abi);
    let fs_read = AccessFs::from_read(abi);
    let file = AccessFs::from_file(abi);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(fs_all)
        .map_err(other)?;
    if !policy.network() && kernel.landlock_abi() >= LANDLOCK_ABI_FOR_NETWORK {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(other)?;
    }
    if kernel.landlock_abi() >= LANDLOCK_ABI_FOR_SCOPES {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(other)?;
    }
    let mut rules: Vec<(OwnedFd, BitFlags<AccessFs>)> = Vec::new();
    let mut allow = |fd: &dyn AsFd, access: BitFlags<AccessFs>| -> io::Result<()> {
        rules.push((fd.as_fd().try_clone_to_owned()?, access));
        Ok(())
    };
    match policy.reads() {
        SandboxReads::All => {
            for entry in top_level_but_dev() {
                if let Ok(fd) = open(&entry) {
                    allow(
                        &fd,
                        if is_dir(&entry) {
                            fs_read
                        } else {
                            file_read(abi)
                        },
                    )?;
                }
            }
            for device in DEVICES_FOR_ALL {
                if let Ok(fd) = open(device) {
                    allow(
                        &fd,
                        if is_dir(device) {
                            fs_read
                        } else {
                            file_read(abi)
                        },
                    )?;
                }
            }
        }
        SandboxReads::Workspace => {
            allow(folders.root, fs_read)?;
            for folder in system_folders() {
                if let Ok(fd) = open(&folder) {
                    allow(&fd, fs_read)?;
                }
            }
            for device in READABLE_DEVICES {
                if let Ok(fd) = open(device) {
                    allow(&fd, AccessFs::ReadFile.into())?;
                }
            }
        }
    }
    for device in WRITABLE_DEVICES {
        if let Ok(fd) = open(device) {
            allow(&fd, file)?;
        }
    }
    allow(folders.temporary, fs_all)?;
    if policy.mode() == SandboxMode::WorkspaceWrite {
        allow(folders.root, fs_all)?;
    }
    for folder in folders.writable {
        allow(folder, fs_all)?;
    }
    let rules = rules
        .into_iter()
        .map(|(fd, access)| Ok::<_, landlock::RulesetError>(PathBeneath::new(fd, access)));
    ruleset
        .create()
        .and_then(|created| created.add_rules(rules))
        .map_err(other)
}

/// Every entry at the root of the file system but `/dev`.
fn top_level_but_dev() -> Vec<String> {
    std::fs::read_dir("/")
        .map(|entries| {
            entries
                .flatten()
                .map(|entry| format!("/{}", entry.file_name().to_string_lossy()))
                .filter(|path| path != "/dev")
                .collect()
        })
        .unwrap_or_default()
}

fn is_dir(path: &str) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_dir())
}

/// The read rights that apply to a file (Landlock refuses directory
/// rights on one).
fn file_read(abi: ABI) -> BitFlags<AccessFs> {
    AccessFs::from_read(abi) & AccessFs::from_file(abi)
}

/// The root's `/lib*` folders beside the fixed system folders.
fn system_folders() -> Vec<String> {
    let mut folders: Vec<String> = SYSTEM_FOLDERS.iter().map(|s| (*s).to_string()).collect();
    if let Ok(entries) = std::fs::read_dir("/") {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("lib") {
                folders.push(format!("/{name}"));
            }
        }
    }
    folders
}

fn open(path: &str) -> io::Result<PathFd> {
    PathFd::new(path).map_err(|error| io::Error::other(error.to_string()))
}

fn other(error: impl std::fmt::Display) -> io::Error {
    io::Error::other(error.to_string())
}

/// Restricts the calling thread with a clone of `ruleset`.
pub(super) fn restrict(ruleset: &RulesetCreated) -> io::Result<()> {
    let status = ruleset.try_clone()?.restrict_self().map_err(other)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(io::Error::other(
            "the kernel accepted none of the Landlock rules",
        ));
    }
    Ok(())
}

/// The seccomp filter for a policy: always the tag's protection (a
/// command cannot change the timer slack its processes are found by),
/// and with the network off, every socket but unix and TCP ones (TCP is
/// Landlock's) and `io_uring` (which opens sockets past seccomp).
///
/// On a kernel without Landlock's signal scoping (before ABI 6), the
/// filter also refuses signals to the host process, its process group and
/// every process (`-1`): the rest of the host's session stays reachable.
pub(super) fn filter(policy: &SandboxPolicy, kernel: &SandboxKernel) -> io::Result<BpfProgram> {
    let mut rules = tag_rules(policy.network())?;
    if kernel.landlock_abi() < LANDLOCK_ABI_FOR_SCOPES {
        signal_rules(&mut rules)?;
    }
    compile(rules)
}

fn tag_filter(network: bool) -> io::Result<BpfProgram> {
    compile(tag_rules(network)?)
}

/// Signals to the host, its group or everyone, refused.
fn signal_rules(rules: &mut BTreeMap<i64, Vec<SeccompRule>>) -> io::Result<()> {
    let host = u64::from(std::process::id());
    let group = nix::unistd::getpgrp().as_raw();
    // pid_t arguments compare as 32 bits: -1 and -group in two's complement.
    let negative = |value: i32| u64::from(value.wrapping_neg() as u32);
    let everyone = u64::from(u32::MAX);
    rules.insert(
        libc::SYS_kill,
        vec![
            rule(&[(0, SeccompCmpOp::Eq, host)])?,
            rule(&[(0, SeccompCmpOp::Eq, negative(group))])?,
            rule(&[(0, SeccompCmpOp::Eq, everyone)])?,
        ],
    );
    for call in [
        libc::SYS_tkill,
        libc::SYS_tgkill,
        libc::SYS_rt_sigqueueinfo,
        libc::SYS_rt_tgsigqueueinfo,
        libc::SYS_pidfd_open,
    ] {
        rules.insert(call, vec![rule(&[(0, SeccompCmpOp::Eq, host)])?]);
    }
    Ok(())
}

fn tag_rules(network: bool) -> io::Result<BTreeMap<i64, Vec<SeccompRule>>> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(
        libc::SYS_prctl,
        vec![rule(&[(
            0,
            SeccompCmpOp::Eq,
            libc::PR_SET_TIMERSLACK as u64,
        )])?],
    );
    if !network {
        rules.insert(libc::SYS_socket, socket_rules()?);
        rules.insert(
            libc::SYS_socketpair,
            vec![rule(&[(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)])?],
        );
        // TCP Fast Open connects inside a send, past Landlock's connect
        // check.
        let fast_open = libc::MSG_FASTOPEN as u64;
        for (call, flags) in [
            (libc::SYS_sendto, 3),
            (libc::SYS_sendmsg, 2),
            (libc::SYS_sendmmsg, 3),
        ] {
            rules.insert(
                call,
                vec![rule(&[(
                    flags,
                    SeccompCmpOp::MaskedEq(fast_open),
                    fast_open,
                )])?],
            );
        }
        for call in [
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
        ] {
            rules.insert(call, vec![]);
        }
    }
    Ok(rules)
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>) -> io::Result<BpfProgram> {
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|error: seccompiler::BackendError| other(error))?;
    SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    )
    .and_then(BpfProgram::try_from)
    .map_err(other)
}

/// The `socket` calls refused with the network off: any family but unix
/// and IPv4/IPv6, and in those any type but a stream (with or without its
/// two flags) and any protocol but TCP. Few rules, so the filter stays
/// short: the kernel tests every filter it installs, which a long one
/// makes a good part of each command's start.
fn socket_rules() -> io::Result<Vec<SeccompRule>> {
    let (unix, inet, inet6) = (
        libc::AF_UNIX as u64,
        libc::AF_INET as u64,
        libc::AF_INET6 as u64,
    );
    let stream = libc::SOCK_STREAM as u64;
    let (nonblock, cloexec) = (libc::SOCK_NONBLOCK as u64, libc::SOCK_CLOEXEC as u64);
    let streams = [
        stream,
        stream | nonblock,
        stream | cloexec,
        stream | nonblock | cloexec,
    ];
    let mut rules = vec![rule(&[
        (0, SeccompCmpOp::Ne, unix),
        (0, SeccompCmpOp::Ne, inet),
        (0, SeccompCmpOp::Ne, inet6),
    ])?];
    for family in [inet, inet6] {
        let mut not_a_stream = vec![(0, SeccompCmpOp::Eq, family)];
        not_a_stream.extend(streams.iter().map(|kind| (1, SeccompCmpOp::Ne, *kind)));
        rules.push(rule(&not_a_stream)?);
        rules.push(rule(&[
            (0, SeccompCmpOp::Eq, family),
            (2, SeccompCmpOp::Ne, 0),
            (2, SeccompCmpOp::Ne, libc::IPPROTO_TCP as u64),
        ])?);
    }
    Ok(rules)
}

fn rule(conditions: &[(u8, SeccompCmpOp, u64)]) -> io::Result<SeccompRule> {
    let conditions = conditions
        .iter()
        .map(|(arg, op, value)| {
            SeccompCondition::new(*arg, SeccompCmpArgLen::Dword, op.clone(), *value)
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(other)?;
    SeccompRule::new(conditions).map_err(other)
}

/// An empty filter (it allows every call), compiled once: stacked on a
/// command's thread, their count tells its processes apart.
pub(super) fn mark() -> io::Result<&'static BpfProgram> {
    static MARK: std::sync::OnceLock<Result<BpfProgram, String>> = std::sync::OnceLock::new();
    MARK.get_or_init(|| {
        let arch = std::env::consts::ARCH
            .try_into()
            .map_err(|error: seccompiler::BackendError| error.to_string())?;
        SeccompFilter::new(
            BTreeMap::new(),
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EPERM as u32),
            arch,
        )
        .and_then(BpfProgram::try_from)
        .map_err(|error| error.to_string())
    })
    .as_ref()
    .map_err(|error| io::Error::other(error.clone()))
}

/// Installs `program` on the calling thread.
pub(super) fn apply(program: &BpfProgram) -> io::Result<()> {
    seccompiler::apply_filter(program).map_err(other)
}
