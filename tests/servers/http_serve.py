"""Serve a fixture server over Streamable HTTP: ``http_serve.py FIXTURE.py [PORT]``.

The fixture module is imported (not run), and its ``app`` (MCPServer) or ``server``
(low-level Server) is served with the SDK's own Streamable HTTP app on 127.0.0.1:PORT, path
``/mcp``. Without PORT (or with 0) the system picks a free port; either way the port is
printed on stdout, one line, once the socket listens. A fixture with
``REFUSES_DISCOVER = True`` gets `server/discover` refused in front of the SDK, as a
handshake-era server refuses it. With ``MCP_FIXTURE_TOKEN`` set, every
request must carry ``Authorization: Bearer <token>``; others get 401 (what a gateway in
front of a server does).
"""

import importlib.util
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import uvicorn


def load_module(path: Path) -> Any:
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"fixture_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def server_in(module: Any, path: Path) -> Any:
    target = getattr(module, "app", None) or getattr(module, "server", None)
    if target is None:
        sys.exit(f"{path} has no `app` or `server` to serve")
    return target


def require_token(inner: Any, token: str) -> Any:
    expected = f"Bearer {token}".encode()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": b'{"error":"unauthorized"}'})
            return
        await inner(scope, receive, send)

    return app


def refuse_discover(inner: Any) -> Any:
    """Answer `server/discover` with -32601, as a handshake-era server does over HTTP."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await inner(scope, receive, send)
            return
        body, more = b"", True
        while more:
            event = await receive()
            body += event.get("body", b"")
            more = event.get("more_body", False)
        try:
            message = json.loads(body)
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("method") == "server/discover":
            error = {"code": -32601, "message": "Method not found"}
            answer = json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "error": error})
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": answer.encode()})
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await inner(scope, replay, send)

    return app


def main() -> None:
    fixture = Path(sys.argv[1]).resolve()
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    module = load_module(fixture)
    app = server_in(module, fixture).streamable_http_app()
    if getattr(module, "REFUSES_DISCOVER", False):
        app = refuse_discover(app)
    token = os.environ.get("MCP_FIXTURE_TOKEN")
    if token:
        app = require_token(app, token)
    # This process binds the port itself and holds it until it exits: no window between
    # finding a free port and binding it in which a parallel test (pytest-xdist) takes it.
    # Once listen() returns, connections wait in the backlog until uvicorn serves them, so
    # the printed port is ready to use.
    sock = socket.socket()
    # Accepted connections inherit TCP_NODELAY from the listening socket. uvicorn does not
    # set it on sockets it is handed, and without it each response (headers, then body)
    # waits out the client's delayed ACK: 44 ms a request instead of under 1 ms.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    print(sock.getsockname()[1], flush=True)
    # Nothing more goes to the pipe the port was read from: nobody reads it, and a full
    # pipe would block the server.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
