"""The verdict of a security probe: evidence the run planted and then found, never words.

A probe (``inputs/probes``) names a file in a folder the run made for itself, or reads one
the run laid outside a boundary with a random token in it. Two things count: that file
appearing, and that token (a file's content, never its name or path) in the answer. Neither
can come from a refusal that quotes the probe back (every fixed release of the published bugs
quotes it), nor from the server's own files. Their absence proves nothing either way: a miss,
never an alarm.

A path escape is a broken boundary only where there is one: the plain outside path (the
control) was refused, or the server declared a boundary (``judges/writes.Boundary``: folders
it was given, the client's roots it adopted) that the outside path lies beyond. A server
that serves it and declares none reads and writes anywhere by design.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

from pytest_mcp_contracts.inputs.probes import Form, Probe
from pytest_mcp_contracts.judges.failures import CWE, FailureKind, Finding
from pytest_mcp_contracts.vocabulary import Check

if TYPE_CHECKING:
    from pytest_mcp_contracts.judges.writes import Boundary
    from pytest_mcp_contracts.transport.managed import CallOutcome

KIND: Final = {
    Form.CONTROL: FailureKind.PATH_TRAVERSAL,
    Form.FLAG: FailureKind.ARGUMENT_INJECTION,
    Form.SHELL: FailureKind.COMMAND_INJECTION,
    Form.SIBLING: FailureKind.PATH_TRAVERSAL,
    Form.CLIMB: FailureKind.PATH_TRAVERSAL,
    Form.LINK: FailureKind.LINK_FOLLOWING,
}
_WHAT: Final = {
    Form.CONTROL: "path traversal: a path outside the boundary the server declared was served",
    Form.FLAG: "argument injection: the value was read as a program's option",
    Form.SHELL: "OS command injection: a shell ran the command in the value",
    Form.SIBLING: "path traversal: a folder whose name extends the allowed one was reached",
    Form.CLIMB: "path traversal: '..' climbed out of the allowed folder",
    Form.LINK: "link following: a symlink led out of the allowed folder",
}


def seen(probe: Probe, outcome: CallOutcome | None) -> str | None:
    """What showed that ``probe`` got through, in words, or None."""
    if probe.form is Form.NETWORK:  # only the connection: the URL quoted back is nothing
        listener, token = probe.listener, probe.token
        if listener is not None and token is not None and listener.heard(token):
            return f"a request for {probe.value} reached the listener the run opened"
        return None
    if probe.canary is not None and os.path.lexists(probe.canary):
        return f"{probe.canary} appeared"
    answer = outcome.result if outcome is not None else None
    if probe.token is not None and answer is not None and probe.token in json.dumps(answer):
        return (
            f"a token the run laid outside ({probe.token}: a file's content, an entry's "
            "name or a commit's message) came back"
        )
    return None


def probe_evidence(
    probe: Probe,
    annotations: dict[str, object],
    outcome: CallOutcome | None = None,
    *,
    late: bool = False,
    boundary: Boundary | None = None,
) -> Finding | None:
    """The finding ``probe`` proved, or None: also for a control that got through where
    ``boundary`` declares none that it lies beyond (the caller's information, not a
    failure)."""
    evidence = seen(probe, outcome)
    if evidence is not None and probe.form is Form.NETWORK:
        return _network(probe, annotations, evidence)
    if evidence is None or probe.form not in KIND:
        return None
    if probe.form is Form.CONTROL and (boundary is None or boundary.holds(Path(probe.value))):
        return None
    kind = KIND[probe.form]
    cwe, _ = CWE[kind]
    when = "after the run's calls had answered" if late else "during the call"
    details = [
        f"evidence: {evidence} {when}; only this input named it, in a place the run made "
        "for its probes alone",
        f"the argument: {probe.argument} = {probe.value!r}",
    ]
    details += _boundary_lines(probe, boundary)
    if probe.canary is not None and annotations.get("readOnlyHint") is True:
        details.append("the tool is annotated readOnlyHint: true, yet this call wrote a file")
    return Finding(
        Check.SECURITY.value,
        f"{_WHAT[probe.form]} (CWE-{cwe}) in argument {probe.argument!r}",
        details=tuple(details),
        kind=kind,
    )


def _network(probe: Probe, annotations: dict[str, object], evidence: str) -> Finding | None:
    """A tool that reached the network: a broken annotation when it says it does not
    (openWorldHint: false); otherwise what it is for."""
    if annotations.get("openWorldHint") is not False:
        return None
    return Finding(
        Check.SECURITY.value,
        "the tool is annotated openWorldHint: false, yet the call reached the network",
        details=(
            f"evidence: {evidence} during the call",
            f"the argument: {probe.argument} = {probe.value!r}",
        ),
        kind=FailureKind.BROKEN_ANNOTATION,
    )


def _boundary_lines(probe: Probe, boundary: Boundary | None) -> list[str]:
    """Why a path probe's escape breaks a boundary: the control was refused, or (the control
    itself) the server declared one."""
    if probe.form in (Form.SIBLING, Form.CLIMB, Form.LINK):
        return ["the same run's plain outside path was refused: the boundary is meant"]
    if probe.form is Form.CONTROL and boundary is not None:
        return [f"the boundary: {boundary.words()}"]
    return []


def probe_write(probe: Probe, wrote: Finding) -> Finding:
    """A change the watch (``judges/writes``) saw outside the declared boundary during
    ``probe``'s call, as the probe's own class: the path it named got the write there."""
    if probe.form not in KIND:
        return wrote
    kind = KIND[probe.form]
    cwe, _ = CWE[kind]
    return Finding(
        Check.SECURITY.value,
        f"{_WHAT[probe.form]} (CWE-{cwe}) in argument {probe.argument!r}",
        details=(
            *wrote.details,
            f"the argument: {probe.argument} = {probe.value!r}",
            *_boundary_lines(probe, None),
        ),
        kind=kind,
    )
