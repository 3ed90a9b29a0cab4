"""Drives `starweaver mcp serve` with the Python MCP SDK's client, as the interop test does.

Usage: python_client.py stdio COMMAND ARG...   (the server started by the SDK, in this folder)
       python_client.py http URL

Prints one JSON object: the negotiated version, the tools, and the results of a read, a
read with bad arguments and a write the client approves when asked (through elicitation).
"""

import asyncio
import json
import os
import sys

import mcp.types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

asked = []


async def elicit(context, params):
    asked.append(params.message)
    return types.ElicitResult(action="accept", content={})


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def drive(read, write):
    async with ClientSession(read, write, elicitation_callback=elicit) as session:
        init = await session.initialize()
        tools = await session.list_tools()
        ok = await session.call_tool("read_file", {"path": "notes.txt"})
        bad = await session.call_tool("read_file", {"path": 7})
        approved = await session.call_tool(
            "write_file", {"path": "python.txt", "content": "from python\n"}
        )
        return {
            "protocol": init.protocol_version,
            "server": init.server_info.name,
            "tools": [dump(tool) for tool in tools.tools],
            "ok": dump(ok),
            "bad": dump(bad),
            "approved": dump(approved),
            "asked": asked,
        }


async def main():
    mode = sys.argv[1]
    if mode == "stdio":
        # The SDK starts the server with a minimal environment; pass the test's own settings.
        env = {name: value for name, value in os.environ.items() if name.startswith("STARWEAVER_")}
        params = StdioServerParameters(
            command=sys.argv[2], args=sys.argv[3:], cwd=os.getcwd(), env=env
        )
        async with stdio_client(params) as streams:
            result = await drive(streams[0], streams[1])
    else:
        async with streamable_http_client(sys.argv[2]) as streams:
            result = await drive(streams[0], streams[1])
    print(json.dumps(result))


asyncio.run(main())
