//! Probing the running kernel, once per process, on a throwaway thread:
//! restricting a thread is the only way the kernel tells what it can
//! enforce, and the thread keeps the restrictions.

use std::sync::OnceLock;

use super::kernel::SandboxKernel;

impl SandboxKernel {
    /// The running kernel, probed once per process.
    #[must_use]
    pub fn detect() -> Self {
        static DETECTED: OnceLock<SandboxKernel> = OnceLock::new();
        *DETECTED.get_or_init(probe)
    }
}

#[cfg(target_os = "linux")]
fn probe() -> SandboxKernel {
    let probed = std::thread::Builder::new()
        .name("starweaver-sandbox-probe".into())
        .spawn(super::linux::probe_current_thread)
        .ok()
        .and_then(|thread| thread.join().ok());
    probed.unwrap_or_else(SandboxKernel::none)
}

#[cfg(not(target_os = "linux"))]
fn probe() -> SandboxKernel {
    SandboxKernel::none()
}
