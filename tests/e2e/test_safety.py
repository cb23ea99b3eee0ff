"""Which calls the plugin makes: the call policy, per-tool settings in pyproject.toml, and
inputs that run first (configured examples, the schema's own examples and defaults)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from ..conftest import NO_SEQUENCES, RunMcp, RunPytest, server_command

Calls = Callable[[], list[tuple[str, dict[str, object]]]]


@pytest.fixture
def calls(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Calls:
    """The (tool, arguments) the fixture server was called with, in order."""
    log = pytester.path / "calls.log"
    monkeypatch.setenv("MCP_FIXTURE_CALL_LOG", str(log))

    def read() -> list[tuple[str, dict[str, object]]]:
        if not log.exists():
            return []
        lines = [line.split(" ", 1) for line in log.read_text().splitlines()]
        return [(name, json.loads(args)) for name, args in lines]

    return read


def called(calls: Calls) -> set[str]:
    return {name for name, _ in calls()}


def test_default_run_never_calls_a_destructive_tool(
    run_mcp_inprocess: RunMcp, calls: Calls
) -> None:
    result = run_mcp_inprocess("annotated.py", args=(NO_SEQUENCES, "--mcp-max-examples=5", "-rs"))
    result.assert_outcomes(passed=18, skipped=2)
    assert called(calls) == {"read", "bare", "touch", "hinted"}
    result.stdout.fnmatch_lines(
        [
            "SKIPPED * mcp:annotated::wipe::contract: not called: the tool declares "
            "destructiveHint: true*--mcp-call=all*"
        ]
    )


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("readonly", {"read", "hinted"}),
        ("nondestructive", {"read", "bare", "touch", "hinted"}),
        ("all", {"wipe", "read", "bare", "touch", "hinted"}),
    ],
)
def test_call_policy(
    run_mcp_inprocess: RunMcp, calls: Calls, policy: str, expected: set[str]
) -> None:
    result = run_mcp_inprocess(
        "annotated.py", args=(NO_SEQUENCES, f"--mcp-call={policy}", "--mcp-max-examples=5")
    )
    assert result.ret == 0
    assert called(calls) == expected


def test_bad_policy_is_a_usage_error(run_mcp_inprocess: RunMcp) -> None:
    result = run_mcp_inprocess(
        "annotated.py",
        args=(
            NO_SEQUENCES,
            "--mcp-call=some",
        ),
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--mcp-call (ini mcp_call) must be one of readonly, nondestructive, all, got 'some'*"]
    )


def test_schema_examples_and_defaults_are_sent_first(
    run_mcp_inprocess: RunMcp, calls: Calls
) -> None:
    # One call at a time: "hinted" is read-only, so by default its explicit inputs go out
    # with several in flight, and the server may log them in any order it handles them.
    run_mcp_inprocess(
        "annotated.py",
        args=(NO_SEQUENCES, "-k", "hinted", "--mcp-max-examples=5", "--mcp-in-flight=1"),
    )
    hinted = [args for name, args in calls() if name == "hinted"]
    assert hinted[:2] == [{"n": 7}, {"n": 3}]


def test_per_tool_settings_in_pyproject(
    pytester: pytest.Pytester, run_mcp_inprocess: RunMcp, calls: Calls
) -> None:
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.read]
        skip = true

        [tool.mcp-contracts.tools."annotated/wipe"]
        call = "all"

        [tool.mcp-contracts.tools.bare]
        max_examples = 3

        [[tool.mcp-contracts.tools.touch.examples]]
        n = 42
        """
    )
    result = run_mcp_inprocess("annotated.py", args=(NO_SEQUENCES, "--mcp-max-examples=5", "-rs"))
    assert result.ret == 0
    log = calls()
    assert "read" not in {name for name, _ in log}
    assert "wipe" in {name for name, _ in log}
    assert sum(1 for name, _ in log if name == "bare") == 3
    assert next(args for name, args in log if name == "touch") == {"n": 42}
    result.stdout.fnmatch_lines(
        ["SKIPPED * mcp:annotated::read::contract: skipped by *skip = true"]
    )


def test_an_invalid_configured_example_is_a_clear_failure(
    pytester: pytest.Pytester, run_mcp_inprocess: RunMcp, calls: Calls
) -> None:
    pytester.makepyprojecttoml(
        """
        [[tool.mcp-contracts.tools.touch.examples]]
        n = "not a number"
        """
    )
    result = run_mcp_inprocess("annotated.py", args=(NO_SEQUENCES, "-k", "touch and contract"))
    result.assert_outcomes(failed=1, deselected=19)
    result.stdout.fnmatch_lines(["configured example 1 is not valid for the inputSchema"])


def test_server_environment_from_pyproject(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("API_KEY", raising=False)
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts]
        env = {API_KEY = "from-pyproject"}
        """
    )
    result = inprocess_pytest(
        NO_SEQUENCES, f"--mcp-server={server_command('needs_env.py')}", "-p", "no:randomly"
    )
    result.assert_outcomes(passed=3, skipped=1)


def test_unknown_per_tool_key_is_a_usage_error(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest
) -> None:
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.read]
        skipp = true
        """
    )
    result = inprocess_pytest(NO_SEQUENCES, f"--mcp-server={server_command('annotated.py')}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*tool.mcp-contracts.tools.*read*: unknown key(s) *skipp*; allowed: skip, call, *"]
    )


