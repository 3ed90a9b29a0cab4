//! The kernel sandbox of local commands: the policy ([`SandboxPolicy`]),
//! what the running kernel can enforce ([`SandboxKernel`]), what each
//! command ran under ([`SandboxReport`]), and on Linux the Landlock rules
//! and seccomp filter that a fresh thread takes on before it starts a
//! command.

mod confine;
mod detect;
mod kernel;
mod launcher;
#[cfg(target_os = "linux")]
mod linux;
mod policy;
mod report;

pub(crate) use confine::{Prepared, Sandbox};
pub use kernel::{
    SandboxKernel, LANDLOCK_ABI_FOR_NETWORK, LANDLOCK_ABI_FOR_SCOPES, LANDLOCK_ABI_FOR_WRITES,
};
pub use launcher::SandboxLauncher;
pub use policy::{SandboxMode, SandboxPolicy, SandboxReads};
pub use report::SandboxReport;
