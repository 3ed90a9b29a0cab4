#!/usr/bin/env bash
# `starweaver check` against check-jsonschema on the same 1,000 generated
# manifests and the same JSON Schema (schema/agent.schema.json), side by
# side in one hyperfine run, plus one-file latency both ways.
#
# Installs check-jsonschema from PyPI into a venv under target/ and
# hyperfine from the distribution's packages when they are missing, builds
# the release binary, generates the manifests (benches/gen_manifests.py,
# fixed seed) into a temporary folder, checks that both tools accept all of
# them and refuse the same broken files, then times them. Extra arguments
# go to hyperfine instead of `--warmup 2 --min-runs 10` (for example
# `--warmup 1 --runs 20`).
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/check-jsonschema-venv
if [ ! -x "$venv/bin/check-jsonschema" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q check-jsonschema
fi
cjs="$PWD/$venv/bin/check-jsonschema"

if ! command -v hyperfine >/dev/null; then
  sudo_cmd=""
  if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -qq
  $sudo_cmd apt-get install -y -qq hyperfine >/dev/null
fi

cargo build --release --bin starweaver
schema="$PWD/schema/agent.schema.json"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A copy, so a build in a shared target folder cannot swap the binary mid-run.
sw="$work/starweaver"
cp "${CARGO_TARGET_DIR:-$PWD/target}/release/starweaver" "$sw"
python3 benches/gen_manifests.py "$work/agents" --count 1000 --seed 11
python3 benches/gen_manifests.py "$work/broken" --broken
one="$work/agents/agent-0500.yaml"

echo "== versions"
"$sw" --version 2>/dev/null || true
"$cjs" --version
hyperfine --version
echo "== $(ls "$work"/agents/*.yaml | wc -l) manifests, $(du -sh "$work/agents" | cut -f1), one file $(wc -c <"$one") bytes"

echo "== both accept all of them"
"$sw" check --catalog "$work/agents/catalog.json" "$work/agents"
"$cjs" --schemafile "$schema" "$work"/agents/*.yaml

echo "== both refuse the broken ones"
for file in "$work"/broken/*.yaml; do
  sw_status=0 cjs_status=0
  "$sw" check "$file" >/dev/null || sw_status=$?
  "$cjs" --schemafile "$schema" "$file" >/dev/null || cjs_status=$?
  printf '%-28s starweaver exit %s, check-jsonschema exit %s\n' "$(basename "$file")" "$sw_status" "$cjs_status"
  if [ "$sw_status" = 0 ]; then
    echo "starweaver accepted $file" >&2
    exit 1
  fi
  case "$(basename "$file")" in
    undefined-variable.yaml) ;; # a semantic rule: the schema cannot see it
    *) if [ "$cjs_status" = 0 ]; then
         echo "check-jsonschema accepted $file" >&2
         exit 1
       fi ;;
  esac
done

echo "== timing"
out=target/compare_check.json
options=("$@")
if [ ${#options[@]} = 0 ]; then options=(--warmup 2 --min-runs 10); fi
hyperfine "${options[@]}" --export-json "$out" \
  -n "starweaver check (1,000 files)" "$sw check --catalog $work/agents/catalog.json $work/agents" \
  -n "check-jsonschema (1,000 files)" "$cjs --schemafile $schema $work/agents/*.yaml" \
  -n "starweaver check (one file)" "$sw check --catalog $work/agents/catalog.json $one" \
  -n "check-jsonschema (one file)" "$cjs --schemafile $schema $one"

python3 - "$out" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
def shown(s):
    return f"{s:.3f} s" if s >= 1 else f"{s * 1e3:.1f} ms"
print("| what | starweaver check | check-jsonschema | ratio |")
print("| --- | ---: | ---: | ---: |")
for what in ["1,000 files", "one file"]:
    ours = results[f"starweaver check ({what})"]
    theirs = results[f"check-jsonschema ({what})"]
    a, b = ours["median"], theirs["median"]
    print(f"| {what} | {shown(a)} ± {shown(ours['stddev'])} | {shown(b)} ± {shown(theirs['stddev'])} | **{b / a:.0f}x faster** |")
PY
