//! What the running kernel can enforce: the Landlock ABI and whether
//! seccomp filters can be installed. Probing the running kernel is in
//! `detect.rs`, above the Linux rules that do it.

use super::{SandboxMode, SandboxPolicy};

/// The first Landlock ABI that confines every kind of write (ABI 3 adds
/// `truncate`, which ABIs 1 and 2 leave unchecked).
pub const LANDLOCK_ABI_FOR_WRITES: u8 = 3;
/// The first Landlock ABI with TCP connect and bind rules.
pub const LANDLOCK_ABI_FOR_NETWORK: u8 = 4;
/// The first Landlock ABI that scopes signals and abstract unix sockets
/// to the sandbox.
pub const LANDLOCK_ABI_FOR_SCOPES: u8 = 6;

/// The sandboxing the kernel offers, as detected ([`Self::detect`]) or
/// as a host or a test declares it ([`Self::none`],
/// [`Self::with_landlock_abi`]) to see how a policy fares on a weaker
/// kernel. A declared kernel can only take away what the real one has:
/// the sandbox never claims rules the kernel did not accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct SandboxKernel {
    landlock_abi: u8,
    seccomp: bool,
}

impl SandboxKernel {
    /// A kernel with neither Landlock nor seccomp (another operating
    /// system, or Landlock turned off at boot).
    #[must_use]
    pub fn none() -> Self {
        Self {
            landlock_abi: 0,
            seccomp: false,
        }
    }

    /// This kernel with Landlock limited to `abi` (0: none).
    #[must_use]
    pub fn with_landlock_abi(mut self, abi: u8) -> Self {
        self.landlock_abi = self.landlock_abi.min(abi);
        self
    }

    /// This kernel without seccomp filters.
    #[must_use]
    pub fn without_seccomp(mut self) -> Self {
        self.seccomp = false;
        self
    }

    /// The Landlock ABI (0 when Landlock is missing or off).
    #[must_use]
    pub fn landlock_abi(&self) -> u8 {
        self.landlock_abi
    }

    /// Whether seccomp filters can be installed.
    #[must_use]
    pub fn seccomp(&self) -> bool {
        self.seccomp
    }

    /// What `policy` needs that this kernel lacks, worded for a person
    /// (empty: everything is enforced). Signal and socket scoping is not
    /// in it: see [`Self::unscoped`].
    #[must_use]
    pub fn missing(&self, policy: &SandboxPolicy) -> Vec<String> {
        let mut missing = Vec::new();
        if policy.mode() == SandboxMode::Off {
            return missing;
        }
        if self.landlock_abi == 0 {
            missing.push(
                "Landlock, which confines reads and writes (it needs Linux 5.13 or later with \
                 Landlock enabled at boot)"
                    .to_string(),
            );
        } else if self.landlock_abi < LANDLOCK_ABI_FOR_WRITES {
            missing.push(format!(
                "Landlock ABI {LANDLOCK_ABI_FOR_WRITES} (Linux 6.2), which confines truncating \
                 files; this kernel has ABI {}",
                self.landlock_abi
            ));
        }
        if !policy.network() {
            if self.landlock_abi < LANDLOCK_ABI_FOR_NETWORK {
                missing.push(format!(
                    "Landlock ABI {LANDLOCK_ABI_FOR_NETWORK} (Linux 6.7), which blocks TCP \
                     connect and bind; this kernel has {}",
                    shown_abi(self.landlock_abi)
                ));
            }
            if !self.seccomp {
                missing
                    .push("seccomp filters, which block UDP, raw and packet sockets".to_string());
            }
        }
        missing
    }

    /// Whether signals and abstract unix sockets stay unscoped under
    /// `policy` (a kernel before Landlock ABI 6): reported, not refused.
    #[must_use]
    pub fn unscoped(&self, policy: &SandboxPolicy) -> bool {
        policy.is_enabled() && self.landlock_abi < LANDLOCK_ABI_FOR_SCOPES
    }

    /// Whether this kernel enforces all of `policy`.
    #[must_use]
    pub fn enforces(&self, policy: &SandboxPolicy) -> bool {
        self.missing(policy).is_empty()
    }
}

fn shown_abi(abi: u8) -> String {
    if abi == 0 {
        "no Landlock".to_string()
    } else {
        format!("ABI {abi}")
    }
}

impl SandboxKernel {
    /// A kernel as probed.
    pub(super) fn probed(landlock_abi: u8, seccomp: bool) -> Self {
        Self {
            landlock_abi,
            seccomp,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_without_landlock_misses_what_each_policy_needs() {
        let none = SandboxKernel::none();
        assert!(none.missing(&SandboxPolicy::off()).is_empty());
        let missing = none.missing(&SandboxPolicy::default());
        assert_eq!(missing.len(), 3, "{missing:?}");
        assert!(missing[0].starts_with("Landlock,"), "{missing:?}");
        let open = SandboxPolicy::default().with_network(true);
        assert_eq!(none.missing(&open).len(), 1);
        let old = SandboxKernel::probed(3, true);
        assert_eq!(old.missing(&open), Vec::<String>::new());
        assert_eq!(old.missing(&SandboxPolicy::default()).len(), 1);
        assert!(old.unscoped(&open));
        assert!(!SandboxKernel::probed(6, true).unscoped(&open));
    }

    #[test]
    fn a_declared_kernel_only_takes_away() {
        let real = SandboxKernel::probed(4, true);
        assert_eq!(real.with_landlock_abi(7).landlock_abi(), 4);
        assert_eq!(real.with_landlock_abi(2).landlock_abi(), 2);
        assert!(!real.without_seccomp().seccomp());
    }
}
