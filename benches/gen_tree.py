#!/usr/bin/env python3
"""Writes the 50,000-file search tree of benches/local_environment.rs.

The same tree, byte for byte, under the same folder and with the same
marker (`.git/bench-tree-done`), so the criterion bench and
benches/compare_process.sh share one copy: 50 top folders x 10 subfolders
x 100 `file_NN.rs` files of 30 lines (about 75 MB), a hidden `.git/`, and
a `.gitignore` excluding `target/`, which holds 1,000 more files nobody
searches. One file in a thousand holds the identifier `needle_rare`.

Usage: gen_tree.py ROOT (does nothing when a finished tree is there).
"""

import pathlib
import shutil
import sys

TOP, SUB, FILES, RARE_EVERY = 50, 10, 100, 1_000


def main() -> None:
    root = pathlib.Path(sys.argv[1])
    done = root / ".git" / "bench-tree-done"
    if done.exists():
        return
    shutil.rmtree(root, ignore_errors=True)
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".gitignore").write_text("target/\n")
    index = 0
    for top in range(TOP):
        for sub in range(SUB):
            folder = root / f"pkg_{top:02}" / f"mod_{sub}"
            folder.mkdir(parents=True)
            for file in range(FILES):
                text = "".join(
                    f"pub fn handler_{top}_{sub}_{file}_{line}(input: &str) -> usize "
                    f"{{ input.len() + {line} }}\n"
                    for line in range(30)
                )
                if index % RARE_EVERY == 0:
                    text += "// needle_rare marks this file\n"
                index += 1
                (folder / f"file_{file:02}.rs").write_text(text)
    (root / "target").mkdir()
    for file in range(1_000):
        (root / "target" / f"out_{file}_7.rs").write_text("needle_rare\n")
    done.write_text("")


if __name__ == "__main__":
    main()
