"""Hand-written tests beside the generated items: a user's test file asks for ``mcp_server``
(or ``mcp_servers``) and calls, checks, draws inputs, reads and gets on the run's own
server (pytest/fixtures, runs/handwritten; docs/how-to/own-tests.md).

Most runs here load the servers in process (``--mcp-app``) and leave the generated items
out (``--deselect mcp:``) where they are not what a test compares with; the failure report
is compared with the generated contract and read items' own, and one run goes serial and
under -n 2."""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from ..conftest import SERVERS, HttpServer, RunMcp, RunPytest, server_command

ONLY_OWN = ("--deselect", "mcp:")  # the generated items of every server left out


def app(name: str) -> str:
    return f"--mcp-app={SERVERS / name}"


def failure_block(result: pytest.RunResult, first_line: str, after: str = "") -> list[str]:
    """The lines of the first failure report that starts with ``first_line`` (below the
    first line that holds ``after``): a generated item's (printed as is) or a hand-written
    test's (pytest's ``E       `` before each line, the exception's name before the
    first), up to the block of what the server wrote during the call."""
    lines, block = result.stdout.lines, []
    start = next(at for at, line in enumerate(lines) if after in line)
    for at, line in enumerate(lines[start:], start):
        if line.endswith(first_line) and (
            line == first_line or line.startswith("E       pytest_mcp_contracts.CheckFailed: ")
        ):
            for following in lines[at + 1 :]:
                text = following.removeprefix("E       ").removeprefix("E")
                if "while this call ran" in text or following.startswith(("_", "-")):
                    break
                block.append(text)
            return [first_line, *block]
    raise AssertionError(f"no failure report starts with {first_line!r}:\n{result.stdout}")


QUOTES = """
    import json

    def test_a_small_order_keeps_the_contract(mcp_server):
        result = mcp_server.check("price_quote", {"quantity": 3, "sku": "A"})
        assert result.structured_content == {"price": 5.25, "currency": "EUR"}
        assert json.loads(result.text) == result.structured_content
        assert not result.is_error

    def test_a_bulk_order(mcp_server):
        mcp_server.check("price_quote", {"quantity": 101, "sku": "A"})
"""


def test_check_fails_with_the_contract_items_report(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester
) -> None:
    """A hand-written check of the stdio server the contract item fails on: the passing
    call returns a typed result, the failing one prints the contract item's own report
    (problem, server, check, request, replay command, replay note), input as sent."""
    pytester.makepyfile(test_quotes=textwrap.dedent(QUOTES))
    result = run_mcp_inprocess(
        "broken_output.py", args=("--mcp-sequences=off", "--mcp-report=report.json")
    )
    result.assert_outcomes(passed=8, failed=2)
    result.stdout.fnmatch_lines_random(
        [
            "FAILED test_quotes.py::test_a_bulk_order - pytest_mcp_contracts.CheckFailed*",
            "FAILED mcp:broken-output::price_quote::contract - structuredContent does not*",
        ]
    )
    headline = "structuredContent does not match the outputSchema (2020-12)"
    own = failure_block(result, headline)
    generated = failure_block(result, headline, after="broken-output price_quote [contract]")
    command = server_command("broken_output.py")
    for report in (own, generated):
        assert report[1].startswith("  $.price: '") and report[1].endswith(
            "' is not of type 'number'"
        )
        assert f"server: broken-output  (command: {command})" in report
        assert "tool: price_quote    check: contract" in report
        assert "or with one command:" in report
        assert "(it fails alone on a freshly started server too)" in report
    # The input as the test sent it, where the item shows the smallest it found.
    at = own.index("input (as the test sent it):")
    assert own[at + 1].strip() == '{"quantity": 101, "sku": "A"}'
    assert "smallest input found:" in generated
    replay = own[own.index("or with one command:") + 1].strip()
    assert replay.startswith("mcp-contracts call '--server=") and replay.endswith(
        """ price_quote '{"quantity": 101, "sku": "A"}'"""
    )
    # The checks' numbers are the items'; the test's two calls are counted apart.
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    (server,) = report["servers"]
    assert server["own_test_calls"] == 2 and server["calls"] > 2
    result.stdout.fnmatch_lines(["  and 2 request(s) from hand-written tests (the mcp_server*"])


