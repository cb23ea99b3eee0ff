"""A tool's listing findings as the reports carry them: the ``schema`` check's errors and
warnings (the spec's rules, client profiles, lints), one JSON record each.

The record rides on the schema item's test report (``FINDINGS_KEY``, plain JSON: it crosses
to an xdist controller), is folded per tool by ``reporting/facts``, listed per tool in the
run report, and summed up by ``digest`` for the terminal and the CI step summary; the
``mcp-contracts inspect`` command prints the same records.

A record: ``{"rule", "client", "severity", "kind", "where", "message", "details", "fix"}``;
``rule``, ``client``, ``where`` and ``fix`` are null where the check that found it does not
say (the spec's listing rules name no client). The fold reads it back as a ``FindingRecord``,
which the renderers read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from pytest_mcp_contracts.judges.clients import IMPLIES, RULES
from pytest_mcp_contracts.options import DEFAULT_CLIENTS
from pytest_mcp_contracts.text import shorten, shown
from pytest_mcp_contracts.vocabulary import CLIENTS_NONE, LEVEL_ORDER, ClientProfile, Level

if TYPE_CHECKING:
    from pytest_mcp_contracts.judges.failures import Finding

FINDINGS_KEY: Final = "mcp_contracts_findings"  # a schema report's findings, as records
DIGEST_RULES: Final = 12  # rules listed by the digest; the others are counted
DIGEST_TOOLS: Final = 4  # tools named per rule; the others are counted

Record = dict[str, Any]


@dataclass(frozen=True)
class FindingRecord:
    """A finding as the reports carry it: plain strings, no ``Finding`` (its kind a
    ``StrEnum`` execnet cannot send)."""

    rule: str | None
    client: str | None
    level: Level  # written as "severity": the run report's and inspect's key, read by CI
    kind: str
    where: str | None
    message: str
    details: tuple[str, ...] = ()
    fix: str | None = None

    @classmethod
    def of(cls, finding: Finding) -> FindingRecord:
        return cls(
            rule=finding.rule,
            client=finding.client,
            level=finding.level,
            kind=str(finding.kind),
            where=finding.where,
            message=finding.message,
            details=tuple(str(line) for line in finding.details),
            fix=finding.fix,
        )

    def to_json(self) -> Record:
        """The record, its keys in the run report schema's order."""
        return {
            "rule": self.rule,
            "client": self.client,
            "severity": str(self.level),
            "kind": self.kind,
            "where": self.where,
            "message": self.message,
            "details": list(self.details),
            "fix": self.fix,
        }

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> FindingRecord:
        def text(key: str) -> str | None:
            value = record.get(key)
            return None if value is None else str(value)

        return cls(
            rule=text("rule"),
            client=text("client"),
            level=Level(record["severity"]),
            kind=str(record.get("kind") or ""),
            where=text("where"),
            message=str(record.get("message") or ""),
            details=tuple(str(line) for line in record.get("details") or ()),
            fix=text("fix"),
        )

    @property
    def rule_name(self) -> str:
        """The rule it broke; its kind for a check that names none (the spec's listing
        rules: ``invalid_listing``)."""
        return self.rule or self.kind or "unknown"


class HasFindings(Protocol):
    """A tool, a prompt, resource or template, or a failed listing, with its findings."""

    @property
    def label(self) -> str: ...  # "quote", "prompt greet", "listing prompts/list"

    @property
    def is_tool(self) -> bool: ...

    @property
    def findings(self) -> Sequence[FindingRecord]: ...


def finding_record(finding: Finding) -> Record:
    return FindingRecord.of(finding).to_json()


def warnings_to_raise(
    findings: Iterable[Finding], server: str, warned: set[tuple[str, str]], others: str = "tools"
) -> list[str]:
    """The pytest warnings a tool's warning findings raise. A rule (a lint, a client
    profile) warns once per server, ``warned`` remembering which did: on 30 tools it would
    flood the warnings summary, and the summaries' digest names every tool. A finding
    without a rule (the spec's listing rules: a tool name) warns on its own."""
    messages = []
    for finding in findings:
        key = (server, finding.rule or finding.message)
        if finding.level is not Level.WARNING or key in warned:
            continue
        warned.add(key)
        if finding.rule:
            messages.append(
                f"{finding.rule}: {finding.message} (the server's other {others} that break "
                "this rule are listed in the MCP contracts summary)"
            )
        else:
            messages.append(finding.message)
    return messages


@dataclass(frozen=True)
class FindingCounts:
    """A server's findings counted by level, by client and by rule."""

    errors: int
    warnings: int
    by_client: dict[str, int]
    by_rule: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "errors": self.errors,
            "warnings": self.warnings,
            "by_client": dict(self.by_client),
            "by_rule": dict(self.by_rule),
        }


