"""What ``mcp-contracts inspect`` shows of a tool, a prompt, a resource or a template: its
listing entry, the schema check's findings on it, and where its output (or content)
contract comes from: declared by the server, inferred and recorded by a run, corrupted,
or nowhere yet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contracts.contracts.drift.tool_listing import HINT_DEFAULTS
from pytest_mcp_contracts.schema.limits import limits
from pytest_mcp_contracts.transport.discover import (
    Entry,
)
from pytest_mcp_contracts.vocabulary import EntryKind, Level, Quality

HINTS: Final = (
    ("readOnlyHint", True, "read-only"),
    ("destructiveHint", True, "destructive"),
    ("idempotentHint", True, "idempotent"),
    ("openWorldHint", True, "open-world"),
)


@dataclass(frozen=True)
class OutputContract:
    """Where a tool's output schema comes from, and the schema itself if there is one."""

    source: str  # "declared", "inferred", "corrupted" or "none"
    quality: str
    basis: str  # why the inferred contract has its quality ("" when the file does not say)
    schema: dict[str, Any] | None
    problem: str = ""  # why a corrupted recorded contract cannot be used
    # Objects of an inferred contract whose keys depend on the input (a query tool's rows):
    # the contract holds the keys every result had there, and allows any other.
    open_paths: tuple[str, ...] = ()

    def label(self) -> str:
        if self.source == "declared":
            return "declared"
        if self.source == "inferred":
            return self.quality
        return self.source


@dataclass(frozen=True)
class EntryView:
    """A tool, prompt, resource or template as inspect shows it."""

    entry: Entry
    contract: OutputContract  # a tool's output contract, the others' content contract
    # The schema check's findings on this listing entry (reporting/findings records); None
    # when no listing entry is known (a tool's snapshot file that is corrupted).
    findings: tuple[dict[str, Any], ...] | None = None
    judged_as: str = ""  # the protocol revision the findings assume, where none is known
    refusal: str | None = None  # why pytest does not call it (None: it does)

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def raw(self) -> dict[str, Any]:
        return self.entry.raw

    @property
    def called(self) -> str:
        return "no" if self.refusal else "yes"

    @property
    def limits(self) -> list[dict[str, Any]]:
        """What the inputSchema allows each field (schema/limits.limits)."""
        schema = self.raw.get("inputSchema")
        return limits(schema) if isinstance(schema, dict) else []

    @property
    def findings_label(self) -> str:
        if self.findings is None:
            return "unknown"
        errors = sum(1 for f in self.findings if f["severity"] == Level.ERROR)
        warnings = len(self.findings) - errors
        parts = [
            f"{errors} error(s)" if errors else "",
            f"{warnings} warning(s)" if warnings else "",
        ]
        return ", ".join(p for p in parts if p) or "-"

    @property
    def safety(self) -> str:
        annotations = self.raw.get("annotations")
        hints = annotations if isinstance(annotations, dict) else {}
        words = [
            word
            for key, wanted, word in HINTS
            if hints.get(key, HINT_DEFAULTS[key]) is wanted
            and not (key == "destructiveHint" and hints.get("readOnlyHint") is True)
        ]
        if "annotations" not in self.raw:
            words.append("(no annotations: defaults assumed)")
        return ", ".join(words)

    @property
    def details(self) -> str:
        """What a client needs to use a prompt, resource or template: a prompt's arguments,
        a resource's mimeType, a template's variables."""
        raw = self.entry.raw
        if self.entry.kind == EntryKind.PROMPT:
            arguments = raw.get("arguments")
            names = [
                f"{a['name']}{' (required)' if a.get('required') is True else ''}"
                for a in (arguments if isinstance(arguments, list) else [])
                if isinstance(a, dict) and isinstance(a.get("name"), str)
            ]
            return f"arguments: {', '.join(names) or '-'}"
        mime = f"  {raw['mimeType']}" if isinstance(raw.get("mimeType"), str) else ""
        if self.entry.kind == EntryKind.TEMPLATE:
            from pytest_mcp_contracts.schema.synthetic import template_variables

            variables = ", ".join(template_variables(self.entry.key)) or "-"
            return f"variables: {variables}{mime}"
        return mime.strip() or "-"


def recorded_contract(
    entry: Entry, recorded: dict[str, Any] | None, problem: str = ""
) -> OutputContract:
    """Where an entry's results' contract comes from: a tool's declared outputSchema, else
    the recorded section (a tool's ``output``, the others' ``content``: RESULT_SECTIONS),
    corrupted or missing."""
    from pytest_mcp_contracts.contracts.record import RESULT_SECTIONS

    declared = entry.output_schema
    if isinstance(declared, dict):
        return OutputContract("declared", Quality.DECLARED, "", declared)
    if problem:
        return OutputContract("corrupted", Quality.UNKNOWN, "", None, problem)
    section = (recorded or {}).get(RESULT_SECTIONS[entry.kind])
    if isinstance(section, dict) and isinstance(section.get("schema"), dict):
        return OutputContract(
            "inferred",
            str(section.get("quality", "inferred")),
            str(section.get("basis", "")),
            section["schema"],
            open_paths=_open_paths(section),
        )
    return OutputContract("none", Quality.UNKNOWN, "", None)


def _open_paths(section: dict[str, Any]) -> tuple[str, ...]:
    """Where a recorded inferred contract is open (``contracts/infer``); none when the
    section cannot be read as one (the file is then shown as it is)."""
    from pytest_mcp_contracts.contracts.observe import RecordedContract, RecordError

    try:
        shape = RecordedContract.from_data(section).shape
    except RecordError:
        return ()
    return tuple(shape.open_paths()) if shape is not None else ()
