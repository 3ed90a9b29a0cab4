"""The Python side of `benches/compare_mcp.sh`, on the Python MCP SDK (`mcp` 2.3.0).

Usage:
  compare_mcp.py client ROUNDS CALLS RUST_DRIVER NODE EVERYTHING_JS
      Our client (RUST_DRIVER, the `mcp_client` bench binary) against the SDK's
      ClientSession, both calling server-everything's `echo` over stdio.
  compare_mcp.py server ROUNDS CALLS STARWEAVER MANIFEST
      The SDK's ClientSession calling `read_file` on `STARWEAVER mcp serve MANIFEST`
      against the same tool served by the SDK's MCPServer (what 1.x called FastMCP;
      this script's `mcpserver` mode), both over stdio, from the manifest's folder.
  compare_mcp.py mcpserver
      That MCPServer over stdio.

Each side's session is set up (initialize, tools/list) before anything is timed, and
both sides' answers to one call are checked to be the same (structured content, or
else text). Then ROUNDS interleaved rounds (the order flips every round): each side
makes CALLS calls one after another and measures them itself. Prints the rounds, then
one JSON line: per-call microseconds for each side per round.
"""

import asyncio
import json
import os
import pathlib
import sys
import time

# The file both `read_file` tools read, relative to the manifest's folder.
NOTES = "notes.txt"
ECHO_ARGS = {"message": "hello from the benchmark"}


def answer_of(result):
    """A CallToolResult's structured content, or else the text of its blocks; an error
    return ends the benchmark."""
    if result.is_error:
        raise SystemExit(f"the call failed: {result}")
    if result.structured_content is not None:
        return result.structured_content
    return "".join(block.text for block in result.content if block.type == "text")


class SdkSide:
    """A ClientSession over stdio to one server, making `calls` calls when asked."""

    def __init__(self, name, command, args, tool, arguments, cwd=None, env=None):
        self.name, self.tool, self.arguments = name, tool, arguments
        self.params = (command, args, cwd, env)

    async def __aenter__(self):
        from contextlib import AsyncExitStack

        from mcp import ClientSession, StdioServerParameters, stdio_client

        command, args, cwd, env = self.params
        self.stack = AsyncExitStack()
        params = StdioServerParameters(command=command, args=args, cwd=cwd, env=env)
        read, write = await self.stack.enter_async_context(stdio_client(params))
        self.session = await self.stack.enter_async_context(ClientSession(read, write))
        await self.session.initialize()
        tools = await self.session.list_tools()
        if self.tool not in [tool.name for tool in tools.tools]:
            raise SystemExit(f"{self.name}: no tool {self.tool}")
        return self

    async def __aexit__(self, *exc):
        await self.stack.aclose()

    async def run(self, calls):
        first = None
        start = time.perf_counter_ns()
        for _ in range(calls):
            result = await self.session.call_tool(self.tool, self.arguments)
            if first is None:
                first = result
        ns = time.perf_counter_ns() - start
        return ns, answer_of(first)


class DriverSide:
    """The Rust driver (`mcp_client` bench binary), told over its stdin how many calls."""

    def __init__(self, name, driver, env):
        self.name, self.driver, self.env = name, driver, env

    async def __aenter__(self):
        self.process = await asyncio.create_subprocess_exec(
            self.driver,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, **self.env},
        )
        return self

    async def __aexit__(self, *exc):
        self.process.stdin.close()
        await self.process.wait()

    async def run(self, calls):
        self.process.stdin.write(f"{calls}\n".encode())
        await self.process.stdin.drain()
        line = await self.process.stdout.readline()
        if not line:
            raise SystemExit(f"{self.name}: the driver ended")
        answer = json.loads(line)
        return answer["ns"], answer["answer"]


async def compare(sides, rounds, calls):
    # Same work: one call each, the same text.
    answers = [(await side.run(1))[1] for side in sides]
    for side, answer in zip(sides, answers):
        print(f"{side.name}: {answer!r}")
    if any(answer != answers[0] for answer in answers):
        raise SystemExit(f"the answers differ: {answers}")
    # Warm-up: one round each, not kept.
    for side in sides:
        await side.run(calls)
    per_call = {side.name: [] for side in sides}
    for number in range(rounds):
        order = sides if number % 2 == 0 else list(reversed(sides))
        for side in order:
            ns, _ = await side.run(calls)
            per_call[side.name].append(ns / calls / 1000)
        print(
            f"round {number + 1}: "
            + ", ".join(f"{side.name} {per_call[side.name][-1]:.1f} us" for side in sides),
            flush=True,
        )
    print(json.dumps({"calls": calls, "rounds": rounds, "per_call_us": per_call}))


async def client(rounds, calls, driver, node, everything):
    rust_env = {
        "STARWEAVER_MCP_BENCH_SERVER": json.dumps([node, everything, "stdio"]),
        "STARWEAVER_MCP_BENCH_TOOL": "echo",
        "STARWEAVER_MCP_BENCH_ARGS": json.dumps(ECHO_ARGS),
    }
    async with DriverSide("starweaver", driver, rust_env) as ours, SdkSide(
        "python-sdk", node, [everything, "stdio"], "echo", ECHO_ARGS
    ) as theirs:
        await compare([ours, theirs], rounds, calls)


async def server(rounds, calls, starweaver, manifest):
    folder = str(pathlib.Path(manifest).resolve().parent)
    arguments = {"path": NOTES}
    # The SDK starts servers with a minimal environment; ours needs no more.
    async with SdkSide(
        "starweaver", starweaver, ["mcp", "serve", manifest], "read_file", arguments, cwd=folder
    ) as ours, SdkSide(
        "mcpserver", sys.executable, [os.path.abspath(__file__), "mcpserver"], "read_file",
        arguments, cwd=folder,
    ) as theirs:
        await compare([ours, theirs], rounds, calls)


def mcpserver():
    """`read_file` on the SDK's MCPServer: a text file under the working folder, whole or
    a window of lines, returned as the same object the filesystem bundle's `read_file`
    returns (its content as structured content, checked equal before timing)."""
    from typing import NotRequired, TypedDict

    from mcp.server.mcpserver import MCPServer

    class ReadFileOutput(TypedDict):
        path: str
        content: str
        start_line: int
        lines_returned: int
        total_lines: int
        truncated: bool
        next_offset: NotRequired[int]

    root = pathlib.Path.cwd().resolve()
    served = MCPServer("bench")

    # Structured, as ours is: the object as structured content and as JSON text.
    @served.tool(structured_output=True)
    def read_file(path: str, offset: int = 1, limit: int = 2000) -> ReadFileOutput:
        """Reads a UTF-8 text file under the working folder."""
        target = (root / path).resolve()
        if root not in target.parents:
            raise ValueError("outside the working folder")
        lines = target.read_text().splitlines(keepends=True)
        window = lines[offset - 1 : offset - 1 + limit]
        answer = {
            "path": path,
            "content": "".join(window),
            "start_line": offset,
            "lines_returned": len(window),
            "total_lines": len(lines),
            "truncated": offset - 1 + len(window) < len(lines),
        }
        if answer["truncated"]:
            answer["next_offset"] = offset + len(window)
        return answer

    served.run(transport="stdio")


def main():
    mode = sys.argv[1]
    if mode == "mcpserver":
        mcpserver()
    elif mode == "client":
        asyncio.run(client(int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:7]))
    elif mode == "server":
        asyncio.run(server(int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:6]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
