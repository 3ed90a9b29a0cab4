//! The `starweaver` command line beyond `check` and `schema`: running a manifest, listing its
//! tools, and shell completions.

pub mod completions;
pub mod json;
pub mod plain;
pub mod run;
pub mod terminal;
pub mod tools;
pub mod ui;
pub mod waits;
