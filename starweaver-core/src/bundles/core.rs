//! `core_toolsets()`: the first-party bundles a coding agent starts
//! with.

use super::{filesystem_tools, shell_tools};
use crate::tools::DynToolset;

/// The filesystem and shell bundles, which work against whatever
/// environment the host attaches. `user_input_tools()` is not among
/// them: only a host that can answer clarifying questions should
/// install it.
///
/// ```
/// use starweaver_core::bundles::core_toolsets;
/// use starweaver_core::tools::ToolRegistry;
/// let mut registry = ToolRegistry::new();
/// for toolset in core_toolsets() {
///     registry.insert_toolset(&toolset);
/// }
/// assert!(registry.names().contains(&"read_file".to_string()));
/// assert!(registry.names().contains(&"shell_exec".to_string()));
/// assert!(!registry.names().contains(&"ask_user_question".to_string()));
/// ```
#[must_use]
pub fn core_toolsets() -> Vec<DynToolset> {
    vec![filesystem_tools(), shell_tools()]
}