@pytest.mark.parametrize(
    ("table", "suggestion"),
    [("reed", '"read"?'), ('"annotated/toch"', '"annotated/touch" or *')],
)
def test_a_tool_table_naming_no_listed_tool_is_a_usage_error_and_calls_nothing(
    pytester: pytest.Pytester, run_mcp_inprocess: RunMcp, calls: Calls, table: str, suggestion: str
) -> None:
    pytester.makepyprojecttoml(
        f"""
        [tool.mcp-contracts.tools.{table}]
        skip = true
        """
    )
    result = run_mcp_inprocess(
        "annotated.py",
        args=(
            NO_SEQUENCES,
            "--mcp-max-examples=5",
        ),
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"*[[]tool.mcp-contracts.tools.*] names no tool; did you mean {suggestion}",
            "no configured server lists such a tool*fix or remove the table (pyproject.toml)",
        ]
    )
    assert calls() == []
    assert "MCP contracts" not in result.stdout.str()


def test_under_xdist_a_tool_table_naming_no_tool_fails_the_run_and_calls_nothing(
    pytester: pytest.Pytester, run_mcp: RunMcp, calls: Calls
) -> None:
    pytester.makepyprojecttoml("[tool.mcp-contracts.tools.reed]\nskip = true\n")
    result = run_mcp("annotated.py", args=(NO_SEQUENCES, "-n", "2", "--mcp-max-examples=5"))
    assert result.ret != 0
    result.stdout.fnmatch_lines(['*tools."reed"] names no tool; did you mean "read"?'])
    assert calls() == []


def test_a_tool_table_is_checked_against_every_configured_server(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest, calls: Calls
) -> None:
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools."lookup/get_order"]
        max_examples = 2

        [tool.mcp-contracts.tools.read]
        max_examples = 2
        """
    )
    result = inprocess_pytest(
        NO_SEQUENCES,
        f"--mcp-server={server_command('annotated.py')}",
        f"--mcp-server={server_command('lookup.py')}",
        "--mcp-max-examples=2",
        "--collect-only",
    )
    assert result.ret == 0


def test_an_explicit_hypothesis_seed_wins_under_ci(
    pytester: pytest.Pytester,
    run_mcp_inprocess: RunMcp,
    calls: Calls,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CI loads hypothesis's derandomized profile, which would ignore --hypothesis-seed."""
    monkeypatch.setenv("CI", "1")
    log = pytester.path / "calls.log"

    def inputs(*seed: str) -> list[tuple[str, dict[str, object]]]:
        log.unlink(missing_ok=True)
        run_mcp_inprocess(
            "annotated.py",
            args=(NO_SEQUENCES, "-k", "bare and contract", "--mcp-max-examples=10", *seed),
        )
        return calls()

    one, two = inputs("--hypothesis-seed=1"), inputs("--hypothesis-seed=2")
    assert one and two and one != two
    assert inputs("--hypothesis-seed=1") == one
    assert inputs() == inputs()  # without a seed, CI runs stay derandomized


STRATEGY_CONFTEST = """
from hypothesis import strategies as st

def pytest_mcp_tool_strategy(server, tool):
    assert server == "lookup"
    if tool == "get_order":
        return {"order_id": %s}
    if tool == "list_files":
        return st.just({"path": "/srv/data"})
    return None
"""


def test_conftest_strategies_for_a_field_and_for_a_whole_input(
    pytester: pytest.Pytester, run_mcp_inprocess: RunMcp, calls: Calls
) -> None:
    pytester.makeconftest(STRATEGY_CONFTEST % 'st.sampled_from(["A-1001", "A-1002"])')
    result = run_mcp_inprocess(
        "lookup.py", args=(NO_SEQUENCES, "--mcp-max-examples=20", "-k", "contract")
    )
    assert result.ret == 0, result.stdout.str()
    orders = [args for name, args in calls() if name == "get_order"]
    assert len(orders) >= 5
    assert {a["order_id"] for a in orders} <= {"A-1001", "A-1002"}
    # The other property is still generated: present and absent, true and false.
    assert {a.get("verbose") for a in orders} == {None, True, False}
    assert {json.dumps(a) for name, a in calls() if name == "list_files"} == {
        '{"path": "/srv/data"}'
    }


def test_a_conftest_strategy_the_schema_refuses_is_a_clear_failure(
    pytester: pytest.Pytester, run_mcp_inprocess: RunMcp, calls: Calls
) -> None:
    pytester.makeconftest(STRATEGY_CONFTEST % 'st.sampled_from(["A-1", "B-2"])')
    result = run_mcp_inprocess("lookup.py", args=(NO_SEQUENCES, "-k", "get_order and contract"))
    result.assert_outcomes(failed=1, deselected=result.parseoutcomes()["deselected"])
    result.stdout.fnmatch_lines(
        ["a strategy from pytest_mcp_tool_strategy made an input the schema refuses"]
    )
    assert (
        "produced {'order_id': 'B-2'}, which the inputSchema refuses: $.order_id: "
        "'B-2' does not match '^A-[0-9]+$'"
    ) in result.stdout.str()
    assert all(args["order_id"] != "B-2" for _, args in calls())


def test_a_conftest_strategy_for_an_undeclared_property_says_which(
    pytester: pytest.Pytester, run_mcp_inprocess: RunMcp
) -> None:
    pytester.makeconftest(
        "from hypothesis import strategies as st\n"
        "def pytest_mcp_tool_strategy(tool):\n"
        "    return {'orderid': st.just('A-1')} if tool == 'get_order' else None\n"
    )
    result = run_mcp_inprocess("lookup.py", args=(NO_SEQUENCES, "-k", "get_order and contract"))
    result.stdout.fnmatch_lines(
        [
            "pytest_mcp_tool_strategy cannot be used here",
            "*supplies a strategy for 'orderid', which the inputSchema does not declare "
            "(its properties: order_id, verbose)*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
