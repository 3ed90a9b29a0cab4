#!/usr/bin/env python3
"""Writes generated agent manifests for benches/compare_check.sh.

    gen_manifests.py DIR [--count N] [--seed S] [--broken]

Every manifest is valid for `starweaver check` (no errors; code tools are not
verified without a catalog, which is a warning) and for the committed JSON
Schema. They vary in size the way real ones do: 3 to 13 toolsets of every
type, a shell section with an allowlist, 2 to 8 template variables and an
instructions template of 4 to 20 lines that uses them. The output depends
only on the seed. DIR also gets `catalog.json`, naming every code tool the
manifests use, for `starweaver check --catalog`.

With --broken, DIR instead gets a few manifests that both checkers must
refuse (an unknown field, a value of the wrong type, a missing required
field, a toolset type that does not exist), plus one that only the semantic
checker refuses (a template variable that is not declared).
"""

import argparse
import json
import os
import random

VERBS = ["lookup", "fetch", "render", "summarize", "index", "rank", "translate",
         "classify", "resolve", "archive", "compare", "estimate", "notify", "schedule"]
NOUNS = ["ticket", "invoice", "page", "video", "report", "issue", "commit", "user",
         "order", "release", "metric", "alert", "document", "recipe"]
PROGRAMS = ["git", "cargo", "rg", "ls", "cat", "make", "python3", "node", "jq", "sed"]
WORDS = ["careful", "concise", "repository", "answers", "questions", "release", "notes",
         "tickets", "support", "customers", "reviews", "changes", "tests", "builds",
         "the", "and", "with", "before", "after", "always", "never", "cite", "sources"]


def sentence(rng, low=4, high=12):
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def quoted(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def manifest(rng, index):
    lines = ["version: 1", f"name: agent-{index:04d}",
             f"description: {quoted(sentence(rng))}",
             "model:", "  id: test",
             f"  settings: {{ temperature: {rng.randint(0, 10) / 10}, "
             f"max_tokens: {rng.choice([512, 1024, 2048, 4096])} }}"]

    var_names = rng.sample(["audience", "team", "product", "tone", "language", "region",
                            "channel", "owner", "deadline", "policy"], rng.randint(2, 8))
    lines.append("vars:")
    for name in var_names:
        kind = rng.random()
        if kind < 0.6:
            lines.append(f"  {name}: {quoted(sentence(rng, 1, 3))}")
        elif kind < 0.8:
            lines.append(f"  {name}: {rng.randint(1, 1000)}")
        else:
            lines.append(f"  {name}: [{', '.join(rng.sample(WORDS, 3))}]")

    lines.append("instructions: |")
    lines.append("  You are {{ name }}, helping {{ vars.%s }}." % var_names[0])
    for _ in range(rng.randint(4, 20)):
        roll = rng.random()
        var = rng.choice(var_names)
        if roll < 0.5:
            lines.append(f"  {sentence(rng)}")
        elif roll < 0.8:
            lines.append("  %s {{ vars.%s }}." % (sentence(rng, 2, 6)[:-1], var))
        else:
            lines.append("  {%% if vars.%s %%}%s{%% endif %%}" % (var, sentence(rng, 2, 6)))

    # A local root must be a folder (the output folder or the one above it); a virtual
    # environment has none.
    kind = rng.choice(["local", "local", "virtual"])
    lines += ["environment:", f"  type: {kind}"]
    if kind == "local":
        lines.append(f"  root: {rng.choice(['.', '..'])}")

    lines += ["shell:", "  allow_execute: true",
              f"  allowed_programs: [{', '.join(rng.sample(PROGRAMS, rng.randint(1, 6)))}]",
              f"  timeout_ms: {rng.choice([10000, 30000, 60000])}",
              f"  max_output_bytes: {rng.choice([65536, 1048576])}",
              f"  max_concurrent_processes: {rng.randint(1, 8)}"]

    tools = [f"{v}_{n}" for v in VERBS for n in NOUNS]
    rng.shuffle(tools)
    lines.append("toolsets:")
    groups = []
    for g in range(rng.randint(2, 7)):
        name = f"group_{g}"
        groups.append(name)
        mine = [tools.pop() for _ in range(rng.randint(1, 8))]
        lines += ["  - type: tools", f"    name: {name}", f"    tools: [{', '.join(mine)}]"]
        if rng.random() < 0.5:
            lines.append(f"    instructions: {quoted(sentence(rng))}")
        if rng.random() < 0.4:
            lines.append(f"    timeout_ms: {rng.choice([1000, 5000, 20000])}")
            lines.append(f"    max_retries: {rng.randint(0, 3)}")
        if rng.random() < 0.3:
            lines.append(f"    approval_required: [{mine[0]}]")
    bundles = [["  - type: filesystem"] + (["    read_only: true"] if rng.random() < 0.5 else []),
               ["  - type: shell"], ["  - type: user_input"]]
    for bundle in rng.sample(bundles, rng.randint(1, 3)):
        lines += bundle
    if rng.random() < 0.6:
        lines += ["  - type: proxy", "    name: workspace",
                  f"    toolsets: [{', '.join(rng.sample(groups, rng.randint(1, len(groups))))}]"]
    if rng.random() < 0.6:
        lines += ["  - type: search", "    name: docs",
                  f"    toolsets: [{rng.choice(groups)}]", "    preload: []"]
    if rng.random() < 0.5:
        lines += ["  - type: deferred", "    name: jobs",
                  f"    tools: [{', '.join(tools.pop() for _ in range(rng.randint(1, 3)))}]"]

    lines += ["runtime:", f"  tool_execution: {rng.choice(['parallel', 'sequential'])}",
              f"  unavailable_tools: {rng.choice(['skip', 'fail_run'])}",
              f"  timeout_ms: {rng.choice([60000, 120000])}",
              f"  max_retries: {rng.randint(0, 5)}"]
    return "\n".join(lines) + "\n"


BROKEN = {
    "unknown-field.yaml": "version: 1\nname: a\nmodel: {id: test}\nnme: typo\n",
    "wrong-type.yaml": "version: 1\nname: a\nmodel: {id: test}\nruntime: {max_retries: many}\n",
    "missing-name.yaml": "version: 1\nmodel: {id: test}\n",
    "bad-toolset-type.yaml": "version: 1\nname: a\nmodel: {id: test}\ntoolsets: [{type: toolz, name: g}]\n",
}
# Valid for the schema; only the semantic checker knows `vars.missing` is never declared.
SEMANTIC_ONLY = {
    "undefined-variable.yaml":
        "version: 1\nname: a\nmodel: {id: test}\nvars: {audience: devs}\n"
        "instructions: \"Hello {{ vars.missing }}\"\n",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--broken", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    if args.broken:
        files = {**BROKEN, **SEMANTIC_ONLY}
    else:
        rng = random.Random(args.seed)
        files = {f"agent-{i:04d}.yaml": manifest(rng, i) for i in range(args.count)}
        catalog = [{"name": f"{v}_{n}"} for v in VERBS for n in NOUNS]
        files["catalog.json"] = json.dumps({"tools": catalog}, indent=1) + "\n"
    for name, text in files.items():
        with open(os.path.join(args.dir, name), "w", encoding="utf-8") as out:
            out.write(text)


if __name__ == "__main__":
    main()
