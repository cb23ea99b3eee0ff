"""transport/managed.py: which tools the call policy lets the plugin call."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contracts.transport.managed import call_refusal

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