def counts(records: Iterable[FindingRecord]) -> FindingCounts:
    errors = warnings = 0
    by_client: dict[str, int] = {}
    by_rule: dict[str, int] = {}
    for record in records:
        is_error = record.level is Level.ERROR
        errors += is_error
        warnings += not is_error
        if record.client:
            by_client[record.client] = by_client.get(record.client, 0) + 1
        by_rule[record.rule_name] = by_rule.get(record.rule_name, 0) + 1
    return FindingCounts(
        errors, warnings, dict(sorted(by_client.items())), dict(sorted(by_rule.items()))
    )


def render(found: FindingRecord | Mapping[str, Any]) -> list[str]:
    """One finding in full: what, where, whose rule, and the fix."""
    record = found if isinstance(found, FindingRecord) else FindingRecord.from_json(found)
    who = f" ({record.client})" if record.client else ""
    lines = [f"{record.level} {record.rule_name}{who}: {record.message}"]
    if record.where:  # in Finding.all_details's order: where, details, fix
        lines.append(f"  at {record.where}")
    lines += [f"  {line}" for line in record.details]
    if record.fix:
        lines.append(f"  fix: {record.fix}")
    return lines


def digest(holders: Sequence[HasFindings]) -> list[str]:
    """One line per rule broken (errors first, then the rules most tools break), naming a few
    tools and quoting the first message: a server whose 30 tools break one rule reads as one
    line, not 30 warnings."""
    groups: dict[tuple[str, str, str], list[tuple[str, FindingRecord]]] = {}
    named = set()  # the names that are no tool's
    for holder in holders:
        # A prompt, resource or template (or a failed listing) says what it is.
        name = holder.label
        if not holder.is_tool:
            named.add(name)
        for record in holder.findings:
            key = (str(record.level), record.rule_name, record.client or "")
            groups.setdefault(key, []).append((name, record))
    ordered = sorted(
        groups.items(),
        key=lambda item: (
            LEVEL_ORDER.index(item[0][0]) if item[0][0] in LEVEL_ORDER else 2,
            -len(item[1]),
            item[0][1],
            item[0][2],
        ),
    )
    lines = []
    for (level, rule, client), found in ordered[:DIGEST_RULES]:
        names = sorted({name for name, _ in found})
        listed = ", ".join(shown(name, 40) for name in names[:DIGEST_TOOLS])
        more = f" and {len(names) - DIGEST_TOOLS} more" if len(names) > DIGEST_TOOLS else ""
        who = f" ({client})" if client else ""
        one, many = ("entry", "entries") if named.issuperset(names) else ("tool", "tools")
        tools_said = f"{len(names)} {one if len(names) == 1 else many}"
        first = found[0][1]
        fix = f"; fix: {shorten(first.fix, 80)}" if first.fix else ""
        lines.append(
            f"{level} {rule}{who}: {tools_said} ({listed}{more}): "
            f"{shorten(first.message, 160)}{fix}"
        )
    if len(ordered) > DIGEST_RULES:
        rest = sum(len(found) for _, found in ordered[DIGEST_RULES:])
        lines.append(f"… and {len(ordered) - DIGEST_RULES} more rules ({rest} findings)")
    return lines


_CLIENT_OF_RULE: Final = {rule.id: rule.client_name for rule in RULES}


def refusals_line(holders: Sequence[HasFindings], clients: Sequence[str]) -> str | None:
    """One line on the client rules that failed items (None if none did): which, whose, and
    the ``--mcp-clients`` value that leaves them out. A client rule fails a run because a
    client someone ships to refuses the tool today; the reader who does not ship to it is
    told how to stop hearing about it, in the place they read the failure."""
    tools: dict[str, set[str]] = {}
    profiles = set()
    for holder in holders:
        for record in holder.findings:
            if record.level is Level.ERROR and record.rule in _CLIENT_OF_RULE and record.client:
                tools.setdefault(record.rule, set()).add(holder.label)
                profiles.add(record.client)
    if not tools:
        return None
    # A profile that implies a failing one (openai-strict: openai) would bring its rules back.
    kept = [
        name
        for name in clients
        if name not in profiles and IMPLIES.get(ClientProfile(name)) not in profiles
    ]
    rules = ", ".join(
        f"{rule} ({len(names)} {'tool' if len(names) == 1 else 'tools'})"
        for rule, names in sorted(tools.items())
    )
    whose = list(dict.fromkeys(_CLIENT_OF_RULE[rule] for rule in sorted(tools)))
    refuse = "refuses" if len(whose) == 1 else "refuse"
    chosen = "on by default" if tuple(clients) == DEFAULT_CLIENTS else "chosen"
    return (
        f"client rules failing ({chosen}): {rules}: {' and '.join(whose)} {refuse} these "
        f"tools; to leave them out: --mcp-clients={','.join(kept) or CLIENTS_NONE} "
        "(docs/clients.md)"
    )
