"""What a ``resources/read`` or ``prompts/get`` result holds, judged.

This is the calls branch's minimal envelope check, so that its reads and gets are judged at
all: ``contents`` a list of objects each with a string ``uri``, ``messages`` a list of
objects each with a ``role``. The full checks (the requested URI, exactly one of
``text``/``blob``, base64, MIME types, roles, content blocks, embedded resources) come from
the contents branch (issue 25, point 4), whose module replaces this one with the same
interface.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_mcp_contracts.checks.failures import FailureKind, Finding


def check_read_result(
    result: Mapping[str, Any], uri: str, *, protocol_version: str
) -> list[Finding]:
    contents = result.get("contents")
    if not isinstance(contents, list):
        return [_malformed("read", f"the result of reading {uri} has no 'contents' list")]
    for n, entry in enumerate(contents):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("uri"), str):
            return [_malformed("read", f"contents[{n}] is not an object with a string 'uri'")]
    return []


def check_prompt_result(result: Mapping[str, Any], *, protocol_version: str) -> list[Finding]:
    messages = result.get("messages")
    if not isinstance(messages, list):
        return [_malformed("get", "the prompt's result has no 'messages' list")]
    for n, message in enumerate(messages):
        if not isinstance(message, Mapping) or "role" not in message:
            return [_malformed("get", f"messages[{n}] is not an object with a 'role'")]
    return []


def check_embedded_resource(block: Mapping[str, Any], where: str) -> list[Finding]:
    return []


def _malformed(check: str, message: str) -> Finding:
    return Finding(check, message, kind=FailureKind.MALFORMED_RESULT)
