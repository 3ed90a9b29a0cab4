//! Reading the workspace's own Rust sources, for tests about the code's shape.

use std::path::{Path, PathBuf};

/// Appends every `.rs` file under `dir`, at any depth, to `out`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}
