"""reporting/summary.py: the terminal summary's block of where the time went."""

from __future__ import annotations

from collections import Counter

from pytest_mcp_contracts.reporting.model import EntryResult
from pytest_mcp_contracts.reporting.summary import time_lines
from pytest_mcp_contracts.runs.stats import ToolStats


def _entry(name: str, **stats: object) -> EntryResult:
    return EntryResult("tool", name, name, {}, stats=ToolStats(**stats))  # type: ignore[arg-type]


def test_the_top_phases_and_tools_are_named_not_every_figure() -> None:
    entries = [
        _entry("slow", phase_seconds=Counter({"random": 6.0, "security": 1.0})),
        _entry("mid", phase_seconds=Counter({"coverage": 2.0, "replay": 0.5})),
        _entry("quick", phase_seconds=Counter({"rejects_invalid": 0.25})),
        _entry("idle", phase_seconds=Counter({"contract": 0.05})),
    ]
    (line,) = time_lines(entries)
    assert line == (
        "  where the time went: 9.8 s in the checks; by phase: random 6.0 s (61%), "
        "coverage 2.0 s (20%), security 1.0 s (10%); slowest: slow 7.0 s (most in random), "
        "mid 2.5 s (most in coverage), quick 0.2 s (most in rejects_invalid) "
        "(every figure: the run report's phase_seconds)"
    )


def test_what_the_run_time_cut_is_named_and_nothing_when_no_time_was_counted() -> None:
    entries = [
        _entry("a", run_time_cut=2),
        _entry("b", run_time_skipped=1, run_time_cut=1),
        _entry("c"),
    ]
    assert time_lines(entries) == [
        "  --mcp-run-time cut: 2 tool(s) given less than their own budget: a, b; "
        "1 tool(s) with checks not run: b"
    ]
    assert time_lines([_entry("c")]) == []
