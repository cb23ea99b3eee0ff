"""The full client against the reference server, @modelcontextprotocol/server-everything
(TypeScript SDK, handshake era): it lists its roots, sampling and elicitation tools only to
a client that declares those capabilities, and sends real server-to-client requests during
those calls; its trigger-long-running-operation reports progress, which must keep a call
alive past the call timeout.

Needs the server installed (``npm install @modelcontextprotocol/server-everything``): its
command is taken from MCP_EVERYTHING_BIN, else ``mcp-server-everything`` on PATH. Nothing
is downloaded here, so without it (as in the default CI run) the tests skip.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mcp_contracts.inputs.elicitation import form_content
from pytest_mcp_contracts.transport.client import CallTranscript, Client, ClientSettings
from pytest_mcp_contracts.transport.discover import list_tools
from pytest_mcp_contracts.transport.stdio import ServerCommand, StdioConnection, open_stdio
from tests.conftest import NO_SEQUENCES

CLIENT_TOOLS = (
    "get-roots-list",
    "trigger-sampling-request",
    "trigger-elicitation-request",
    "trigger-url-elicitation",
)


@pytest.fixture(scope="module")
def everything() -> str:
    command = os.environ.get("MCP_EVERYTHING_BIN") or shutil.which("mcp-server-everything")
    if not command:
        pytest.skip(
            "server-everything is not installed: npm install "
            "@modelcontextprotocol/server-everything, then put its bin on PATH or set "
            "MCP_EVERYTHING_BIN (the tests never download it)"
        )
    return command


@pytest.fixture
def conn(everything: str, tmp_path: Path) -> Iterator[StdioConnection]:
    settings = ClientSettings(
        roots=(tmp_path.as_uri(),), sampling_text="canned words", form_content=form_content
    )
    opened = open_stdio(
        ServerCommand.parse(everything),
        startup_timeout=60,
        max_message_bytes=1 << 24,
        client=Client(settings),
    )
    yield opened
    opened.close()


def _text(result: dict) -> str:
    return "\n".join(block.get("text", "") for block in result.get("content", []))


def test_client_tools_are_listed_and_return_real_results(
    conn: StdioConnection, tmp_path: Path
) -> None:
    names = {tool["name"] for tool in list_tools(conn, timeout=30)}
    assert set(CLIENT_TOOLS) <= names
    # It asks for the roots itself 350 ms after the handshake, and get-roots-list reads
    # what it got then.
    time.sleep(1)

    def call(name: str, arguments: dict) -> tuple[str, CallTranscript]:
        record = CallTranscript(server="everything", tool=name)
        result = conn.call_tool({"name": name, "arguments": arguments}, record, timeout=30)
        assert result.get("isError") is not True, result
        return _text(result), record

    roots, _ = call("get-roots-list", {})
    assert f"URI: {tmp_path.as_uri()}" in roots
    sampled, record = call("trigger-sampling-request", {"prompt": "hello"})
    assert '"text": "canned words"' in sampled
    assert record.asked == {"sampling/createMessage": 1}
    accepted, record = call("trigger-elicitation-request", {})
    assert "✅ User provided the requested information!" in accepted, accepted
    assert "Email: user@example.com" in accepted
    declined, _ = call("trigger-elicitation-request", {})  # the second one: declined
    assert "❌ User declined" in declined
    opened, record = call("trigger-url-elicitation", {"url": "https://example.com/done"})
    assert "URL: https://example.com/done" in opened
    assert record.asked == {"elicitation/create": 1}


def test_progress_keeps_a_long_operation_alive_past_the_call_timeout(
    conn: StdioConnection,
) -> None:
    record = CallTranscript(server="everything", tool="trigger-long-running-operation")
    started = time.monotonic()
    result = conn.call_tool(
        {"name": "trigger-long-running-operation", "arguments": {"duration": 3, "steps": 6}},
        record,
        timeout=1,
        max_total=30,
    )
    assert time.monotonic() - started > 2.5
    assert "Long running operation completed" in _text(result)
    assert record.progress == 6


def test_the_plugin_passes_its_client_tools(everything: str, pytester: pytest.Pytester) -> None:
    # Durations the operation may take are the user's to bound (the schema sets none): a
    # conftest strategy keeps them at 4 s in 8 steps. Its schema defaults (10 s in 5 steps)
    # are sent too. With a 3 s call timeout both pass only because progress restarts it.
    pytester.makeconftest(
        """
        from hypothesis import strategies as st

        def pytest_mcp_tool_strategy(tool):
            if tool == "trigger-long-running-operation":
                return {"duration": st.just(4), "steps": st.just(8)}
            return None
        """
    )
    tools = (*CLIENT_TOOLS, "trigger-long-running-operation")
    result = pytester.runpytest_subprocess(
        NO_SEQUENCES,
        f"--mcp-server={everything}",
        "-p",
        "no:randomly",
        "--mcp-call-timeout=3",
        "--mcp-max-examples=2",
        "--mcp-rejects-invalid=off",
        "-v",
        "-k",
        " or ".join(tools),
        timeout=600,
    )
    text = result.stdout.str()
    for tool in tools:
        assert f"::{tool}::contract PASSED" in text, text
