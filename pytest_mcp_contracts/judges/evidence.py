"""The verdict of a security probe: evidence the run planted and then found, never words.

A probe (``inputs/probes``) names a file in a folder the run made for itself and nobody else
writes to. That file appearing is the one thing that counts: it cannot come from a refusal
that quotes the probe back (every fixed release of the published bugs quotes it), nor from
the server's own files. Its absence proves nothing either way (the program behind the
argument may not write, the shell may not reach the folder): a miss, never an alarm.
"""

from __future__ import annotations

import os
from typing import Final

from pytest_mcp_contracts.inputs.probes import Form, Probe
from pytest_mcp_contracts.judges.failures import CWE, FailureKind, Finding
from pytest_mcp_contracts.vocabulary import Check

KIND: Final = {Form.FLAG: FailureKind.ARGUMENT_INJECTION, Form.SHELL: FailureKind.COMMAND_INJECTION}
_WHAT: Final = {
    Form.FLAG: "argument injection: the value was read as a program's option",
    Form.SHELL: "OS command injection: a shell ran the command in the value",
}


def probe_evidence(
    probe: Probe, annotations: dict[str, object], *, late: bool = False
) -> Finding | None:
    """The finding ``probe`` proved (its canary appeared), or None."""
    if not os.path.lexists(probe.canary):
        return None
    kind = KIND[probe.form]
    cwe, _ = CWE[kind]
    when = "after the run's calls had answered" if late else "during the call"
    details = [
        f"evidence: {probe.canary} appeared {when}; the run made its folder for its probes "
        "alone, and only this input named that file",
        f"the argument: {probe.argument} = {probe.value!r}",
    ]
    if annotations.get("readOnlyHint") is True:
        details.append("the tool is annotated readOnlyHint: true, yet this call wrote a file")
    return Finding(
        Check.SECURITY.value,
        f"{_WHAT[probe.form]} (CWE-{cwe}) in argument {probe.argument!r}",
        details=tuple(details),
        kind=kind,
    )
