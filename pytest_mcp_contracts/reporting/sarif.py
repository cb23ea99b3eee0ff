"""SARIF 2.1.0: the run's failed checks for code scanning (``--mcp-sarif``).

Rendered from the run's folded facts (``reporting/model.Run``), as the run report and the
step summary are: a serial run and ``-n 2`` write the same file. One run, whose tool driver
has one rule per ``judges/failures.FailureKind`` (its words from ``KIND_TEXT``, its level
from the kind's severity), and one result per failed check, or per server that did not
start.

GitHub code scanning shows a result only at a file of the repository: each result is placed
at the nearest real file about it, the check's recorded contract under the snapshot folder
(a drift failure's own file), else the file that configures the run (pytest's ini file, or
pyproject.toml). A result with neither keeps its logical locations only (the server, the
tool), which SARIF allows and code scanning does not display. Paths are relative to the
repository the rootdir is in (``source_root``), as code scanning reads them, and name that
root as ``%SRCROOT%`` for other readers. Each result carries its own fingerprint (its rule
and node id), so two checks of one tool at the same file stay two alerts.

No pytest here: the plugin hands in the facts and the paths.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from pytest_mcp_contracts.contracts.snapshot import SnapshotStore, file_at
from pytest_mcp_contracts.judges.failures import (
    CWE,
    KIND_TEXT,
    FailureKind,
    Severity,
    severity_of,
)
from pytest_mcp_contracts.reporting.model import Run
from pytest_mcp_contracts.reporting.runreport import FailedCheck, failed_checks

SCHEMA_URI: Final = "https://json.schemastore.org/sarif-2.1.0.json"  # as GitHub's docs give it
SARIF_VERSION: Final = "2.1.0"
TOOL_NAME: Final = "pytest-mcp-contracts"
SOURCE_ROOT: Final = "%SRCROOT%"

# Code scanning's levels are error, warning and note; its "problem.severity" says the same
# in its own words.
LEVELS: Final[dict[Severity, str]] = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
}
PROBLEM_SEVERITY: Final = {"error": "error", "warning": "warning", "note": "recommendation"}
RULES: Final = tuple(FailureKind)  # a rule's index is its kind's place here
KINDS: Final = frozenset(kind.value for kind in FailureKind)


def rules() -> list[dict[str, Any]]:
    """One reporting descriptor per failure kind, in the kinds' order (stable across runs,
    as code scanning wants its rules)."""
    descriptors = []
    for kind in RULES:
        text = KIND_TEXT[kind]
        level = LEVELS[severity_of(kind)]
        descriptors.append(
            {
                "id": kind.value,
                "name": "".join(word.capitalize() for word in kind.value.split("_")),
                "shortDescription": {"text": text.title},
                "fullDescription": {"text": text.description},
                "help": {"text": text.help},
                "defaultConfiguration": {"level": level},
                "properties": _rule_properties(kind, level),
            }
        )
    return descriptors


def _rule_properties(kind: FailureKind, level: str) -> dict[str, Any]:
    """A rule's tags and severity; a security kind's also carry its CWE and the score code
    scanning ranks security alerts by (``security-severity``)."""
    properties: dict[str, Any] = {
        "tags": ["mcp", severity_of(kind).value],
        "problem.severity": PROBLEM_SEVERITY[level],
    }
    if kind in CWE:
        cwe, score = CWE[kind]
        properties["tags"] += ["security", f"external/cwe/cwe-{cwe}"]
        properties["security-severity"] = score
    return properties


def source_root(rootdir: Path) -> Path:
    """The repository the rootdir is in (the nearest folder with ``.git``, a folder or a
    worktree's file), else the rootdir: code scanning reads paths from the repository's."""
    for folder in (rootdir, *rootdir.parents):
        if (folder / ".git").exists():
            return folder
    return rootdir


def _kind(failed: FailedCheck) -> FailureKind:
    if failed.check is None:
        return FailureKind.SERVER_UNAVAILABLE  # a server that did not start
    found = failed.check.failure
    # A failure without a verdict is the run's own error (an item that raised something
    # else): "the run could not check".
    return (
        FailureKind(found.kind) if found is not None and found.kind in KINDS else FailureKind.SETUP
    )


def _recorded_file(failed: FailedCheck, snapshot_dir: Path) -> Path | None:
    """The snapshot file of the check's tool, prompt, resource or template (it may not
    exist); None for a server's own check or a failed listing."""
    if failed.subject is None:
        return None
    file = file_at(failed.subject.node_name)
    if file is None:
        return None  # "listing:prompts": a listing that failed has no file
    try:  # the store's own path, with its check that the file sits in the snapshot folder
        return SnapshotStore(snapshot_dir).path_for(failed.server.node_name, file)
    except ValueError:
        return None


