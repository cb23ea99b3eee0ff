"""The client side against tiny scripted stdio servers: what a server asks mid-call (roots,
sampling, elicitation), progress that restarts the call timeout within a maximum, and the
2026-07-28 input_required rounds."""

# The scripted servers are Python source in strings, kept one message to a line.
# ruff: noqa: E501

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_mcp_contracts.inputs.elicitation import form_content
from pytest_mcp_contracts.transport.client import (
    CallTranscript,
    Client,
    ClientSettings,
    url_elicitation_problem,
)
from pytest_mcp_contracts.transport.errors import CallTimeout, ProtocolViolation
from pytest_mcp_contracts.transport.stdio import ServerCommand, StdioConnection, open_stdio
from tests.unit.transport.test_stdio import PRELUDE, legacy

Connect = Callable[..., StdioConnection]


@pytest.fixture
def connect(tmp_path: Path) -> Iterator[Connect]:
    opened: list[StdioConnection] = []

    def start(body: str, settings: ClientSettings | None = None) -> StdioConnection:
        script = tmp_path / f"server{len(opened)}.py"
        script.write_text(PRELUDE + textwrap.dedent(body))
        conn = open_stdio(
            ServerCommand((sys.executable, str(script))),
            startup_timeout=5,
            max_message_bytes=1 << 20,
            client=Client(
                settings or ClientSettings(roots=("file:///work/roots",), form_content=form_content)
            ),
        )
        opened.append(conn)
        return conn

    yield start
    for conn in opened:
        conn.close()


def call(conn: StdioConnection, tool: str = "t", **timing: float) -> tuple[dict, CallTranscript]:
    record = CallTranscript(server="s", tool=tool)
    timing = {"timeout": 5.0, **timing}
    result = conn.call_tool({"name": tool, "arguments": {}}, record, **timing)  # type: ignore[arg-type]
    return result, record


ASK = """
def ask(method, params):
    send({"jsonrpc": "2.0", "id": "q-" + method, "method": method, "params": params})
    return json.loads(sys.stdin.readline())
"""

FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2},
        "email": {"type": "string", "format": "email"},
        "age": {"type": "integer", "minimum": 18, "maximum": 99},
        "color": {"type": "string", "enum": ["red", "green"]},
        "ok": {"type": "boolean"},
    },
    "required": ["name", "age"],
}


def test_handshake_declares_roots_sampling_and_elicitation(connect: Connect) -> None:
    conn = connect(
        legacy("pass").replace(
            "answer(msg, INIT)",
            "answer(msg, {**INIT, 'serverInfo': {'name': json.dumps(msg['params']['capabilities'])}})",
        )
    )
    assert json.loads(conn.server_info["name"]) == {
        "roots": {},
        "sampling": {},
        "elicitation": {"form": {}, "url": {}},
    }


def test_roots_sampling_and_elicitation_are_answered_and_recorded(connect: Connect) -> None:
    body = ASK + legacy(
        f"""r = ask("roots/list", {{}})
        s = ask("sampling/createMessage", {{"messages": [{{"role": "user", "content": {{"type": "text", "text": "hi"}}}}], "maxTokens": 5}})
        e = ask("elicitation/create", {{"message": "Who?", "requestedSchema": {json.dumps(FORM)}}})
        u = ask("elicitation/create", {{"mode": "url", "message": "Sign in", "url": "https://x.test/a", "elicitationId": "e1"}})
        answer(msg, {{"r": r["result"], "s": s["result"], "e": e["result"], "u": u["result"]}})"""
    )
    settings = ClientSettings(
        roots=("file:///work/roots",), sampling_text="canned", form_content=form_content
    )
    conn = connect(body, settings)
    result, record = call(conn)
    assert result["r"] == {"roots": [{"uri": "file:///work/roots", "name": "roots"}]}
    assert result["s"] == {
        "role": "assistant",
        "content": {"type": "text", "text": "canned"},
        "model": "pytest-mcp-contracts",
        "stopReason": "endTurn",
    }
    assert result["e"]["action"] == "accept"
    from jsonschema import Draft202012Validator

    assert Draft202012Validator(FORM).is_valid(result["e"]["content"])
    assert result["u"] == {"action": "decline"}  # the second elicitation of the tool (vary)
    assert record.asked == {"roots/list": 1, "sampling/createMessage": 1, "elicitation/create": 2}
    lines = "\n".join(record.report_lines())
    assert "roots/list: answered file:///work/roots" in lines
    assert "sampling/createMessage ('hi'): answered 'canned'" in lines
    assert "elicitation/create form ('Who?'): accept" in lines
    assert "elicitation/create url 'https://x.test/a' ('Sign in'): decline" in lines


def test_sampling_text_per_tool_and_from_the_hook(connect: Connect) -> None:
    body = ASK + legacy(
        """s = ask("sampling/createMessage", {"messages": [], "maxTokens": 5})
        answer(msg, s["result"])"""
    )

    def hook(server: str, tool: str, params: dict) -> object:
        return f"hook for {server}/{tool}" if tool == "hooked" else None

    settings = ClientSettings(tool_sampling_texts={"s/special": "special"}, sampling_hook=hook)
    conn = connect(body, settings)
    assert call(conn, "special")[0]["content"]["text"] == "special"
    assert call(conn, "hooked")[0]["content"]["text"] == "hook for s/hooked"
    assert call(conn, "other")[0]["content"]["text"].startswith("This is a canned reply")


@pytest.mark.parametrize(
    ("policy", "actions"),
    [
        ("vary", ["accept", "decline", "accept", "cancel", "accept"]),
        ("cancel", ["cancel"] * 5),
    ],
)
def test_elicitation_answers_follow_the_policy(
    connect: Connect, policy: str, actions: list[str]
) -> None:
    body = ASK + legacy(
        """e = ask("elicitation/create", {"message": "m", "requestedSchema": {"type": "object", "properties": {}}})
        answer(msg, e["result"])"""
    )
    conn = connect(body, ClientSettings(elicitation=policy, form_content=form_content))
    assert [call(conn)[0]["action"] for _ in actions] == actions


