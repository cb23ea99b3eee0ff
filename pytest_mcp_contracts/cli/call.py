"""``mcp-contracts call``: replay tool calls (a failure's reproduction) on a server, or one
resource read or prompt get. It does the handshake (either protocol era), makes each call
in order, each after the answer to the one before, and prints every answer as one line of
JSON."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, TextIO

from pytest_mcp_contracts.cli.command import USAGE_ERROR, CommandError, CommandSpec
from pytest_mcp_contracts.cli.target import check_header, open_target
from pytest_mcp_contracts.transport.client import CallTranscript
from pytest_mcp_contracts.transport.errors import RpcError, ServerError
from pytest_mcp_contracts.transport.jsonrpc import RpcConnection


def parse_calls(words: Sequence[str], lines: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    """The calls to make: ``TOOL JSON`` pairs, then the lines of a calls file."""
    if len(words) % 2:
        raise CommandError(
            f"calls come in pairs of a tool name and its JSON arguments; {words[-1]!r} has "
            "no arguments (write '{}' for none)",
            USAGE_ERROR,
        )
    pairs = [(words[i], words[i + 1], f"call {i // 2 + 1}") for i in range(0, len(words), 2)]
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if text and not text.startswith("#"):
            tool, _, arguments = text.partition(" ")
            pairs.append((tool, arguments.strip() or "{}", f"line {number} of --file"))
    calls = []
    for tool, raw, where in pairs:
        try:
            arguments = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CommandError(
                f"{where}: the arguments of {tool} are not JSON: {exc}", USAGE_ERROR
            ) from None
        if not isinstance(arguments, dict):
            raise CommandError(
                f"{where}: the arguments of {tool} must be a JSON object", USAGE_ERROR
            )
        calls.append((tool, arguments))
    if not calls:
        raise CommandError("no calls given: TOOL 'JSON' pairs, or --file PATH", USAGE_ERROR)
    return calls


def listed_request(args: argparse.Namespace) -> tuple[str, dict[str, Any]] | None:
    """The read (--read) or get (--prompt, --arguments) asked for instead of tool calls."""
    if args.read is None and args.prompt is None:
        if args.arguments != "{}":
            raise CommandError("--arguments applies to --prompt", USAGE_ERROR)
        return None
    if args.calls or args.file is not None:
        raise CommandError("--read and --prompt make one request: give no tool calls", USAGE_ERROR)
    if args.read is not None:
        if args.arguments != "{}":
            raise CommandError("--arguments applies to --prompt", USAGE_ERROR)
        return "resources/read", {"uri": args.read}
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        raise CommandError(f"--arguments is not JSON: {exc}", USAGE_ERROR) from None
    if not isinstance(arguments, dict):
        raise CommandError("--arguments must be a JSON object", USAGE_ERROR)
    return "prompts/get", {"name": args.prompt, "arguments": arguments}


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Make each call in order and print its answer; stop at a server that died or hung."""
    check_header(args)
    request = listed_request(args)
    if request is not None:
        return _request_command(args, *request, out)
    lines: list[str] = []
    if args.file is not None:
        try:
            lines = args.file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"--file {args.file}: {exc}", USAGE_ERROR) from None
    calls = parse_calls(args.calls, lines)
    conn = open_target(args)
    try:
        for tool, arguments in calls:
            answer: dict[str, Any] = {"tool": tool, "arguments": arguments}
            params = {"name": tool, "arguments": arguments}
            mark = conn.stderr_mark()
            try:
                answer["result"] = conn.call_tool(
                    params, CallTranscript(tool=tool), timeout=args.call_timeout
                )
            except RpcError as exc:
                answer["error"] = {"code": exc.code, "message": exc.message, "data": exc.data}
            except ServerError as exc:
                answer["failure"] = exc.message
                _with_stderr(answer, conn, mark)
                out.write(json.dumps(answer, ensure_ascii=False) + "\n")
                return 1
            _with_stderr(answer, conn, mark)
            out.write(json.dumps(answer, ensure_ascii=False) + "\n")
            out.flush()
    finally:
        conn.close()
    return 0


def _with_stderr(answer: dict[str, Any], conn: RpcConnection, mark: int) -> None:
    """Add what the server wrote on stderr during the call (its traceback, for a crash the SDK
    turned into an isError result), when it wrote anything: a replay shows the evidence the
    failure report quoted. A remote server's stderr is not ours to read."""
    written = conn.stderr_since(mark)
    if written.strip():
        answer["stderr"] = written


def _request_command(
    args: argparse.Namespace, method: str, params: dict[str, Any], out: TextIO
) -> int:
    """Make one read or get and print its answer, as a tool call's is printed."""
    conn = open_target(args)
    answer: dict[str, Any] = {"method": method, "params": params}
    mark = conn.stderr_mark()
    try:
        answer["result"] = conn.request(method, params, timeout=args.call_timeout)
    except RpcError as exc:
        answer["error"] = {"code": exc.code, "message": exc.message, "data": exc.data}
    except ServerError as exc:
        answer["failure"] = exc.message
    finally:
        _with_stderr(answer, conn, mark)
        conn.close()
    out.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 1 if "failure" in answer else 0


def add_arguments(command: argparse.ArgumentParser) -> None:
    """call's own arguments (the server, --roots and the timeouts come from the options
    table)."""
    command.add_argument(
        "calls",
        nargs="*",
        metavar="TOOL JSON",
        help="pairs of a tool name and its arguments as a JSON object",
    )
    command.add_argument(
        "--file",
        type=Path,
        metavar="PATH",
        help="more calls, one per line: a tool name, a space, its arguments as JSON "
        "(blank lines and lines starting with # are skipped); made after those given inline",
    )
    asked = command.add_mutually_exclusive_group()
    asked.add_argument(
        "--read", metavar="URI", help="instead of tools: read this resource (resources/read)"
    )
    asked.add_argument(
        "--prompt", metavar="NAME", help="instead of tools: get this prompt (prompts/get)"
    )
    command.add_argument(
        "--arguments",
        metavar="JSON",
        default="{}",
        help="the prompt's arguments, a JSON object of strings (with --prompt)",
    )


COMMAND: Final = CommandSpec(
    help="call tools in order and print each answer as JSON",
    description="Call tools on a server, in order, each after the answer to the one "
    "before, and print each answer as one line of JSON: "
    '{"tool", "arguments", and "result", "error" (JSON-RPC) or "failure"}. '
    "Exit status 1 when the server did not start, died or did not answer.",
    add_arguments=add_arguments,
    run=run,
    target_required=True,
)
