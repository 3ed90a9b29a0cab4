#!/usr/bin/env bash
# Runs per second through `starweaver worker` on PostgreSQL with 1, 2 and 4 worker processes,
# side by side in one session: for each count, a fresh database, RUNS queued runs of one
# agent on the `test` model (it calls the agent's filesystem tool on an in-memory tree, then
# answers), then that many workers started together with `--exit-when-idle`, timed until the
# last exits. Each round checks that every run finished exactly once.
#
# Needs a PostgreSQL server: STARWEAVER_TEST_POSTGRES names a role that may create databases
# (`.ci/run` sets one up; e.g. postgres://starweaver:starweaver@127.0.0.1:5432/starweaver).
# `benches/compare_workers.sh [RUNS]` (default 400).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-400}
admin=${STARWEAVER_TEST_POSTGRES:?set STARWEAVER_TEST_POSTGRES to a PostgreSQL server URL}
cargo build --release --bin starweaver
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sw="$work/starweaver"
cp "${CARGO_TARGET_DIR:-$PWD/target}/release/starweaver" "$sw"
mkdir "$work/agents"
cat >"$work/agents/bench.yaml" <<'YAML'
version: 1
name: bench
model: { id: test }
environment: { type: virtual }
toolsets:
  - type: filesystem
    tools: [ls]
YAML
base=${admin%/*}
export PGOPTIONS="-c client_min_messages=warning"
for workers in 1 2 4; do
  db="sw_bench_workers_$workers"
  psql "$admin" -qAtX -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  url="$base/$db"
  # The first process creates the schema; the rest queue runs in one transaction.
  id=$("$sw" submit "$work/agents/bench.yaml" --prompt "list the files" --store "$url")
  psql "$url" -qAtX -c "INSERT INTO runs (id, agent, manifest_digest, status, prompt, vars, created_at, updated_at)
    SELECT '$id-' || n, agent, manifest_digest, 'queued', prompt, vars, created_at, updated_at
    FROM runs, generate_series(2, $runs) AS n WHERE id = '$id'"
  started=$(date +%s.%N)
  pids=()
  for _ in $(seq "$workers"); do
    "$sw" worker --store "$url" --agents "$work/agents" --exit-when-idle --poll-ms 10 --json \
      >"$work/out-$workers-${#pids[@]}.jsonl" &
    pids+=("$!")
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  ended=$(date +%s.%N)
  finished=$(psql "$url" -qAtX -c "SELECT count(*) FROM runs WHERE status = 'finished'")
  settled=$(cat "$work"/out-"$workers"-*.jsonl | grep -c '"settled":"finished"')
  if [ "$finished" != "$runs" ] || [ "$settled" != "$runs" ]; then
    echo "round with $workers worker(s): $finished finished, $settled settled, of $runs" >&2
    exit 1
  fi
  awk -v n="$runs" -v w="$workers" -v a="$started" -v b="$ended" \
    'BEGIN { printf "%d worker(s): %d runs in %.2f s, %.0f runs/s\n", w, n, b - a, n / (b - a) }'
  psql "$admin" -qAtX -c "DROP DATABASE $db WITH (FORCE)"
done
