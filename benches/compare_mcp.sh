#!/usr/bin/env bash
# MCP tool calls over stdio, side by side in one run, in interleaved rounds after each
# session is set up (benches/compare_mcp.py drives both pairs):
#
# 1. client: `echo` on @modelcontextprotocol/server-everything called through our client
#    (`McpToolset`, the `mcp_client` bench binary) against the same call from the Python
#    SDK's ClientSession (mcp 2.3.0), each with its own server process.
# 2. server: the Python SDK's ClientSession calling `read_file` on `starweaver mcp serve`
#    (the filesystem bundle's tool on a 10-line file) against the same tool on the SDK's
#    MCPServer (what the SDK called FastMCP before 2.0), so only the server differs.
#
# Both sides of a pair must give the same answer to one call before anything is timed.
# The packages come from STARWEAVER_INTEROP_DIR (default /tmp/starweaver-interop), the
# folder .ci/run's interop step fills; they are installed there with the same pins when
# missing (Node 20 or later and Python 3.10 or later on PATH).
#
# Usage: benches/compare_mcp.sh [ROUNDS [CALLS]]   (default 20 rounds of 500 calls a side)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
calls=${2:-500}

dir=${STARWEAVER_INTEROP_DIR:-${TMPDIR:-/tmp}/starweaver-interop}
everything="$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
python="$dir/venv/bin/python"
if [ ! -f "$everything" ] || ! "$python" -c 'import importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/server-everything@2026.8.31" >/dev/null
  [ -x "$python" ] || python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" install --quiet --disable-pip-version-check "mcp==2.3.0"
fi
node=$(command -v node)

cargo build --release --bin starweaver
driver=$(cargo bench --bench mcp_client --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "mcp_client" and m.get("executable"):
        print(m["executable"])')

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Copies, so a build in a shared target folder cannot swap a binary mid-run.
cp "${CARGO_TARGET_DIR:-$PWD/target}/release/starweaver" "$work/starweaver"
cp "$driver" "$work/mcp_client"
cat >"$work/served.yaml" <<'YAML'
version: 1
name: served
description: One file-reading tool, for the MCP benchmark.
model: {id: test}
environment: {type: local}
toolsets:
  - type: filesystem
    tools: [read_file]
YAML
for n in $(seq 1 10); do echo "line $n of the notes"; done >"$work/notes.txt"

echo "== versions"
"$work/starweaver" --version 2>/dev/null || true
echo "node $("$node" --version), server-everything $("$node" -p "require('$dir/node_modules/@modelcontextprotocol/server-everything/package.json').version")"
"$python" -c 'import importlib.metadata as m, sys; print("python", sys.version.split()[0], "mcp", m.version("mcp"))'

echo "== client: echo on server-everything ($rounds rounds of $calls calls a side)"
"$python" benches/compare_mcp.py client "$rounds" "$calls" "$work/mcp_client" "$node" "$everything" | tee "$work/client.out"
echo "== server: read_file from the Python SDK client ($rounds rounds of $calls calls a side)"
"$python" benches/compare_mcp.py server "$rounds" "$calls" "$work/starweaver" "$work/served.yaml" | tee "$work/server.out"

python3 - "$work/client.out" "$work/server.out" <<'PY'
import json, statistics, sys
def last(path):
    return json.loads(open(path).read().strip().splitlines()[-1])
print()
print("| pair | starweaver | other | ratio (median of rounds) |")
print("| --- | ---: | ---: | ---: |")
for path, label, other in [(sys.argv[1], "client: `echo` on server-everything", "python-sdk"),
                           (sys.argv[2], "server: `read_file` from the Python client", "mcpserver")]:
    us = last(path)["per_call_us"]
    ours, theirs = us["starweaver"], us[other]
    ratio = statistics.median(t / o for o, t in zip(ours, theirs))
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"| {label} | {a:.0f} µs/call ({1e6 / a:,.0f}/s) | {b:.0f} µs/call ({1e6 / b:,.0f}/s) | **{ratio:.2f}x** |")
PY
