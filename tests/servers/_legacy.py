"""A minimal handshake-era (pre-2026) MCP server over stdio, standard library only.

Fixture servers built on it start in milliseconds and put exactly the bytes they are given
on the wire: `serve(name, tools, call)` lists `tools` as they are and answers `tools/call`
with whatever `call(name, arguments)` returns (a result dict), or with the JSON-RPC error it
raises as RpcError. `server/discover` is refused with -32601, as every handshake-era server
does. Options:

- `list_page(cursor)`: answer `tools/list` per cursor (pagination) instead of one page;
- `strict_lifecycle`: refuse `tools/*` with -32600 until `notifications/initialized`;
- `validate` (default true): refuse arguments the tool's inputSchema does not allow with
  -32602, as TypeScript-SDK servers of that era do; false hands them to `call` unchecked.
- `capabilities`: what `initialize` declares (default: tools only).
- `handlers`: other methods (`prompts/list`...), each answered by `handler(params)`.

`call` and `list_page` may also return `Raw(write)` instead of a result: then no response
is sent, and `write(request_id, out)` puts whatever bytes it likes on the binary stdout
`out` (a broken response, stray lines, a stream of chunks too large to hold).

With MCP_FIXTURE_PID_FILE set, the server appends its pid to that file at start, so a test
can check that the process is gone after the run.
"""

import json
import os
import sys
import traceback

SUPPORTED = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


class Raw:
    """Returned instead of a result: `write(request_id, out)` writes the reply bytes itself."""

    def __init__(self, write):
        self.write = write


def text_result(value, *, structured=None, is_error=False):
    result = {"content": [{"type": "text", "text": value}]}
    if structured is not None:
        result["structuredContent"] = structured
    if is_error:
        result["isError"] = True
    return result


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def invalid_params(tool, arguments):
    """The first reason `arguments` do not fit the tool's inputSchema, or None."""
    schema = tool.get("inputSchema") if isinstance(tool, dict) else None
    if not isinstance(schema, dict):
        return None
    import jsonschema  # imported already by serve(), before the handshake is answered

    try:
        validator = jsonschema.validators.validator_for(schema)(schema)
        error = next(iter(validator.iter_errors(arguments)), None)
    except Exception:  # a schema built to hurt: leave the arguments to the tool
        return None
    return None if error is None else error.message


def serve(
    name,
    tools,
    call,
    *,
    list_page=None,
    strict_lifecycle=False,
    validate=True,
    capabilities=None,
    handlers=None,
):
    """Answer requests until stdin closes; never die on a bad request."""
    state = {"initialized": False}
    by_name = {t.get("name"): t for t in tools if isinstance(t, dict)} if validate else {}
    if os.environ.get("MCP_FIXTURE_PID_FILE"):
        with open(os.environ["MCP_FIXTURE_PID_FILE"], "a") as pid_file:
            pid_file.write(f"{os.getpid()}\n")
    if by_name:
        # Before the handshake, not on the first tools/call: the import costs 0.1-0.3 s on an
        # idle machine and over 1 s on a loaded one, which a run with --mcp-call-timeout=1
        # would blame on whichever tool is called first after each (re)start. Start-up has
        # --mcp-startup-timeout (30 s) for it.
        import jsonschema  # noqa: F401

    def handle(method, params):
        if method == "initialize":
            requested = params.get("protocolVersion")
            return {
                "protocolVersion": requested if requested in SUPPORTED else "2025-06-18",
                "capabilities": capabilities or {"tools": {}},
                "serverInfo": {"name": name, "version": "1.0"},
            }
        if method == "ping":
            return {}
        if handlers and method in handlers:
            return handlers[method](params)
        if method not in ("tools/list", "tools/call"):
            raise RpcError(-32601, "Method not found")  # includes server/discover
        if strict_lifecycle and not state["initialized"]:
            raise RpcError(-32600, "Server not initialized")
        if method == "tools/list":
            return list_page(params.get("cursor")) if list_page else {"tools": tools}
        arguments = params.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise RpcError(-32602, "arguments must be an object")
        problem = invalid_params(by_name.get(params.get("name")), arguments)
        if problem is not None:
            raise RpcError(-32602, f"Invalid params: {problem}")
        return call(params.get("name"), arguments)

    for raw in iter(sys.stdin.buffer.readline, b""):  # bytes: no locale-dependent decoding
        if not raw.strip():
            continue
        try:
            msg = json.loads(raw.decode("utf-8"))
        except ValueError:  # includes UnicodeDecodeError
            send(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
            )
            continue
        if not isinstance(msg, dict) or "method" not in msg:
            continue  # stray responses need no answer
        if "id" not in msg:
            if msg["method"] == "notifications/initialized":
                state["initialized"] = True
            continue
        try:
            result = handle(msg["method"], msg.get("params") or {})
            if isinstance(result, Raw):
                result.write(msg["id"], sys.stdout.buffer)
                sys.stdout.buffer.flush()
            else:
                send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        except RpcError as exc:
            error = {"code": exc.code, "message": exc.message}
            send({"jsonrpc": "2.0", "id": msg["id"], "error": error})
        except Exception:
            # As the SDKs' low-level servers do: the traceback on stderr, the client told
            # only "Internal error".
            traceback.print_exc(file=sys.stderr)
            error = {"code": -32603, "message": "Internal error"}
            send({"jsonrpc": "2.0", "id": msg["id"], "error": error})
