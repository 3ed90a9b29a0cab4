"""An MCP server on the Python SDK's MCPServer, over streamable HTTP on
the loopback address: `python_server.py PORT`."""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("starweaver-interop")


@server.tool()
def echo(text: str) -> str:
    """Echoes `text`."""
    return text


@server.tool()
def add(a: int, b: int) -> dict:
    """Adds two numbers."""
    return {"sum": a + b}


server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
