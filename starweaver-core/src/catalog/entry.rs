//! One tool in the catalog: how to build it and where it was defined.

use crate::tools::DynTool;

/// A tool registered at link time by `#[starweaver::tool]` (through
/// `inventory`), or at run time by [`super::register`].
#[derive(Clone, Copy, Debug)]
pub struct CatalogEntry {
    name: &'static str,
    build: fn() -> DynTool,
    file: &'static str,
    line: u32,
}

impl CatalogEntry {
    /// An entry: the tool's name, a function building a fresh tool, and
    /// the source location of its definition. `const`, so the macro can
    /// register it in a static.
    #[must_use]
    pub const fn new(
        name: &'static str,
        build: fn() -> DynTool,
        file: &'static str,
        line: u32,
    ) -> Self {
        Self {
            name,
            build,
            file,
            line,
        }
    }

    /// The tool's name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// A fresh tool.
    #[must_use]
    pub fn build(&self) -> DynTool {
        (self.build)()
    }

    /// `file:line` of the definition.
    #[must_use]
    pub fn source(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

inventory::collect!(CatalogEntry);
