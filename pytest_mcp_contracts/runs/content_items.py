"""The calling checks of a prompt, resource or template as their items run them: ``read``
(a resource read, a template expanded and read) and ``get`` (a prompt got).

Reads and gets change no state by the spec, so they run under every ``--mcp-call`` policy;
a ``[tool.mcp-contracts.<kind>s]`` table may skip them. Each takes the server's
``RunContext``: the recorder's content contract (started, judged, taught only by a passing
check), the replay of a failure on a fresh server, and the verdict on a content contract
missing in CI. A failure is raised as ``ContractFailure``, a skip as ``context.Skipped``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from pytest_mcp_contracts.judges.failures import ContractFailure, FailureKind, entry_failure
from pytest_mcp_contracts.runs.context import ItemFacts, RunContext, Skipped, Warn
from pytest_mcp_contracts.runs.stats import CheckStats, stats_key
from pytest_mcp_contracts.vocabulary import Check, EntryKind

if TYPE_CHECKING:
    from pytest_mcp_contracts.contracts.observe import EntryObservations
    from pytest_mcp_contracts.runs.content_calls import ContentRun
    from pytest_mcp_contracts.transport.discover import Entry


def check_read(context: RunContext, entry: Entry, facts: ItemFacts, warn: Warn) -> None:
    """A listed resource read (it must succeed), or a template expanded with generated
    values and read (each answer a result or a refusal, never a crash)."""
    _check_calls(context, entry, Check.READ.value, _read, facts, warn)


def check_get(context: RunContext, entry: Entry, facts: ItemFacts, warn: Warn) -> None:
    """A prompt got with generated arguments, and without each required one."""
    _check_calls(context, entry, Check.GET.value, _get, facts, warn)


def _check_calls(
    context: RunContext,
    entry: Entry,
    check: str,
    run: Callable[[RunContext, Entry], ContentRun],
    facts: ItemFacts,
    warn: Warn,
) -> None:
    from pytest_mcp_contracts.contracts.snapshot import SnapshotError
    from pytest_mcp_contracts.runs.content_calls import replay_request

    server = context.server
    if (entry.kind, entry.key) in context.settings.listed_skips:
        raise Skipped(
            f"skipped by [tool.mcp-contracts.{entry.kind}s.{json.dumps(entry.key)}] skip = true"
        )
    recorder = context.recorder
    try:
        content = recorder.start(server.node_name, entry)
    except SnapshotError as exc:
        raise entry_failure(context.server, entry, check, exc.render()) from None
    passed = False
    try:
        done = run(context, entry)
        facts.stats = CheckStats({stats_key(entry): done.stats})
        facts.section("mcp", done.summary())
        facts.properties.append(("mcp_calls", done.stats.calls))
        facts.properties.append(("mcp_refused", done.stats.refused))
        if done.failure is not None:
            with done.stats.timed("replay"):
                replayed = replay_request(server, done.failure, lambda: context.fresh(check))
            raise replayed
        _check_content(context, entry, check, content, done)
        for note in done.notes:
            warn(note)
        passed = True
    finally:
        # Only a check that passed teaches the recorder a content contract.
        recorder.finish(context.surface, server.node_name, content, passed=passed)


def _check_content(
    context: RunContext, entry: Entry, check: str, content: EntryObservations, run: ContentRun
) -> None:
    """The results against the recorded content contract (contracts/content), and in CI
    the contract an entry that returned JSON must have."""
    from pytest_mcp_contracts.runs.content_calls import content_drift_finding

    for arguments, result in run.results:
        drift = content.observe(arguments, result)
        found = content_drift_finding(check, drift, arguments, context.drift_hint)
        if found is not None:
            raise entry_failure(
                context.server, entry, check, found.message, found.details, found.kind
            )
    missing = missing_content(context, entry, check, content)
    if missing is not None:
        raise missing


def missing_content(
    context: RunContext, entry: Entry, check: str, content: EntryObservations
) -> ContractFailure | None:
    """In CI, an entry that returned JSON must have its content contract recorded: none is
    written there."""
    recorder = context.recorder
    if not recorder.content_missing_in_ci(content):
        return None
    from pytest_mcp_contracts.contracts.snapshot import file_of

    path = recorder.path(context.server.node_name, file_of(entry))
    return entry_failure(
        context.server,
        entry,
        check,
        f"no content contract is recorded for this {entry.kind} ({path}), and CI is set, so "
        "none is written",
        (f"record it locally with: {context.record_command}  and commit the file",),
        FailureKind.MISSING_RECORD,
    )


def _read(context: RunContext, entry: Entry) -> ContentRun:
    from pytest_mcp_contracts.inputs.listed import template_variables
    from pytest_mcp_contracts.runs.content_calls import (
        known_inputs,
        run_generated,
        run_read,
        template_target,
    )

    server = context.server
    if entry.kind is EntryKind.RESOURCE:
        return run_read(server, entry, context.budget(tool_time=context.settings.tool_time))
    assert entry.kind is EntryKind.TEMPLATE
    names = template_variables(entry.key)
    if not names:
        raise Skipped(
            "the URI template has no variables to fill in, or is not valid RFC 6570 (see its "
            "schema check)"
        )
    uris = [resource.key for resource in context.surface.resources]
    known = known_inputs(server, entry, names, names, uris)
    subject = template_target(server, entry)
    budget = context.budget(tool_time=context.settings.tool_time)
    return run_generated(server, subject, budget, known, coverage=context.settings.coverage)


def _get(context: RunContext, entry: Entry) -> ContentRun:
    from pytest_mcp_contracts.inputs.listed import prompt_schema
    from pytest_mcp_contracts.runs.content_calls import (
        known_inputs,
        probe_missing_arguments,
        prompt_target,
        run_generated,
    )

    assert entry.kind is EntryKind.PROMPT
    server = context.server
    schema = prompt_schema(entry.raw.get("arguments"))
    names, required = list(schema["properties"]), list(schema["required"])
    known = known_inputs(server, entry, names, required)
    subject = prompt_target(server, entry)
    budget = context.budget(tool_time=context.settings.tool_time)
    run = run_generated(server, subject, budget, known, coverage=context.settings.coverage)
    if run.failure is None:
        run.failure = probe_missing_arguments(server, entry, run)
    return run
