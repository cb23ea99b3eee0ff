"""Which tools the plugin calls: the run's ``--mcp-call`` policy, a tool's own entry in the
tool tables, and what this client cannot call (task-augmented calls)."""

from __future__ import annotations

from typing import Any, Final

from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import CallPolicy

SKIPPED_BY_TABLE: Final = "skipped by [tool.mcp-contracts.tools] skip = true"


def call_refusal(annotations: dict[str, Any], policy: str) -> str | None:
    """Why the call policy forbids calling a tool with these annotations, or None.

    ``nondestructive`` refuses only tools that declare ``destructiveHint: true`` (and are not
    read-only): the spec's default for an absent hint is also "destructive", which would
    refuse every unannotated tool, so the default policy acts on what a server declares.
    ``readonly`` calls only tools that declare ``readOnlyHint: true``.
    """
    read_only = annotations.get("readOnlyHint") is True
    if policy == CallPolicy.READONLY and not read_only:
        return (
            "not called: the tool does not declare readOnlyHint: true and --mcp-call=readonly; "
            "use --mcp-call=nondestructive or all to call it"
        )
    if (
        policy == CallPolicy.NONDESTRUCTIVE
        and annotations.get("destructiveHint") is True
        and not read_only
    ):
        return (
            "not called: the tool declares destructiveHint: true. Its schema and drift checks "
            "still run. To call it, point the plugin at a disposable test instance and pass "
            "--mcp-call=all (annotations are hints, not a safeguard)"
        )
    return None


def tool_refusal(
    tool: Entry,
    capabilities: dict[str, Any],
    *,
    policy: str,
    tool_policy: str | None = None,
    skip: bool = False,
) -> str | None:
    """Why pytest-mcp-contracts does not call a tool, or None: the one decision behind the
    contract, rejects_invalid and sequences checks, and ``mcp-contracts inspect``.

    ``policy`` is the run's ``--mcp-call``; ``tool_policy`` and ``skip`` are the tool's
    ``call`` and ``skip`` in ``[tool.mcp-contracts.tools.<name>]`` (its ``call`` wins)."""
    if skip:
        return SKIPPED_BY_TABLE
    refusal = call_refusal(tool.annotations, tool_policy or policy)
    return refusal or task_refusal(tool.raw, capabilities)


def task_refusal(tool: dict[str, Any], capabilities: dict[str, Any]) -> str | None:
    """Why a tool cannot be called by this client, which does not make task-augmented
    calls: in protocol 2025-11-25 a tool with ``execution.taskSupport: "required"`` on a
    server that declares ``tasks.requests.tools.call`` MUST be called as a task, and the
    server MUST refuse any other call (a refusal is no contract to check)."""
    execution = tool.get("execution")
    if not isinstance(execution, dict) or execution.get("taskSupport") != "required":
        return None
    tasks = capabilities.get("tasks")
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    calls = requests.get("tools") if isinstance(requests, dict) else None
    if not isinstance(calls, dict) or "call" not in calls:
        return None  # the server does not offer tasks: the tool must answer plain calls
    return (
        'not called: the tool declares execution.taskSupport: "required", so a client must '
        "call it as a task (protocol 2025-11-25 tasks), and pytest-mcp-contracts does not "
        "make task-augmented calls yet. Its schema and drift checks still run"
    )