FAILURES = """
    import pytest

    from pytest_mcp_contracts import CheckFailed, ToolResult

    def test_a_tool_answers(mcp_server):
        result = mcp_server.call("initial", {"word": "abc"})
        assert isinstance(result, ToolResult)
        assert (result.text, result.is_error, result.structured_content) == ("A", False, None)

    def test_a_tool_that_throws_answers_an_error_result(mcp_server):
        result = mcp_server.call("initial", {"word": ""})
        assert result.is_error and "toUpperCase" in result.text

    def test_check_judges_the_error_result_a_crash(mcp_server):
        with pytest.raises(CheckFailed) as failed:
            mcp_server.check("initial", {"word": ""})
        assert failed.value.kind == "unexpected_exception"
        assert str(failed.value).startswith("the tool raised an unexpected exception")

    def test_check_passes_a_refusal(mcp_server):
        result = mcp_server.check("lookup", {"sku": "B-2"})
        assert result.is_error and result.text == 'unknown sku: "B-2"'
"""


def test_call_returns_error_results_and_check_judges_them(
    inprocess_pytest: RunPytest, pytester: pytest.Pytester, ts_servers: Callable[[str], str]
) -> None:
    """On the TypeScript SDK, which wraps a thrown error into an isError result (no stderr
    traceback): call returns it as a result, check judges it by its words as the contract
    item does (a crash fails, a refusal passes)."""
    pytester.makepyfile(test_failures=textwrap.dedent(FAILURES))
    result = inprocess_pytest(f"--mcp-server={ts_servers('failures.mjs')}", *ONLY_OWN)
    result.assert_outcomes(passed=4, deselected=17)


SEVERAL = """
    import pytest

    from pytest_mcp_contracts import CheckFailed, McpRpcError

    def test_each_server_by_name(mcp_servers):
        assert sorted(mcp_servers) == ["rpc-error", "typed-ok"]
        assert mcp_servers["typed-ok"].check("add", {"a": 2, "b": 3}).structured_content == {
            "result": 5
        }
        assert mcp_servers["rpc-error"].call("lookup", {"key": "ab"}).structured_content == {
            "key": "ab", "value": 195
        }

    def test_a_json_rpc_error_is_raised(mcp_servers):
        with pytest.raises(McpRpcError) as raised:
            mcp_servers["rpc-error"].call("lookup", {"key": "abcd"})
        assert (raised.value.code, raised.value.method) == (-32603, "tools/call")
        assert raised.value.message == "Internal error: 'NoneType' object has no attribute 'get'"

    def test_check_fails_a_json_rpc_error(mcp_servers):
        with pytest.raises(CheckFailed, match="answered with JSON-RPC error -32603"):
            mcp_servers["rpc-error"].check("lookup", {"key": "abcd"})

    def test_an_unknown_name(mcp_servers):
        mcp_servers["typed_ok"]

    def test_mcp_server_asks_which(mcp_server):
        pass
"""


def test_several_servers_by_name(inprocess_pytest: RunPytest, pytester: pytest.Pytester) -> None:
    """Two in-process apps: ``mcp_servers`` by their node names; a JSON-RPC error raised as
    McpRpcError by call, failed by check; a wrong name and an ambiguous ``mcp_server`` say
    what to write instead."""
    pytester.makepyfile(test_several=textwrap.dedent(SEVERAL))
    result = inprocess_pytest(app("typed_ok.py"), app("rpc_error.py"), *ONLY_OWN)
    result.assert_outcomes(passed=3, failed=1, errors=1, deselected=22)
    result.stdout.fnmatch_lines_random(
        [
            "E   *mcp_servers[[]'typed_ok']: no server of this run is named so; the names are "
            "those of their node ids (mcp:<name>): 'typed-ok', 'rpc-error'",
            "mcp_server: this run has 2 servers ('typed-ok', 'rpc-error'); ask for "
            'mcp_servers instead and pick one by name: mcp_servers["typed-ok"]',
        ]
    )


