#!/usr/bin/env bash
# The local provider against ripgrep, fd and a bare spawn, in one run.
# Installs ripgrep and fd-find from the distribution's packages when they
# are missing (fd's binary is `fdfind` there), runs the criterion bench,
# and prints each pair's medians and ratio.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v rg >/dev/null || ! command -v fdfind >/dev/null; then
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq ripgrep fd-find >/dev/null
fi
rg --version | head -1
fdfind --version

cargo bench --bench local_environment -- "$@"

python3 - <<'PY'
import json, pathlib
base = pathlib.Path("target/criterion/local_environment")
def median(name):
    path = base / name.replace("/", "_") / "new" / "estimates.json"
    return json.loads(path.read_text())["median"]["point_estimate"]
def shown(ns):
    return f"{ns / 1e6:.2f} ms" if ns >= 1e6 else f"{ns / 1e3:.0f} us"
pairs = [
    ("grep_tool/rare", "rg/rare", "grep tool vs rg"),
    ("glob_tool/bare", "fd/bare", "glob tool vs fd"),
    ("shell_exec/program_true", "spawn/true", "shell_exec program vs bare spawn"),
    ("shell_exec/command_true", "spawn/sh_c_true", "shell_exec command vs bare sh -c"),
]
print("| pair | starweaver | baseline | ratio |")
print("| --- | ---: | ---: | ---: |")
for ours, theirs, label in pairs:
    a, b = median(ours), median(theirs)
    print(f"| {label} | {shown(a)} | {shown(b)} | **{a / b:.2f}x** |")
PY
