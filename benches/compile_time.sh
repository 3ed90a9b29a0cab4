#!/usr/bin/env bash
# Compile-time cost of #[starweaver::tool]: a crate of 100 macro tools
# against the same 100 tools written by hand with `typed_tool`, built side
# by side in one run, plus the incremental rebuild after touching one
# tool. Dependencies are built once, first, and shared; each measurement
# rebuilds only the generated crate. Prints a markdown table.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$repo/target/compile-bench"
runs="${RUNS:-3}"
mkdir -p "$work"
export CARGO_TARGET_DIR="$work/target"

python3 - "$repo" "$work" <<'PY'
import pathlib, sys
repo, work = map(pathlib.Path, sys.argv[1:3])
N = 100
def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
for kind in ("macro_tools", "typed_tools"):
    deps = f'starweaver = {{ path = "{repo}" }}\n'
    if kind == "typed_tools":
        deps += 'serde = { version = "1", features = ["derive"] }\nschemars = "1"\nserde_json = "1"\n'
    write(work / kind / "Cargo.toml",
          f'[package]\nname = "{kind}"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
          f'[workspace]\n\n[dependencies]\n{deps}')
    mods = "".join(f"pub mod tool_{i};\n" for i in range(N))
    write(work / kind / "src" / "lib.rs", "//! Generated.\n" + mods)
    for i in range(N):
        if kind == "macro_tools":
            body = f'''/// Tool {i}: adds two numbers and labels the sum.
#[starweaver::tool(timeout_ms = 1000, tags("bench"))]
pub async fn tool_{i}(
    /// First number.
    a: i64,
    /// Second number.
    #[arg(default = 1)]
    b: i64,
    /// Label to append.
    label: Option<String>,
) -> Result<Vec<String>, starweaver::ToolError> {{
    Ok(vec![format!("{{}}{{}}", a + b, label.unwrap_or_default())])
}}
'''
        else:
            body = f'''use starweaver::tools::TypedFunctionTool;
use starweaver::{{typed_tool, ToolContext, ToolError, ToolResult}};

fn default_b() -> i64 {{
    1
}}

/// Arguments of tool {i}.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {{
    /// First number.
    a: i64,
    /// Second number.
    #[serde(default = "default_b")]
    #[schemars(default = "default_b")]
    b: i64,
    /// Label to append.
    #[serde(default)]
    label: Option<String>,
}}

/// Tool {i}.
pub fn tool_{i}_tool() -> TypedFunctionTool<Args> {{
    typed_tool(
        "tool_{i}",
        Some("Tool {i}: adds two numbers and labels the sum.".to_string()),
        |_ctx: ToolContext, args: Args| async move {{
            let out = vec![format!("{{}}{{}}", args.a + args.b, args.label.unwrap_or_default())];
            serde_json::to_value(out)
                .map(ToolResult::new)
                .map_err(ToolError::execution_caused_by)
        }},
    )
    .with_timeout_ms(1000)
    .with_tags(["bench"])
}}
'''
        write(work / kind / "src" / f"tool_{i}.rs", body)
PY

ms() { date +%s%3N; }
build() { (cd "$work/$1" && cargo build -q 2>&1); }
# Dependencies once, for both.
build macro_tools; build typed_tools

declare -A full incr
for kind in macro_tools typed_tools; do
  full[$kind]=""; incr[$kind]=""
  for _ in $(seq "$runs"); do
    (cd "$work/$kind" && cargo clean -q -p "$kind")
    start=$(ms); build "$kind"; full[$kind]+="$(( $(ms) - start )) "
    touch "$work/$kind/src/tool_42.rs"
    start=$(ms); build "$kind"; incr[$kind]+="$(( $(ms) - start )) "
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
fm=$(echo "${full[macro_tools]}" | median); ft=$(echo "${full[typed_tools]}" | median)
im=$(echo "${incr[macro_tools]}" | median); it=$(echo "${incr[typed_tools]}" | median)
echo "| build of the crate ($runs runs, median) | 100 macro tools | 100 typed_tool tools | ratio |"
echo "| --- | ---: | ---: | ---: |"
awk -v a="$fm" -v b="$ft" 'BEGIN {printf "| full (dependencies already built) | %.2f s | %.2f s | **%.2fx** |\n", a/1000, b/1000, a/b}'
awk -v a="$im" -v b="$it" 'BEGIN {printf "| incremental, one tool touched | %.2f s | %.2f s | **%.2fx** |\n", a/1000, b/1000, a/b}'