GIVEN = """
    from hypothesis import find, given, settings, strategies as st

    @settings(deadline=None, max_examples=25)
    @given(data=st.data())
    def test_any_inventory_keeps_the_contract(mcp_server, data):
        arguments = data.draw(mcp_server.inputs("inventory"))
        assert arguments["warehouse"] in ("north-7", "south-2")  # the conftest's strategy
        result = mcp_server.check("inventory", arguments)
        assert result.structured_content["warehouse"] == arguments["warehouse"]

    def test_the_configured_example_is_among_the_inputs(mcp_server):
        assert find(mcp_server.inputs("add"), lambda a: a == {"a": 40, "b": 2}) == {"a": 40, "b": 2}
"""

STRATEGY_CONFTEST = """
    from hypothesis import strategies as st

    def pytest_mcp_tool_strategy(tool):
        if tool == "inventory":
            return {"warehouse": st.sampled_from(["north-7", "south-2"])}
        return None
"""


def test_inputs_draw_what_the_contract_item_draws(
    inprocess_pytest: RunPytest, pytester: pytest.Pytester
) -> None:
    """``inputs`` is the contract item's strategy: the conftest's pytest_mcp_tool_strategy
    and the configured examples in it. The documented ``@given`` pattern runs without a
    hypothesis health check or warning (-W error)."""
    pytester.makepyfile(test_given=textwrap.dedent(GIVEN))
    pytester.makeconftest(textwrap.dedent(STRATEGY_CONFTEST))
    pytester.makepyprojecttoml("[tool.mcp-contracts.tools.add]\nexamples = [{a = 40, b = 2}]\n")
    result = inprocess_pytest(
        app("typed_ok.py"), *ONLY_OWN, "-W", "error::hypothesis.errors.HypothesisWarning"
    )
    result.assert_outcomes(passed=2, deselected=13)


LISTED = """
    import pytest

    from pytest_mcp_contracts import McpRpcError, PromptResult, ResourceResult

    def test_reads(mcp_servers):
        library = mcp_servers["library"]
        readme = library.check_read("file:///docs/readme.md")
        assert isinstance(readme, ResourceResult) and readme.text == "# Demo\\n"
        assert library.check_read("users://alice/profile").text == '{"id": "alice"}'
        with pytest.raises(McpRpcError) as refused:
            library.read("nope://x")
        assert refused.value.code == -32602

    def test_gets(mcp_servers):
        got = mcp_servers["library"].check_get("review_code", {"code": "x = 1"})
        assert isinstance(got, PromptResult)
        assert got.text == "Review this code (concise):\\nx = 1"
        assert got.messages[0]["role"] == "user"

    def test_a_broken_listed_resource(mcp_servers):
        mcp_servers["surface-bugs"].check_read("file:///broken.txt")
"""


def test_reads_and_gets(inprocess_pytest: RunPytest, pytester: pytest.Pytester) -> None:
    """check_read and check_get pass on correct entries and return typed results; a listed
    resource that cannot be read fails with the read item's report (its item fails alike)."""
    pytester.makepyfile(test_listed=textwrap.dedent(LISTED))
    result = inprocess_pytest(
        app("prompts_resources.py"),
        app("surface_bugs.py"),
        "--mcp-sequences=off",
        "--deselect=mcp:library",
        "-k",
        "test_ or broken",
    )
    result.assert_outcomes(passed=4, failed=2, deselected=38)
    headline = (
        "the server failed on this request: JSON-RPC error -32603 (Error reading resource "
        "file:///broken.txt)"
    )
    own = failure_block(result, headline)
    generated = failure_block(result, headline, after="file:///broken.txt [read]")
    for report in (own, generated):
        assert "resource: file:///broken.txt    check: read" in report
        assert (
            f"    mcp-contracts call --app={SERVERS / 'surface_bugs.py'} --read file:///broken.txt"
            in report
        )
    assert own[own.index("request (as the test sent it):") + 1].strip() == (
        '{"uri": "file:///broken.txt"}'
    )


HOW_TO = Path(__file__).parents[2] / "docs" / "how-to" / "own-tests.md"


def test_the_how_to_example_passes_against_the_example_server(
    inprocess_pytest: RunPytest, pytester: pytest.Pytester
) -> None:
    """The test file docs/how-to/own-tests.md gives users to paste (its first Python block)
    passes against the bundled example server, loaded in process."""
    example = HOW_TO.read_text(encoding="utf-8").split("```python\n", 1)[1].split("```", 1)[0]
    pytester.makepyfile(test_bookshop=example)
    server = Path(__file__).parents[2] / "example_server" / "server.py"
    result = inprocess_pytest(f"--mcp-app={server}:app", *ONLY_OWN)
    result.assert_outcomes(passed=5, deselected=25)


