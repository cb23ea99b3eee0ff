"""A server of the handshake era: it refuses `server/discover` with -32601, as TypeScript-SDK
servers and every server older than the 2026-07-28 protocol do, so a client must fall back
to the `initialize` handshake.

Today's Python SDK serves both eras on one connection (the first request decides), so the
refusal is made in front of it: `run` answers the probe itself (stdio and in-process), and
`REFUSES_DISCOVER` tells tests/servers/http_serve.py to do the same over HTTP.
"""

from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from mcp.types import METHOD_NOT_FOUND, ErrorData, JSONRPCError, JSONRPCRequest
from pydantic import BaseModel

REFUSES_DISCOVER = True
app = MCPServer("handshake-era")


def refuse_discover(server: MCPServer) -> None:
    """Make ``server`` answer `server/discover` with -32601 on stdio and in-process."""
    sdk_run = server._lowlevel_server.run

    async def run(read_stream: Any, write_stream: Any, *args: Any, **kwargs: Any) -> None:
        send, receive = create_context_streams[SessionMessage | Exception](16)

        async def forward() -> None:
            async with send:
                async for item in read_stream:
                    message = getattr(item, "message", None)
                    if isinstance(message, JSONRPCRequest) and message.method == "server/discover":
                        error = ErrorData(code=METHOD_NOT_FOUND, message="Method not found")
                        await write_stream.send(
                            SessionMessage(JSONRPCError(jsonrpc="2.0", id=message.id, error=error))
                        )
                        continue
                    await send.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(forward)
            async with receive:
                await sdk_run(receive, write_stream, *args, **kwargs)
            group.cancel_scope.cancel()

    server._lowlevel_server.run = run  # type: ignore[method-assign]


refuse_discover(app)


class Greeting(BaseModel):
    text: str


@app.tool()
def greet(name: str) -> Greeting:
    """Greets by name."""
    return Greeting(text=f"hello {name}")


if __name__ == "__main__":
    app.run()
