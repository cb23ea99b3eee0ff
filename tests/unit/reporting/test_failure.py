"""What failures and summaries print: names a server chose, and commands to run again."""

from __future__ import annotations

from pytest_mcp_contracts.reporting.failure import rerun_command
from pytest_mcp_contracts.reporting.model import EntryResult, Run, ServerRun
from pytest_mcp_contracts.reporting.summary import summary_lines
from pytest_mcp_contracts.reporting.worker import OutputFacts
from pytest_mcp_contracts.runs.stats import ToolStats
from pytest_mcp_contracts.text import short_json, shown


def test_control_characters_in_names_are_escaped() -> None:
    assert shown("tab\there") == "tab\\there"
    assert shown("esc\x1b[2Jcleared") == "esc\\x1b[2Jcleared"
    assert shown("nul\x00") == "nul\\x00"
    assert shown("get_order") == "get_order"


def test_long_names_are_cut_and_say_how_long_they_were() -> None:
    text = shown("n" * 10_000)
    assert len(text) < 120
    assert text.endswith("… (10000 characters)")


def test_header_values_never_reach_the_suggested_command() -> None:
    command = rerun_command(
        [
            "--mcp-url=http://x/mcp",
            "--mcp-header=Authorization: Bearer abc",
            "--mcp-header",
            "X-Key: s3cret",
            "-k",
            "get item",
        ]
    )
    assert "abc" not in command and "s3cret" not in command
    assert command == (
        "pytest --mcp-url=http://x/mcp '--mcp-header=Authorization: <redacted>' "
        "--mcp-header 'X-Key: <redacted>' -k 'get item'"
    )


def test_the_suggested_command_leaves_out_the_runs_own_reports_workers_and_seed() -> None:
    command = rerun_command(
        [
            "--mcp-server=python -m shop",
            "--junitxml=out/junit.xml",
            "--junit-xml",
            "junit2.xml",
            "--hypothesis-seed",
            "1234",
            "--mcp-report=report.json",
            "-n",
            "4",
            "-nauto",
            "--dist=loadgroup",
            "-k",
            "get_order",
            "--no-header",
        ]
    )
    assert command == "pytest '--mcp-server=python -m shop' -k get_order --no-header"


def test_the_suggested_command_leaves_out_the_sarif_file_and_the_html_report() -> None:
    """Both are CI's uploads: a local rerun must not overwrite them."""
    for args in (
        ["--mcp-sarif=out/mcp.sarif"],
        ["--mcp-sarif", "out/mcp.sarif"],
        ["--mcp-html=out/mcp.html"],
        ["--mcp-html", "out/mcp.html"],
    ):
        assert rerun_command(["--mcp-server=python -m shop", *args, "-k", "get_order"]) == (
            "pytest '--mcp-server=python -m shop' -k get_order"
        )


def _tool(name: str, output: OutputFacts | None) -> EntryResult:
    return EntryResult("tool", name, name, {}, ToolStats(calls=9 if output else 0), output=output)


def test_the_summary_names_types_that_vary() -> None:
    """One renderer for a serial run and an xdist controller: it prints the folded facts."""
    varying = [("$.total", "a | b")]
    output = OutputFacts("inferred", "b", varying, {}, 0, breaking=[], additive=[])
    server = ServerRun(
        "python -m shop",
        "stdio",
        "shop",
        True,
        name="shop",
        protocol="2026-07-28",
        tools=[_tool("quote", output), _tool("ping", None)],
    )
    lines = summary_lines(Run([server]), "ci", "pytest", verbose=False)
    assert lines == [
        "shop (protocol 2026-07-28): 2 tools, 9 calls, 0 returned isError",
        "  contracts: 0 declared, 0 validated, 1 inferred, 1 unknown",
        "  outputSchema coverage 0% (0/2), contract coverage 0% (0/2)",
        "  types that vary from call to call (probably bugs; not validated, not exported):",
        "    quote $.total: a | b",
    ]


def test_an_input_with_a_64_kib_string_is_quoted_cut_with_its_length() -> None:
    arguments = {"n": 1, "tags": ["x", "b" * 300], "text": "a" * 65536}
    text = short_json(arguments)
    assert text == (
        '{"n": 1, "tags": ["x", "'
        + "b" * 199
        + '… (300 characters)"], "text": "'
        + "a" * 199
        + '… (65536 characters)"}'
    )
    assert short_json({"text": "a" * 200}) == '{"text": "' + "a" * 200 + '"}'  # short: as is


def test_the_requests_of_hand_written_tests_get_their_own_line() -> None:
    """Counted apart from the checks' calls, and said only when a test made any."""
    from pytest_mcp_contracts.reporting.summary import own_test_lines

    assert own_test_lines(0) == []
    assert own_test_lines(3) == [
        "  and 3 request(s) from hand-written tests (the mcp_server fixture), not in the "
        "numbers above: their verdicts are those tests' outcomes"
    ]
