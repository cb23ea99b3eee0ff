"""judges/stdout: how stdout noise is quoted and judged."""

from __future__ import annotations

from pytest_mcp_contracts.judges.failures import FailureKind
from pytest_mcp_contracts.judges.stdout import (
    FIX,
    LINE_CHARS,
    WHAT_CLIENTS_DO,
    check_startup_stdout,
    noise_finding,
    quoted_lines,
)


def test_a_few_lines_are_quoted_each_shortened_and_the_rest_counted() -> None:
    long = "x" * 500
    quoted = quoted_lines(7, ["Starting v1", long, "", "fourth", "fifth"])
    assert quoted[0] == "'Starting v1'"
    assert len(quoted[1]) == LINE_CHARS + 2 and quoted[1].endswith("…'")
    assert quoted[2] == "'' (a blank line)"
    assert quoted[3] == "... and 4 more line(s)"
    assert len(quoted) == 4


def test_all_lines_are_quoted_when_they_are_few() -> None:
    assert quoted_lines(2, ["a", "   "]) == ["'a'", "'   ' (a blank line)"]


def test_the_finding_says_what_clients_do_and_the_fix_without_quoting_in_its_message() -> None:
    finding = noise_finding("contract", 2, ["12:00:01 called", "12:00:01 done"], "while it ran")
    assert finding.kind is FailureKind.STDOUT_NOISE
    assert finding.check == "contract"
    # A replay prints new timestamps: only the count may differ, and numbers are masked.
    assert "12:00" not in finding.message
    assert finding.problem == noise_finding("contract", 3, ["x"], "while it ran").problem
    assert finding.details == ("'12:00:01 called'", "'12:00:01 done'", WHAT_CLIENTS_DO, FIX)
    assert "quiet: true" in FIX and "file=sys.stderr" in FIX and "console.error" in FIX
    assert "not valid JSON" in WHAT_CLIENTS_DO


def test_start_up_noise_fails_and_a_clean_start_does_not() -> None:
    assert check_startup_stdout("stdout", (0, [])) is None
    found = check_startup_stdout("stdout", (1, ["[dotenv@17.2.3] injecting env (0)"]))
    assert found is not None and found.kind is FailureKind.STDOUT_NOISE
    assert found.message == (
        "the server wrote 1 line(s) on stdout while it started (before its tool list) that "
        "are not JSON-RPC messages"
    )
    assert found.details[0] == "'[dotenv@17.2.3] injecting env (0)'"
