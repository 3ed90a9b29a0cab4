//! Input budgets: every manifest is untrusted, so reading one is bounded in size, depth, node
//! count and scalar length before anything else looks at it.

/// Limits applied while reading a YAML document; each overrun is a [`YamlError`] naming the
/// limit, where it was hit and how to stay under it.
///
/// The defaults fit hand-written manifests with wide margins. Raise a limit with the matching
/// `with_*` builder when a generated file legitimately needs more.
///
/// [`YamlError`]: super::YamlError
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// Largest accepted file, in bytes, checked before parsing. Default 4 MiB.
    pub max_document_bytes: usize,
    /// Deepest accepted nesting of sequences and mappings (the root collection is depth 1).
    /// Default 64. Building the tree never recurses, but dropping, cloning, comparing and
    /// printing a [`Node`](super::Node) do, so this also bounds their stack use: keep it in the
    /// hundreds, not the hundreds of thousands.
    pub max_depth: usize,
    /// Most nodes (scalars, sequences, mappings, keys included) the tree may hold, counting every
    /// copy an alias expands to, so an alias bomb is refused. Default 100,000.
    pub max_nodes: usize,
    /// Longest accepted scalar, in bytes of its decoded text. Default 1 MiB.
    pub max_scalar_bytes: usize,
}

impl Budgets {
    /// Default [`Self::max_document_bytes`]: 4 MiB.
    pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 4 * 1024 * 1024;
    /// Default [`Self::max_depth`]: 64 levels.
    pub const DEFAULT_MAX_DEPTH: usize = 64;
    /// Default [`Self::max_nodes`]: 100,000 nodes.
    pub const DEFAULT_MAX_NODES: usize = 100_000;
    /// Default [`Self::max_scalar_bytes`]: 1 MiB.
    pub const DEFAULT_MAX_SCALAR_BYTES: usize = 1024 * 1024;

    /// Sets the largest accepted file, in bytes.
    #[must_use]
    pub const fn with_max_document_bytes(mut self, bytes: usize) -> Self {
        self.max_document_bytes = bytes;
        self
    }

    /// Sets the deepest accepted nesting of collections.
    #[must_use]
    pub const fn with_max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// Sets the most nodes the tree may hold, alias copies included.
    #[must_use]
    pub const fn with_max_nodes(mut self, nodes: usize) -> Self {
        self.max_nodes = nodes;
        self
    }

    /// Sets the longest accepted scalar, in bytes.
    #[must_use]
    pub const fn with_max_scalar_bytes(mut self, bytes: usize) -> Self {
        self.max_scalar_bytes = bytes;
        self
    }
}

impl Default for Budgets {
    fn default() -> Self {
        Self {
            max_document_bytes: Self::DEFAULT_MAX_DOCUMENT_BYTES,
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_nodes: Self::DEFAULT_MAX_NODES,
            max_scalar_bytes: Self::DEFAULT_MAX_SCALAR_BYTES,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_documented_values_and_builders_override_them() {
        let budgets = Budgets::default();
        assert_eq!(budgets.max_document_bytes, 4 * 1024 * 1024);
        assert_eq!(budgets.max_depth, 64);
        assert_eq!(budgets.max_nodes, 100_000);
        assert_eq!(budgets.max_scalar_bytes, 1024 * 1024);
        let budgets = budgets
            .with_max_document_bytes(10)
            .with_max_depth(2)
            .with_max_nodes(3)
            .with_max_scalar_bytes(4);
        assert_eq!(
            budgets,
            Budgets {
                max_document_bytes: 10,
                max_depth: 2,
                max_nodes: 3,
                max_scalar_bytes: 4,
            }
        );
    }
}
