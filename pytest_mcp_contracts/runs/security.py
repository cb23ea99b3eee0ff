"""The security check of one tool: its probes (``inputs/probes``) sent through the one loop
(``runs/engine``), each answer judged by whether its canary appeared
(``judges/evidence``).

The probes are explicit inputs, reported as they were sent: a probe is already as small as
its evidence allows, so nothing is shrunk. Whatever else an answer shows (a crash, an error,
a wrong result) is the contract check's business, not this one's: only evidence fails here.
After the last call every canary is looked for once more, for a write that lands after its
call has answered (a program the server started in the background).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from pytest_mcp_contracts.inputs.probes import PATH_FORMS, Form, Probe
from pytest_mcp_contracts.judges.evidence import probe_evidence, probe_write, seen
from pytest_mcp_contracts.judges.failures import (
    ContractFailure,
    FailureKind,
    Finding,
    call_command_line,
    call_failure,
    unavailable,
)
from pytest_mcp_contracts.judges.writes import Boundary
from pytest_mcp_contracts.runs.engine import Budget, Engine, Given, Judgement, Sent
from pytest_mcp_contracts.runs.watch import Watch, replay_watched
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer
from pytest_mcp_contracts.vocabulary import Check

CHECK: Final = Check.SECURITY.value
AS_SENT: Final = "the probe, as sent:"


@dataclass
class SecurityRun:
    """What the probes came to: how many were sent and planned, and the failure (with the
    probe that proved it), if any."""

    sent: int = 0
    planned: int = 0
    failure: ContractFailure | None = None
    proof: Probe | None = None
    out_of_time: bool = False
    answered: int = 0  # probes the tool answered with a result (not a JSON-RPC error)
    # Path-like arguments through which the plain outside path got through: the tool
    # reads or writes anywhere by design (information, not a failure).
    unbounded: set[str] = field(default_factory=set)
    # Where the probes' time went (runs/engine's phases: the probes, the watch's looks).
    phase_seconds: Counter[str] = field(default_factory=Counter)


def _key(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, default=str)


@dataclass
class _ProbeCalls:
    """The probes as the engine's subject: sent as they are, judged by their evidence."""

    server: ManagedServer
    tool: Entry
    probes: dict[str, Probe]
    boundary: Boundary | None = None
    run: SecurityRun = field(default_factory=SecurityRun)
    answers: dict[str, CallOutcome] = field(default_factory=dict)  # by the probe's key

    @property
    def key(self) -> str:
        return f"{self.server.command.display}::{self.tool.name}::{CHECK}"

    def send(self, arguments: dict[str, Any], limit: float | None) -> Sent:
        return Sent(self.server.call(self.tool.name, arguments, limit=limit))

    def count(self, outcome: CallOutcome) -> None:
        self.run.sent += 1
        self.run.answered += outcome.result is not None

    def judge(self, sent: Sent, *, shrinking: bool) -> Judgement:
        key = _key(sent.outcome.arguments)
        self.answers[key] = sent.outcome
        probe = self.probes.get(key)
        return Judgement(None if probe is None else self.finding(probe, sent.outcome))

    def finding(self, probe: Probe, outcome: CallOutcome, *, late: bool = False) -> Finding | None:
        found = probe_evidence(
            probe, self.tool.annotations, outcome, late=late, boundary=self.boundary
        )
        if probe.form is Form.CONTROL:
            if found is None and seen(probe, outcome) is not None:
                self.run.unbounded.add(probe.argument)  # no boundary: nothing to escape
            return found
        if probe.form in PATH_FORMS and probe.argument in self.run.unbounded:
            return None
        return found


def run_security(
    server: ManagedServer,
    tool: Entry,
    probes: list[Probe],
    budget: Budget,
    fresh: Callable[[], None] | None = None,
    watch: Watch | None = None,
) -> SecurityRun:
    """Send ``probes`` to ``tool`` under ``budget`` (its time; nothing is drawn or shrunk),
    each call watched by ``watch``. A failure carries the command that sends its probe
    again and, given ``fresh`` (what brings a fresh server), what that probe alone showed
    on one."""
    boundary = watch.boundary if watch is not None else None
    subject = _ProbeCalls(server, tool, {_key(p.arguments): p for p in probes}, boundary)
    run = subject.run
    run.planned = len(probes)
    given = [Given(probe.arguments, as_sent=AS_SENT) for probe in probes]
    engine = Engine(server, subject, budget, watch=watch, explicit_phase=CHECK)
    search = engine.search(given, None)
    run.phase_seconds = search.phase_seconds
    run.out_of_time = search.out_of_time
    watched = False  # the failure is a change the watch saw, not the probe's own evidence
    if search.found is not None:
        run.proof = subject.probes.get(_key(search.found.outcome.arguments))
        finding, watched = search.found.finding, search.found.watched
        if watched and run.proof is not None and finding.kind is FailureKind.PATH_TRAVERSAL:
            finding = probe_write(run.proof, finding)
        run.failure = call_failure(
            server,
            tool,
            search.found.outcome,
            finding,
            check=CHECK,
            label=search.found.label,
            notes=search.found.notes,
        )
    elif search.gone is not None:
        run.failure = unavailable(server, tool, search.gone, CHECK)
    else:
        # A write that landed after its call had answered: the last probes' canaries.
        for probe in probes:
            outcome = subject.answers.get(_key(probe.arguments))
            late = None if outcome is None else subject.finding(probe, outcome, late=True)
            if outcome is not None and late is not None:
                run.proof = probe
                run.failure = call_failure(server, tool, outcome, late, check=CHECK, label=AS_SENT)
                break
    if run.failure is not None and run.proof is not None:
        _reproduce(server, tool, run.proof, run.failure, fresh, watch if watched else None)
    return run


def _reproduce(
    server: ManagedServer,
    tool: Entry,
    probe: Probe,
    failure: ContractFailure,
    fresh: Callable[[], None] | None,
    watch: Watch | None,
) -> None:
    report = failure.report
    report.replay_command = call_command_line(server.command, [(tool.name, probe.arguments)])
    if fresh is not None and watch is not None:  # a change the watch saw: replayed watched
        report.notes.append(replay_watched(server, tool, probe.arguments, watch, fresh))
    elif fresh is not None:
        report.notes.append(replay_probe(server, tool, probe, fresh))
    if probe.form in PATH_FORMS:
        report.notes.append(
            "the command reads or writes through files the run laid beside its roots folder "
            "and removed after the check: lay them again to run it (docs/security.md)"
        )


def replay_probe(
    server: ManagedServer, tool: Entry, probe: Probe, fresh: Callable[[], None]
) -> str:
    """Send ``probe`` once more on a fresh server, its canary removed first: what that
    showed, as a note for the failure."""
    from pytest_mcp_contracts.transport.errors import ServerError

    if probe.listener is not None:
        probe.listener.forget()
    try:
        if probe.canary is not None:
            os.remove(probe.canary)
    except IsADirectoryError:
        return "not replayed: the evidence is a folder, left for you to see"
    except OSError as exc:
        return f"not replayed: the evidence could not be removed first ({exc.strerror})"
    try:
        fresh()
        answer = server.call(tool.name, probe.arguments)
    except ServerError as exc:
        return f"not replayed: the server could not be started again ({exc.message})"
    if seen(probe, answer) is not None:
        return "replayed alone on a fresh server: the evidence showed again"
    return (
        "replayed alone on a fresh server: the evidence did not show again (the earlier "
        "calls of this check, or the program's timing, may be needed)"
    )
