"""A tool's listing findings as the reports carry them: the ``schema`` check's errors and
warnings (the spec's rules, client profiles, lints), one JSON record each.

The record rides on the schema item's test report (``FINDINGS_KEY``, plain JSON: it crosses
to an xdist controller), is folded per tool by ``reporting/facts``, listed per tool in the
run report, and summed up by ``digest`` for the terminal and the CI step summary; the
``mcp-contracts inspect`` command prints the same records.

A record: ``{"rule", "client", "severity", "kind", "where", "message", "details", "fix"}``,
its ``severity`` the finding's ``level``; ``rule``, ``client``, ``where`` and ``fix`` are null
where the check that found it does not say (the spec's listing rules name no client).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.text import shorten, shown
from pytest_mcp_contracts.vocabulary import LEVEL_ORDER, Level

if TYPE_CHECKING:
    from pytest_mcp_contracts.checks.failures import Finding

FINDINGS_KEY: Final = "mcp_contracts_findings"  # a schema report's findings, as records
DIGEST_RULES: Final = 12  # rules listed by the digest; the others are counted
DIGEST_TOOLS: Final = 4  # tools named per rule; the others are counted
RECORD_KEYS: Final = ("rule", "client", "severity", "kind", "where", "message", "details", "fix")

Record = dict[str, Any]


def finding_record(finding: Finding) -> Record:
    return {
        "rule": finding.rule,
        "client": finding.client,
        # The record's key keeps its word: the run report and `inspect --json` are read by CI.
        "severity": str(finding.level),
        "kind": str(finding.kind),
        "where": finding.where,
        "message": finding.message,
        "details": [str(line) for line in finding.details],
        "fix": finding.fix,
    }


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


def rule_of(record: Mapping[str, Any]) -> str:
    """The rule a finding broke; its kind for a check that names none (the spec's listing
    rules: ``invalid_listing``)."""
    return str(record.get("rule") or record.get("kind") or "unknown")


def counts(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A server's findings counted by level, by client and by rule."""
    found: dict[str, Any] = {"errors": 0, "warnings": 0, "by_client": {}, "by_rule": {}}
    for record in records:
        found["errors" if record["severity"] == Level.ERROR else "warnings"] += 1
        if record.get("client"):
            client = str(record["client"])
            found["by_client"][client] = found["by_client"].get(client, 0) + 1
        rule = rule_of(record)
        found["by_rule"][rule] = found["by_rule"].get(rule, 0) + 1
    found["by_client"] = dict(sorted(found["by_client"].items()))
    found["by_rule"] = dict(sorted(found["by_rule"].items()))
    return found


def render(record: Mapping[str, Any]) -> list[str]:
    """One finding in full: what, where, whose rule, and the fix."""
    who = f" ({record['client']})" if record.get("client") else ""
    head = f"{record['severity']} {rule_of(record)}{who}: {record['message']}"
    lines = [head]
    if record.get("where"):  # in Finding.all_details's order: where, details, fix
        lines.append(f"  at {record['where']}")
    lines += [f"  {line}" for line in record.get("details") or []]
    if record.get("fix"):
        lines.append(f"  fix: {record['fix']}")
    return lines


def digest(tools: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per rule broken (errors first, then the rules most tools break), naming a few
    tools and quoting the first message: a server whose 30 tools break one rule reads as one
    line, not 30 warnings."""
    groups: dict[tuple[str, str, str], list[tuple[str, Mapping[str, Any]]]] = {}
    named = set()  # the names that are no tool's
    for tool in tools:
        # A prompt, resource or template (or a failed listing) says what it is.
        name = str(tool["name"])
        if tool.get("kind"):
            name = f"{tool['kind']} {name}"
            named.add(name)
        for record in tool.get("findings") or []:
            key = (str(record["severity"]), rule_of(record), str(record.get("client") or ""))
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
        fix = f"; fix: {shorten(str(first['fix']), 80)}" if first.get("fix") else ""
        lines.append(
            f"{level} {rule}{who}: {tools_said} ({listed}{more}): "
            f"{shorten(str(first['message']), 160)}{fix}"
        )
    if len(ordered) > DIGEST_RULES:
        rest = sum(len(found) for _, found in ordered[DIGEST_RULES:])
        lines.append(f"… and {len(ordered) - DIGEST_RULES} more rules ({rest} findings)")
    return lines
