//! Bounds on one tool call: how deep its arguments may nest and how much
//! of its outcome goes back to the model.

use serde::{Deserialize, Serialize};

/// Default for [`ToolLimits::max_return_bytes`]: 256 KiB.
pub const DEFAULT_MAX_RETURN_BYTES: usize = 256 * 1024;
/// Default for [`ToolLimits::max_message_bytes`]: 4 KiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024;
/// Default for [`ToolLimits::max_echo_bytes`]: 256 bytes.
pub const DEFAULT_MAX_ECHO_BYTES: usize = crate::bounds::MAX_ECHO_BYTES;
/// Default for [`ToolLimits::max_argument_depth`]: 128 levels, the depth
/// `serde_json` allows when it parses argument text.
pub const DEFAULT_MAX_ARGUMENT_DEPTH: usize = crate::bounds::MAX_JSON_DEPTH;

/// What one call may cost, set per registry with
/// [`super::ToolRegistry::with_limits`]. A model is an untrusted input
/// source: the registry applies these in one place, when a call's outcome
/// becomes the tool return the model sees, so no tool (first-party or
/// not) can flood the model's context or echo a hostile value back in
/// full.
///
/// ```
/// use starweaver_core::tools::{ToolLimits, ToolRegistry};
/// let registry = ToolRegistry::new().with_limits(
///     ToolLimits::default().with_max_message_bytes(8 * 1024),
/// );
/// assert_eq!(registry.limits().max_message_bytes, 8 * 1024);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolLimits {
    /// The serialized content of one return, success or error. Larger
    /// content is replaced by its shortened JSON text, and the return's
    /// metadata says so under `shortened`.
    pub max_return_bytes: usize,
    /// The message of an error return.
    pub max_message_bytes: usize,
    /// Each value an error echoes back: quoted spans of its message (a
    /// path, a name, a pattern, parser text), each string of its
    /// `details`, and the tool name of the return.
    pub max_echo_bytes: usize,
    /// How deeply arguments may nest arrays and objects; deeper arguments
    /// are refused before any parsing.
    pub max_argument_depth: usize,
}

impl Default for ToolLimits {
    fn default() -> Self {
        Self {
            max_return_bytes: DEFAULT_MAX_RETURN_BYTES,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_echo_bytes: DEFAULT_MAX_ECHO_BYTES,
            max_argument_depth: DEFAULT_MAX_ARGUMENT_DEPTH,
        }
    }
}

impl ToolLimits {
    /// Sets [`Self::max_return_bytes`].
    #[must_use]
    pub fn with_max_return_bytes(mut self, bytes: usize) -> Self {
        self.max_return_bytes = bytes;
        self
    }

    /// Sets [`Self::max_message_bytes`].
    #[must_use]
    pub fn with_max_message_bytes(mut self, bytes: usize) -> Self {
        self.max_message_bytes = bytes;
        self
    }

    /// Sets [`Self::max_echo_bytes`].
    #[must_use]
    pub fn with_max_echo_bytes(mut self, bytes: usize) -> Self {
        self.max_echo_bytes = bytes;
        self
    }

    /// Sets [`Self::max_argument_depth`].
    #[must_use]
    pub fn with_max_argument_depth(mut self, depth: usize) -> Self {
        self.max_argument_depth = depth;
        self
    }
}