def _physical(path: Path, root: Path) -> dict[str, Any] | None:
    """A location code scanning can show: the file relative to ``root``, its first line as
    the region (a result is about the file, not a line of it)."""
    try:
        relative = path.resolve().relative_to(root.resolve())
        with path.open(encoding="utf-8", errors="replace") as handle:
            first = handle.readline().rstrip("\r\n")
    except (OSError, ValueError):  # gone since, or outside the repository
        return None
    return {
        "artifactLocation": {"uri": relative.as_posix(), "uriBaseId": SOURCE_ROOT},
        "region": {
            "startLine": 1,
            "startColumn": 1,
            "endLine": 1,
            "endColumn": len(first) + 1,
        },
    }


def _fingerprint(kind: FailureKind, node_id: str) -> str:
    digest = hashlib.sha256(f"{kind.value}\0{node_id}".encode()).hexdigest()[:16]
    return f"{digest}:1"


class _LogicalLocations:
    """The run's logical locations: each server (a module) and each tool (a function) or
    prompt, resource or template (a member) with a failed check, its server as parent."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self._index: dict[str, int] = {}

    def add(self, name: str, qualified: str, kind: str, parent: int | None = None) -> int:
        if qualified not in self._index:
            entry: dict[str, Any] = {"name": name, "fullyQualifiedName": qualified, "kind": kind}
            if parent is not None:
                entry["parentIndex"] = parent
            self._index[qualified] = len(self.entries)
            self.entries.append(entry)
        return self._index[qualified]

    def of(self, failed: FailedCheck) -> dict[str, Any]:
        server = failed.server
        server_name = server.title or server.command or server.node_name
        qualified = f"mcp:{server.node_name}"
        index = self.add(server_name, qualified, "module")
        if failed.subject is not None:
            subject = failed.subject
            qualified = f"{qualified}::{subject.node_name}"
            kind = "function" if subject.is_tool else "member"
            index = self.add(subject.name, qualified, kind, index)
        return {"index": index, "fullyQualifiedName": qualified}


def _result(
    failed: FailedCheck,
    files: Sequence[Path | None],
    root: Path,
    logical: _LogicalLocations,
) -> dict[str, Any]:
    kind = _kind(failed)
    location: dict[str, Any] = {"logicalLocations": [logical.of(failed)]}
    for candidate in files:
        physical = _physical(candidate, root) if candidate is not None else None
        if physical is not None:
            location = {"physicalLocation": physical, **location}
            break
    problem = failed.message.strip() or KIND_TEXT[kind].title
    properties: dict[str, Any] = {
        "nodeId": failed.node_id,
        "server": failed.server.title or failed.server.node_name,
        "severity": severity_of(kind).value,
    }
    if failed.subject is not None:
        properties["subject"] = failed.subject.name
    if failed.check_name is not None:
        properties["check"] = failed.check_name
    return {
        "ruleId": kind.value,
        "ruleIndex": RULES.index(kind),
        "level": LEVELS[severity_of(kind)],
        "message": {"text": f"{failed.node_id}: {problem}"},
        "locations": [location],
        "partialFingerprints": {"primaryLocationLineHash": _fingerprint(kind, failed.node_id)},
        "properties": properties,
    }


def sarif_log(
    run: Run,
    *,
    rootdir: Path,
    snapshot_dir: Path,
    config_file: Path | None,
    tool_version: str,
) -> dict[str, Any]:
    """The SARIF log of a run: ``config_file`` is pytest's ini file (None: the
    rootdir's pyproject.toml, when there is one)."""
    root = source_root(rootdir)
    config = config_file if config_file is not None else rootdir / "pyproject.toml"
    logical = _LogicalLocations()
    results = [
        _result(failed, (_recorded_file(failed, snapshot_dir), config), root, logical)
        for failed in failed_checks(run)
    ]
    return {
        "$schema": SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL_NAME,
                        "version": tool_version,
                        "rules": rules(),
                    }
                },
                "originalUriBaseIds": {SOURCE_ROOT: {"uri": root.resolve().as_uri() + "/"}},
                "logicalLocations": logical.entries,
                "results": results,
            }
        ],
    }
