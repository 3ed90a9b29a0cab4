//! Examples use public APIs only: no file under `examples/` compiles
//! another target's files in with `#[path]`, so an example shows what a
//! user of the published crates can write.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn no_example_uses_a_path_attribute() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut all = Vec::new();
    files(&root, &mut all);
    assert!(all.iter().any(|file| file.ends_with("terminal_ui.rs")));
    let offending: Vec<String> = all
        .iter()
        .filter(|file| {
            std::fs::read(file)
                .map(|bytes| String::from_utf8_lossy(&bytes).contains("#[path"))
                .unwrap_or(false)
        })
        .map(|file| file.display().to_string())
        .collect();
    assert!(
        offending.is_empty(),
        "examples using #[path]: {offending:?}"
    );
}