def test_no_server_configured_is_an_error_that_says_how(
    inprocess_pytest: RunPytest, pytester: pytest.Pytester
) -> None:
    """A run that configures no server errors every test that asks for one (a CI job that
    lost its server must not pass on skips), saying how to configure one; a server set in
    pyproject.toml serves them."""
    pytester.makepyfile(
        test_mine="def test_it(mcp_server):\n    assert mcp_server.tools == ('add',)\n"
    )
    result = inprocess_pytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of test_it*",
            "no MCP server is configured for this run, so there is none to test: pass "
            '--mcp-server="python -m my_server" *mcp_server = "python -m my_server"*',
        ]
    )
    (pytester.path / "adder.py").write_text(
        "from mcp.server import MCPServer\n\napp = MCPServer('adder')\n\n\n"
        "@app.tool()\ndef add(a: int, b: int) -> int:\n    return a + b\n\n\n"
        "if __name__ == '__main__':\n    app.run()\n"
    )
    command = shlex.join([sys.executable, "adder.py"])
    pytester.makepyprojecttoml(f"[tool.pytest.ini_options]\nmcp_server = {json.dumps(command)}\n")
    inprocess_pytest(*ONLY_OWN).assert_outcomes(passed=1, deselected=5)


def test_over_http(
    inprocess_pytest: RunPytest, pytester: pytest.Pytester, http_server: HttpServer
) -> None:
    pytester.makepyfile(
        test_http="def test_add(mcp_server):\n"
        "    assert mcp_server.check('add', {'a': 1, 'b': 1}).structured_content == {'result': 2}\n"
    )
    result = inprocess_pytest(f"--mcp-url={http_server('typed_ok.py')}", *ONLY_OWN)
    result.assert_outcomes(passed=1, deselected=13)


WHOAMI = """
    import os

    from mcp.server import MCPServer

    app = MCPServer("whoami")

    @app.tool()
    def pid() -> int:
        \"\"\"The server's process id.\"\"\"
        return os.getpid()

    if __name__ == "__main__":
        app.run()
"""

PIDS = """
    import pytest

    @pytest.mark.parametrize("n", range(4))
    def test_pid(mcp_server, n, request):
        pid = mcp_server.check("pid").structured_content["result"]
        # Not PYTEST_XDIST_WORKER: a run of this suite under xdist hands it down to this one.
        worker = getattr(request.config, "workerinput", {}).get("workerid", "serial")
        with open(f"pids-{worker}.txt", "a") as handle:
            handle.write(f"{pid}\\n")
"""


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_serial_and_parallel(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest, workers: tuple[str, ...]
) -> None:
    """Hand-written tests and generated items in one suite, as users run it: serial and
    under -n 2 the same outcomes and the same count of the tests' requests; under -n 2
    each worker calls its own server process."""
    (pytester.path / "whoami.py").write_text(textwrap.dedent(WHOAMI))
    pytester.makepyfile(test_pids=textwrap.dedent(PIDS))
    args = (
        f"--mcp-server={server_command(pytester.path / 'whoami.py')}",
        "--mcp-report=report.json",
    )
    if workers:  # a controller and workers of its own; serially pytest runs in this process
        result = pytester.runpytest_subprocess(*args, "-p", "no:randomly", *workers, timeout=120)
    else:
        result = inprocess_pytest(*args)
    result.assert_outcomes(passed=8, skipped=1)  # rejects_invalid: no argument to break
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert report["servers"][0]["own_test_calls"] == 4
    files = sorted(Path(pytester.path).glob("pids-*.txt"))
    pids = {f.name: set(f.read_text().split()) for f in files}
    if not workers:
        assert list(pids) == ["pids-serial.txt"] and len(pids["pids-serial.txt"]) == 1
    else:
        assert sorted(pids) == ["pids-gw0.txt", "pids-gw1.txt"]
        assert all(len(seen) == 1 for seen in pids.values())
        assert pids["pids-gw0.txt"] != pids["pids-gw1.txt"]
