//! The filesystem bundle (`ls`, `read_file`, `write_file`, `edit_file`,
//! `glob`, `grep`) as tools; the search semantics under `glob` and
//! `grep` are in `search`.

mod agent;
mod edits;
mod errors;
mod tools;
