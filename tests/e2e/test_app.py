"""--mcp-app: what only the in-process transport has to get right (naming the server object,
import failures, tools that cannot be interrupted). The checks themselves run over every
transport in test_transports.py."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable

import pytest

from tests.conftest import NO_SEQUENCES, RunPytest

TOOLS = textwrap.dedent(
    """
    from mcp.server import MCPServer

    app = MCPServer("in-proc")

    @app.tool()
    def add(a: int, b: int) -> int:
        return a + b
    """
)


def run_app(pytester: pytest.Pytester, spec: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        NO_SEQUENCES,
        f"--mcp-app={spec}",
        "-p",
        "no:randomly",
        "--mcp-max-examples=5",
        *args,
        timeout=120,
    )


@pytest.fixture
def run_app_here(inprocess_pytest: RunPytest) -> Callable[..., pytest.RunResult]:
    """``run_app`` in this process: loading an app is what --mcp-app does in the user's own
    pytest process. Tools that block (threads left behind) and xdist keep ``run_app``."""

    def run(spec: str, *args: str) -> pytest.RunResult:
        return inprocess_pytest(NO_SEQUENCES, f"--mcp-app={spec}", "--mcp-max-examples=5", *args)

    return run


def test_a_module_name_imports_from_the_rootdir(
    pytester: pytest.Pytester, run_app_here: Callable[..., pytest.RunResult]
) -> None:
    pytester.mkpydir("my_server")
    (pytester.path / "my_server" / "server.py").write_text(TOOLS)
    result = run_app_here("my_server.server:app", "-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*mcp:in-proc::add::contract PASSED*"])


def test_a_factory_function_is_called(
    pytester: pytest.Pytester, run_app_here: Callable[..., pytest.RunResult]
) -> None:
    pytester.makepyfile(
        factory="""
        from mcp.server import MCPServer

        def create_app():
            app = MCPServer("made")

            @app.tool()
            def add(a: int, b: int) -> int:
                return a + b

            return app
        """
    )
    result = run_app_here("factory:create_app", "-v")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*mcp:made::add::contract PASSED*"])


def test_a_low_level_server_is_found_without_an_attribute(
    pytester: pytest.Pytester, run_app_here: Callable[..., pytest.RunResult]
) -> None:
    pytester.makepyfile(
        lowlevel="""
        import mcp.types as types
        from mcp.server import Server

        async def list_tools(ctx, params):
            return types.ListToolsResult(tools=[types.Tool(
                name="ping", input_schema={"type": "object", "properties": {}})])

        async def call_tool(ctx, params):
            return types.CallToolResult(content=[types.TextContent(type="text", text="pong")])

        server = Server("low", on_list_tools=list_tools, on_call_tool=call_tool)
        """
    )
    result = run_app_here("lowlevel.py", "-v")
    result.assert_outcomes(passed=3, skipped=1)  # nothing to break in an empty inputSchema
    result.stdout.fnmatch_lines(["*mcp:low::ping::contract PASSED*"])


@pytest.mark.parametrize(
    ("source", "spec", "expected"),
    [
        ("", "no_such_module:app", "*could not import 'no_such_module': No module named*"),
        (
            "raise RuntimeError('missing DATABASE_URL')",
            "broken:app",
            "*RuntimeError: missing DATABASE_URL*",
        ),
        (TOOLS, "broken:application", "*broken has no attribute 'application'; it has app*"),
        ("app = 42", "broken:app", "*broken:app is a int, not an MCP server*"),
        (TOOLS + "\nother = app\n", "broken", "*defines several servers (app, other)*"),
        ("x = 1", "broken.py", "*defines no MCPServer or Server object*"),
    ],
    ids=[
        "missing-module",
        "import-raises",
        "missing-attribute",
        "not-a-server",
        "ambiguous",
        "none",
    ],
)
def test_an_app_that_cannot_be_loaded_is_one_clear_error(
    pytester: pytest.Pytester,
    run_app_here: Callable[..., pytest.RunResult],
    source: str,
    spec: str,
    expected: str,
) -> None:
    if source:
        pytester.makepyfile(broken=textwrap.dedent(source))
    result = run_app_here(spec)
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*MCP server could not be run in-process: *", expected])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_a_malformed_spec_is_a_usage_error(
    pytester: pytest.Pytester, run_app_here: Callable[..., pytest.RunResult]
) -> None:
    result = run_app_here("my server:app")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mcp-app 'my server:app': *neither a module name nor a path*"])


def test_tools_that_block_cannot_hold_up_the_run(pytester: pytest.Pytester) -> None:
    """A synchronous tool stuck in a worker thread, and an async tool that blocks the event
    loop, cannot be interrupted in-process: each call times out, its thread is left behind,
    and pytest still finishes and exits."""
    pytester.makepyfile(
        blocks="""
        import time
        from mcp.server import MCPServer

        app = MCPServer("blocks")

        @app.tool()
        def in_thread(n: int) -> int:
            time.sleep(3600)
            return n

        @app.tool()
        async def on_loop(n: int) -> int:
            time.sleep(3600)
            return n
        """
    )
    started = time.monotonic()
    result = run_app(pytester, "blocks:app", "--mcp-call-timeout=1", "--mcp-max-restarts=1")
    elapsed = time.monotonic() - started
    # rejects_invalid passes: pydantic coerces the look-alike "1" for n and the tool blocks,
    # which is the contract check's finding (on the valid 1), not a failure to refuse.
    result.assert_outcomes(passed=6, failed=2)
    result.stdout.fnmatch_lines(["*the call did not return: no answer to tools/call within 1 s*"])
    # Not a speed target: the bound only proves the process did not wait on the stuck
    # threads (an hour each).
    assert elapsed < 100, elapsed


def test_xdist_workers_each_run_the_app(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pytester.makepyfile(app_module=TOOLS)
    result = run_app(pytester, "app_module:app", "-n", "2")
    result.assert_outcomes(passed=4)
    assert (pytester.path / "mcp-contracts" / "in-proc" / "add.json").is_file()
