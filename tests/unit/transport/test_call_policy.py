"""transport/call_policy.py: which tools the call policy lets the plugin call."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contracts.transport.call_policy import call_refusal, task_refusal

DESTRUCTIVE = {"readOnlyHint": False, "destructiveHint": True}
READ_ONLY = {"readOnlyHint": True}
# readOnlyHint wins: destructiveHint is meaningful only when a tool is not read-only.
READ_ONLY_ODD = {"readOnlyHint": True, "destructiveHint": True}
SAFE_WRITE = {"readOnlyHint": False, "destructiveHint": False}
NONE: dict[str, Any] = {}


@pytest.mark.parametrize(
    ("policy", "annotations", "called"),
    [
        ("all", DESTRUCTIVE, True),
        ("nondestructive", DESTRUCTIVE, False),
        ("nondestructive", READ_ONLY, True),
        ("nondestructive", READ_ONLY_ODD, True),
        ("nondestructive", SAFE_WRITE, True),
        ("nondestructive", NONE, True),
        ("readonly", READ_ONLY, True),
        ("readonly", SAFE_WRITE, False),
        ("readonly", NONE, False),
        ("readonly", {"readOnlyHint": "yes"}, False),
    ],
)
def test_call_policy(policy: str, annotations: dict[str, Any], called: bool) -> None:
    refusal = call_refusal(annotations, policy)
    assert (refusal is None) is called
    if refusal is not None:
        assert f"--mcp-call={'all' if policy == 'nondestructive' else 'nondestructive'}" in refusal


TASKS: dict[str, Any] = {"tasks": {"requests": {"tools": {"call": {}}}}}


@pytest.mark.parametrize(
    ("execution", "capabilities", "refused"),
    [
        ({"taskSupport": "required"}, TASKS, True),
        ({"taskSupport": "optional"}, TASKS, False),  # a plain call is allowed
        ({"taskSupport": "forbidden"}, TASKS, False),
        (None, TASKS, False),
        # A server that does not offer tasks for tools/call: clients MUST NOT use them, so
        # the tool has to answer plain calls, and what it answers is judged.
        ({"taskSupport": "required"}, {}, False),
        ({"taskSupport": "required"}, {"tasks": {"requests": {}}}, False),
        ("required", TASKS, False),  # malformed: not an object
    ],
)
def test_only_a_tool_that_must_run_as_a_task_is_left_uncalled(
    execution: object, capabilities: dict[str, object], refused: bool
) -> None:
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    if execution is not None:
        tool["execution"] = execution
    refusal = task_refusal(tool, capabilities)
    assert (refusal is not None) == refused, refusal
