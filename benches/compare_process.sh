#!/usr/bin/env bash
# The `glob` and `grep` tools as whole processes against `fd` and `rg`:
# `starweaver run` of a one-call agent (the script model calls the tool
# once and answers with what it found), process start, manifest check,
# tool call and output included, beside `fdfind -g` and `rg` on the same
# 50,000-file tree, side by side in one run.
#
# Installs ripgrep and fd-find from the distribution's packages when they
# are missing, builds the release binary, writes the tree of
# benches/local_environment.rs (benches/gen_tree.py, once, under
# target/bench-tree-50k) and the agents, checks that each pair finds the
# same 500 paths and the same 50 lines, then times them in interleaved
# rounds (the argument: how many, default 40; 10 for a quick look).
# STARWEAVER_BEFORE=path/to/an/older/starweaver adds that binary's runs to
# the same rounds, for a before-and-after.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-40}"

if ! command -v rg >/dev/null || ! command -v fdfind >/dev/null; then
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq ripgrep fd-find >/dev/null
fi

cargo build --release --bin starweaver
tree="$PWD/target/bench-tree-50k"
python3 benches/gen_tree.py "$tree"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A copy, so a build in a shared target folder cannot swap the binary mid-run.
sw="$work/starweaver"
cp "${CARGO_TARGET_DIR:-$PWD/target}/release/starweaver" "$sw"

# One agent per tool: the script model makes the one call, then answers
# with every path (glob) or every `path:line:text` (grep), as fd and rg
# print them; `empty` answers at once (the cost of starting a run).
for tool in glob grep empty; do
  cat >"$work/$tool.yaml" <<YAML
version: 1
name: $tool-once
description: One $tool over the bench tree; the answer lists what it found.
model:
  id: script
  script: $tool.script.yaml
instructions: Search the tree.
environment:
  type: local
  root: $tree
toolsets:
  - type: filesystem
    read_only: true
YAML
done
cat >"$work/glob.script.yaml" <<'YAML'
- calls:
    - tool: glob
      args: { pattern: "*_07.rs", max_results: 2000 }
- answer: "{{ calls[0].result.files | join('\n') }}"
YAML
cat >"$work/grep.script.yaml" <<'YAML'
- calls:
    - tool: grep
      args: { pattern: needle_rare, max_results: 1000 }
- answer: "{% for m in calls[0].result.matches %}{{ m.path }}:{{ m.line_number }}:{{ m.line }}\n{% endfor %}"
YAML
echo '- answer: done' >"$work/empty.script.yaml"

echo "== versions"
"$sw" --version
rg --version | sed -n 1p
fdfind --version

echo "== each pair finds the same"
found() { grep -E '^pkg_[0-9]+/' | sed 's/ *$//' | sort; }
"$sw" run "$work/glob.yaml" --prompt go | found >"$work/glob.ours"
fdfind -g '*_07.rs' "$tree" | sed "s|^$tree/||" | sort >"$work/glob.fd"
"$sw" run "$work/grep.yaml" --prompt go | found >"$work/grep.ours"
rg --no-require-git -n needle_rare "$tree" | sed "s|^$tree/||" | sort >"$work/grep.rg"
for pair in "glob fd 500" "grep rg 50"; do
  set -- $pair
  if ! cmp -s "$work/$1.ours" "$work/$1.$2" || [ "$(wc -l <"$work/$1.ours")" != "$3" ]; then
    echo "$1 and $2 differ (or not $3 lines):" >&2
    diff "$work/$1.ours" "$work/$1.$2" | head >&2 || true
    exit 1
  fi
  echo "$1: $3 lines, the same as $2"
done

echo "== timing"
# Interleaved rounds, one run of each command per round (each round
# starting one command later), so load that comes and goes on a shared
# machine reaches every side alike; medians of wall time and of CPU time
# (user + system, from wait4).
commands=(
  "glob tool (starweaver run)=$sw run $work/glob.yaml --prompt go"
  "fd=fdfind -g *_07.rs $tree"
  "grep tool (starweaver run)=$sw run $work/grep.yaml --prompt go"
  "rg=rg --no-require-git -n needle_rare $tree"
  "empty run (starweaver run, no call)=$sw run $work/empty.yaml --prompt go"
)
if [ -n "${STARWEAVER_BEFORE:-}" ]; then
  cp "$STARWEAVER_BEFORE" "$work/starweaver-before"
  commands+=(
    "glob tool, before=$work/starweaver-before run $work/glob.yaml --prompt go"
    "grep tool, before=$work/starweaver-before run $work/grep.yaml --prompt go"
  )
fi
python3 - "$rounds" "${commands[@]}" <<'PY'
import os, shutil, statistics, sys, time
rounds = int(sys.argv[1])
commands = [arg.split("=", 1) for arg in sys.argv[2:]]
wall = {name: [] for name, _ in commands}
cpu = {name: [] for name, _ in commands}
null = os.open(os.devnull, os.O_WRONLY)
quiet = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
warmup = 2
for round in range(warmup + rounds):
    shift = round % len(commands)
    for name, command in commands[shift:] + commands[:shift]:
        argv = command.split()
        start = time.perf_counter()
        pid = os.posix_spawn(shutil.which(argv[0]), argv, os.environ, file_actions=quiet)
        _, status, usage = os.wait4(pid, 0)
        took = time.perf_counter() - start
        if status != 0:
            sys.exit(f"{name} failed ({status})")
        if round >= warmup:
            wall[name].append(took)
            cpu[name].append(usage.ru_utime + usage.ru_stime)
def ms(values):
    return f"{statistics.median(values) * 1e3:.1f} ms"
print(f"{rounds} rounds; medians of wall time, and of CPU time in brackets")
print("| pair | starweaver | baseline | ratio (wall) | ratio (CPU) |")
print("| --- | ---: | ---: | ---: | ---: |")
pairs = [("glob tool (starweaver run)", "fd"), ("grep tool (starweaver run)", "rg")]
pairs += [(f"{tool} tool, before", base) for tool, base in [("glob", "fd"), ("grep", "rg")] if f"{tool} tool, before" in wall]
for ours, theirs in pairs:
    a, b = wall[ours], wall[theirs]
    ratio = statistics.median(a) / statistics.median(b)
    cpu_ratio = statistics.median(cpu[ours]) / statistics.median(cpu[theirs])
    print(f"| {ours} vs {theirs} | {ms(a)} ({ms(cpu[ours])}) | {ms(b)} ({ms(cpu[theirs])}) | **{ratio:.2f}x** | {cpu_ratio:.2f}x |")
empty = "empty run (starweaver run, no call)"
print(f"| {empty} | {ms(wall[empty])} ({ms(cpu[empty])}) | | | |")
PY
