"""A small MCP server over stdio that misbehaves on request.

Usage: hostile_server.py MODE [LABEL]. With FAIL_IF set to a path that
exists, it refuses to start (status 3). Modes:
  flood     writes 10 MiB to stderr before it answers anything
  silent    never answers `initialize`
  exit      writes a reason to stderr and exits with status 3 at once
  normal    behaves
  leak      behaves, but repeats the value of the variable LABEL names
            everywhere it can: on stderr, in every tool's description, in
            `echo`'s answer and in `die`'s last words; `leak VAR exit` says it
            on stderr and exits with status 3 at once
Every mode that answers offers the tools `pid` (its process id), `echo`
(answers LABEL and its own name), `slow` (sleeps 30 s), `huge` (a 100 MiB
text), `die` (writes last words to stderr and exits with status 7), and
`grow` (adds the tool `extra` and says the list changed), `count` (three progress
notifications for a caller that sent a progress token), `env` (its variables' names), `write` (writes the file at `path`, or answers why not), and the names
`files.read` and a 90-character one. `pid` says it is read-only and `write` that it is
destructive; the others give no hints.
"""

import json
import os
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"
LABEL = sys.argv[2] if len(sys.argv) > 2 else "server"
LONG = "long" * 15 + "." + "x" * 29


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(request_id, value):
    send({"jsonrpc": "2.0", "id": request_id,
          "result": {"content": [{"type": "text", "text": value}]}})


TOOLS = [
    {"name": name, "inputSchema": {"type": "object", "properties": {}}}
    for name in ["pid", "echo", "slow", "huge", "die", "grow", "count", "files.read", LONG]
] + [{"name": "env", "inputSchema": {"type": "object", "properties": {}}},
     {"name": "write", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
      "annotations": {"readOnlyHint": False, "destructiveHint": True}}]
TOOLS[0]["annotations"] = {"readOnlyHint": True}

LEAKED = os.environ.get(LABEL, "") if MODE == "leak" else None
if LEAKED is not None:
    sys.stderr.write("given " + LEAKED + "\n")
    sys.stderr.flush()
    if len(sys.argv) > 3 and sys.argv[3] == "exit":
        sys.stderr.write("cannot start with " + LEAKED + "\n")
        sys.exit(3)
    for tool in TOOLS:
        tool["description"] = "knows " + LEAKED

FAIL_IF = os.environ.get("FAIL_IF")
if FAIL_IF and os.path.exists(FAIL_IF):
    sys.stderr.write("refusing to start: " + FAIL_IF + " exists\n")
    sys.exit(3)
if MODE == "exit":
    sys.stderr.write("cannot start: the config file is missing\n")
    sys.exit(3)
if MODE == "flood":
    line = "e" * 1023 + "\n"
    for _ in range(10 * 1024):
        sys.stderr.write(line)
    sys.stderr.write("flood over\n")
    sys.stderr.flush()

for raw in sys.stdin:
    try:
        message = json.loads(raw)
    except ValueError:
        continue
    method = message.get("method")
    request_id = message.get("id")
    if method == "initialize":
        if MODE == "silent":
            sys.stderr.write("waiting forever\n")
            sys.stderr.flush()
            continue
        send({"jsonrpc": "2.0", "id": request_id, "result": {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "hostile", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = message["params"]["name"]
        if name == "pid":
            text(request_id, str(os.getpid()))
        elif name == "slow":
            time.sleep(30)
            text(request_id, "slept")
        elif name == "huge":
            sys.stdout.write('{"jsonrpc": "2.0", "id": %s, "result": {"content": '
                             '[{"type": "text", "text": "' % json.dumps(request_id))
            chunk = "y" * (1024 * 1024)
            for _ in range(100):
                sys.stdout.write(chunk)
            sys.stdout.write('"}]}}\n')
            sys.stdout.flush()
        elif name == "count":
            token = message["params"].get("_meta", {}).get("progressToken")
            if token is not None:
                for step in (1, 2, 3):
                    send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
                        "progressToken": token, "progress": step, "total": 3,
                        "message": "step %d" % step}})
            text(request_id, "counted")
        elif name == "grow":
            if not any(tool["name"] == "extra" for tool in TOOLS):
                TOOLS.append({"name": "extra", "inputSchema": {"type": "object", "properties": {}}})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            text(request_id, "grown")
        elif name == "env":
            text(request_id, " ".join(sorted(os.environ)))
        elif name == "write":
            try:
                with open(message["params"]["arguments"]["path"], "w") as target:
                    target.write("written")
                text(request_id, "wrote")
            except OSError as error:
                text(request_id, "refused: " + str(error))
        elif name == "die":
            sys.stderr.write("last words: the disk is on fire\n")
            if LEAKED is not None:
                sys.stderr.write("and it knew " + LEAKED + "\n")
            sys.stderr.flush()
            os._exit(7)
        elif LEAKED is not None:
            text(request_id, "it was given " + LEAKED)
        else:
            text(request_id, LABEL + " " + name)
    elif request_id is not None:
        send({"jsonrpc": "2.0", "id": request_id, "result": {}})
