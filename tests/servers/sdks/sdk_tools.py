"""The tools every Python SDK fixture of this folder serves, written once: each server file
registers them in its SDK's own way, so what differs between the servers on the wire is the
SDK's doing, never the tools'.

- `refuse_raise(limit)`: the tool's own code refuses a limit below 1 with `raise ValueError`.
- `refuse_sdk(limit)`: the same refusal through the SDK's refusal type (its `ToolError`; a
  low-level server answers `isError` itself).
- `crash_key(word)`: a runtime crash, a `KeyError` out of a table lookup, for a word whose
  first character is not a lowercase ASCII letter.
- `crash_none(key)`: a runtime crash, `'NoneType' object has no attribute 'strip'`, for any key
  but `"a"`.
- `error_dict(name) -> dict`, `error_dict_bare(name)` (no annotation), `error_dict_typed(name)
  -> dict[str, Any]` and `error_dict_wrapped(name) -> dict[str, Any] | None`: an error returned
  as a dict, `{"error": "nothing is open"}`, never raised. The annotation decides whether an
  SDK sends it as text only, as structured content, or wrapped as `{"result": {...}}`.
- `ok(text)`: echoes its text.

MCP_FIXTURE_LOG_TRACEBACKS=1: every tool logs its exception with the whole traceback on
stderr (`logging.exception`) before re-raising it, as many published servers do, so that a
deliberate raise has a traceback on stderr too.

No `from __future__ import annotations`: the SDKs read these annotations at run time, from
the functions the decorator wraps.
"""

import functools
import importlib.metadata
import logging
import os
import string
import sys
from collections.abc import Callable
from typing import Any

LOG_TRACEBACKS = os.environ.get("MCP_FIXTURE_LOG_TRACEBACKS") == "1"

_log = logging.getLogger("sdk-fixture")
_handler = logging.StreamHandler(sys.stderr)
_handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
_log.addHandler(_handler)
_log.propagate = False  # the SDK's own logging setup must not change what this prints

_FIRST_CHARACTERS = {character: index for index, character in enumerate(string.ascii_lowercase)}
_NOTES = {"a": " first note "}


def server_name(sdk: str, api: str = "") -> str:
    """The server's name: the SDK package and the version installed, the SDK's API it is
    built on, and whether it logs tracebacks, so that one run can test every server of a
    stack side by side (``mcp1.30.0-fastmcp-logged``)."""
    words = [f"{sdk}{importlib.metadata.version(sdk)}", api, "logged" if LOG_TRACEBACKS else ""]
    return "-".join(word for word in words if word)


def _logged(tool: Callable[..., Any]) -> Callable[..., Any]:
    if not LOG_TRACEBACKS:
        return tool

    @functools.wraps(tool)
    def logging_tool(*args: Any, **kwargs: Any) -> Any:
        try:
            return tool(*args, **kwargs)
        except Exception:
            _log.exception("tool %s failed", tool.__name__)
            raise

    return logging_tool


def tools(tool_error: type[Exception]) -> list[Callable[..., Any]]:
    """The tools, `refuse_sdk` raising ``tool_error`` (the SDK's refusal type)."""

    def refuse_raise(limit: int) -> str:
        """Lists `limit` items; a limit below 1 is refused."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        return f"{limit} items"

    def refuse_sdk(limit: int) -> str:
        """Lists `limit` items; a limit below 1 is refused."""
        if limit < 1:
            raise tool_error("limit must be at least 1")
        return f"{limit} items"

    def crash_key(word: str) -> str:
        """The position of a word's first letter in the alphabet."""
        if not word:
            return "empty"
        return str(_FIRST_CHARACTERS[word[0]])  # THE BUG: KeyError past a-z

    def crash_none(key: str) -> str:
        """The note stored under `key`, trimmed."""
        return _NOTES.get(key).strip()  # type: ignore[union-attr]  # THE BUG: None.strip()

    def error_dict(name: str) -> dict:  # type: ignore[type-arg]
        """Opens the document `name`."""
        return {"error": "nothing is open"}

    def error_dict_bare(name: str):  # type: ignore[no-untyped-def]
        """Opens the document `name`."""
        return {"error": "nothing is open"}

    def error_dict_typed(name: str) -> dict[str, Any]:
        """Opens the document `name`."""
        return {"error": "nothing is open"}

    def error_dict_wrapped(name: str) -> dict[str, Any] | None:
        """Opens the document `name`."""
        return {"error": "nothing is open"}

    def ok(text: str) -> str:
        """Echoes `text`."""
        return text

    every = [refuse_raise, refuse_sdk, crash_key, crash_none, error_dict, error_dict_bare]
    every += [error_dict_typed, error_dict_wrapped, ok]
    return [_logged(tool) for tool in every]


# The input schemas a low-level server lists (an SDK with decorators derives them).
_STRING = {"type": "string"}
INPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    name: {"type": "object", "properties": {key: kind}, "required": [key]}
    for name, key, kind in [
        ("refuse_raise", "limit", {"type": "integer"}),
        ("refuse_sdk", "limit", {"type": "integer"}),
        ("crash_key", "word", _STRING),
        ("crash_none", "key", _STRING),
        ("error_dict", "name", _STRING),
        ("error_dict_bare", "name", _STRING),
        ("error_dict_typed", "name", _STRING),
        ("error_dict_wrapped", "name", _STRING),
        ("ok", "text", _STRING),
    ]
}


class Refusal(Exception):
    """`refuse_sdk`'s refusal on a low-level server, which has no refusal type: the server
    catches it and answers `isError: true` itself."""
