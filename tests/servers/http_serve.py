"""Serve a fixture server over Streamable HTTP: ``http_serve.py FIXTURE.py [PORT]``.

The fixture module is imported (not run), and its ``app`` (MCPServer) or ``server``
(low-level Server) is served with the SDK's own Streamable HTTP app on 127.0.0.1:PORT, path
``/mcp``; a fixture written without the SDK gives its own ASGI app as ``asgi``, served as it
is (on every path). Without PORT (or with 0) the system picks a free port; either way the port is
printed on stdout, one line, once the socket listens. A fixture with
``REFUSES_DISCOVER = True`` gets `server/discover` refused in front of the SDK, as a
handshake-era server refuses it; ``MCP_FIXTURE_DISCOVER`` answers it otherwise, as servers
on old SDKs were seen to: ``500`` (an HTTP error status, no JSON-RPC error), ``drop`` (an
event stream that ends without an answer: the connection closes) or ``garbage`` (a body
that is not JSON). With ``MCP_FIXTURE_TOKEN`` set, every
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
    sys.modules[spec.name] = module  # as an import would: pydantic looks its module up there
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


# How `server/discover` is answered in front of the SDK: (status, content type, body).
DISCOVER_ANSWERS = {
    "refuse": (200, b"application/json", None),  # the body: a -32601 error for its id
    "500": (500, b"text/plain; charset=utf-8", b"Internal Server Error"),
    "drop": (200, b"text/event-stream", b""),
    "garbage": (200, b"application/json", b"<html><body>Not Found</body></html>"),
}


def answer_discover(inner: Any, how: str) -> Any:
    """Answer `server/discover` as ``how`` names (DISCOVER_ANSWERS); pass the rest on."""
    status, content_type, fixed = DISCOVER_ANSWERS[how]

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
            answer = fixed
            if answer is None:
                reply = {"jsonrpc": "2.0", "id": message.get("id"), "error": error}
                answer = json.dumps(reply).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [(b"content-type", content_type)],
                }
            )
            await send({"type": "http.response.body", "body": answer})
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
    app = getattr(module, "asgi", None) or server_in(module, fixture).streamable_http_app()
    how = os.environ.get("MCP_FIXTURE_DISCOVER")
    if how is None and getattr(module, "REFUSES_DISCOVER", False):
        how = "refuse"
    if how is not None:
        app = answer_discover(app, how)
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