PROGRESS = """import time
        token = msg["params"]["_meta"]["progressToken"]
        for i in range(STEPS):
            time.sleep(0.2)
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": i + 1}})
        answer(msg, {"steps": STEPS})"""


def test_progress_restarts_the_call_timeout(connect: Connect) -> None:
    conn = connect(legacy(PROGRESS.replace("STEPS", "6")))
    result, record = call(conn, timeout=0.5, max_total=10)  # 1.2 s in all, 0.2 s apart
    assert result == {"steps": 6}
    assert record.progress == 6


def test_progress_for_another_token_does_not(connect: Connect) -> None:
    conn = connect(
        legacy(
            PROGRESS.replace("STEPS", "6").replace(
                'progressToken": token', "progressToken\": 'other'"
            )
        )
    )
    with pytest.raises(CallTimeout, match=r"no answer to tools/call within 0\.5 s$"):
        call(conn, timeout=0.5, max_total=10)


def test_progress_cannot_stretch_a_call_past_the_maximum(connect: Connect) -> None:
    conn = connect(legacy(PROGRESS.replace("STEPS", "20")))
    with pytest.raises(CallTimeout, match=r"within the maximum of 1 s \(--mcp-max-call-time\)"):
        call(conn, timeout=0.5, max_total=1)


MODERN = """
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "server/discover":
        answer(msg, {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}})
    else:
        HANDLE
"""


def test_input_required_is_answered_by_sending_the_call_again(connect: Connect) -> None:
    handle = """p = msg["params"]
        if "inputResponses" not in p:
            answer(msg, {"resultType": "input_required", "requestState": "s1", "inputRequests": {
                "r": {"method": "roots/list"},
                "n": {"method": "elicitation/create", "params": {"mode": "form", "message": "n?",
                      "requestedSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}}})
        else:
            answer(msg, {"content": [], "got": p["inputResponses"], "state": p["requestState"], "caps": p["_meta"]["io.modelcontextprotocol/clientCapabilities"]})"""
    conn = connect(MODERN.replace("HANDLE", handle))
    assert conn.protocol_version == "2026-07-28"
    result, record = call(conn)
    assert result["got"] == {
        "r": {"roots": [{"uri": "file:///work/roots", "name": "roots"}]},
        "n": {"action": "accept", "content": {"n": 0}},
    }
    assert result["state"] == "s1"
    assert result["caps"]["elicitation"] == {"form": {}, "url": {}}
    assert record.rounds == 1


def test_a_server_that_keeps_asking_is_stopped(connect: Connect) -> None:
    handle = """answer(msg, {"resultType": "input_required", "inputRequests": {"r": {"method": "roots/list"}}})"""
    conn = connect(MODERN.replace("HANDLE", handle))
    with pytest.raises(ProtocolViolation, match="still answered input_required after 10 rounds"):
        call(conn)


URL_ITEM = {"mode": "url", "elicitationId": "e-1", "url": "https://x.test/c", "message": "m"}


@pytest.mark.parametrize(
    "data",
    [
        {"elicitations": [URL_ITEM]},
        {"elicitations": [URL_ITEM, {**URL_ITEM, "elicitationId": "e-2"}]},
        {"elicitations": [URL_ITEM], "extra": 1},
        {"elicitations": []},
        {"elicitations": [{**URL_ITEM, "mode": "form"}]},
        {"elicitations": [{k: v for k, v in URL_ITEM.items() if k != "elicitationId"}]},
        {"elicitations": [{k: v for k, v in URL_ITEM.items() if k != "url"}]},
        {"elicitations": [{**URL_ITEM, "message": 3}]},
        {"elicitations": ["https://x.test/c"]},
        {"elicitations": URL_ITEM},
        {"url": "https://x.test/c"},
        None,
        "https://x.test/c",
    ],
)
def test_a_url_elicitation_required_error_is_judged_as_the_sdk_reads_it(data: object) -> None:
    # On 2025-11-25, our judgement of -32042's data agrees with that revision's schema as the
    # SDK models it (mcp_types' own ElicitationRequiredErrorData is laxer: it serves every
    # revision, and leaves elicitationId optional).
    import pydantic
    from mcp_types._v2025_11_25 import Data

    try:
        Data.model_validate(data)
        sdk_accepts = True
    except pydantic.ValidationError:
        sdk_accepts = False
    problem = url_elicitation_problem(data, "2025-11-25")
    assert (problem is None) == sdk_accepts, problem


@pytest.mark.parametrize("version", ["2025-06-18", "2024-11-05", "2026-07-28"])
def test_url_elicitation_required_exists_in_protocol_2025_11_25_only(version: str) -> None:
    problem = url_elicitation_problem({"elicitations": [URL_ITEM]}, version)
    assert problem is not None
    assert ("retired" in problem) == (version > "2025-11-25"), problem


def test_a_client_without_a_form_answerer_declines_forms(connect: Connect) -> None:
    # The transports import nothing from inputs/: whoever makes the client hands it the
    # form answerer (pytest/session.py, cli.py), and without one a form is declined, said.
    body = ASK + legacy(
        f"""e = ask("elicitation/create", {{"message": "Who?", "requestedSchema": {json.dumps(FORM)}}})
        answer(msg, e["result"])"""
    )
    conn = connect(body, ClientSettings())
    result, record = call(conn)
    assert result == {"action": "decline"}
    assert record.lines == ["elicitation/create form ('Who?'): declined, no form answerer"]
