"""transport/stdio.py, message_stream.py and jsonrpc.py against tiny scripted servers: the
wire as it really is, bad bytes included."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mcp_contracts.transport import stdio
from pytest_mcp_contracts.transport.connect import open_server
from pytest_mcp_contracts.transport.errors import (
    CallTimeout,
    ProtocolViolation,
    RpcError,
    ServerDied,
    ServerStartError,
)
from pytest_mcp_contracts.transport.stderr import last_words
from pytest_mcp_contracts.transport.stdio import (
    ServerCommand,
    StdioConnection,
    open_stdio,
    wait_exit,
)

PRELUDE = """
import json, sys
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
def answer(msg, result):
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
def refuse(msg, code=-32601):
    send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": code, "message": "nope"}})
INIT = {"protocolVersion": "2025-06-18", "capabilities": {},
        "serverInfo": {"name": "s", "version": "1"}}
"""


@pytest.fixture
def connect(tmp_path: Path) -> Iterator[object]:
    opened: list[StdioConnection] = []

    def start(body: str, *, max_bytes: int = 1 << 20, timeout: float = 5) -> StdioConnection:
        script = tmp_path / f"server{len(opened)}.py"
        script.write_text(PRELUDE + textwrap.dedent(body))
        conn = open_stdio(
            ServerCommand((sys.executable, str(script))),
            startup_timeout=timeout,
            max_message_bytes=max_bytes,
        )
        opened.append(conn)
        return conn

    yield start
    for conn in opened:
        conn.close()


LEGACY_LOOP = """
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "server/discover":
        refuse(msg, CODE)
    elif msg["method"] == "initialize":
        answer(msg, INIT)
    else:
        HANDLE
"""


def legacy(handle: str, code: int = -32601) -> str:
    return LEGACY_LOOP.replace("CODE", str(code)).replace("HANDLE", handle)


@pytest.mark.parametrize("code", [-32601, -32602, -32600])
def test_handshake_falls_back_to_initialize_on_any_probe_error(connect, code: int) -> None:
    conn = connect(legacy("answer(msg, {})", code))
    assert conn.protocol_version == "2025-06-18"
    assert conn.server_info == {"name": "s", "version": "1"}


def test_modern_server_is_spoken_to_with_the_meta_envelope(connect) -> None:
    conn = connect(
        """
        for line in sys.stdin:
            msg = json.loads(line)
            meta = msg["params"].get("_meta", {})
            if meta.get("io.modelcontextprotocol/protocolVersion") != "2026-07-28":
                refuse(msg, -32602)
            elif msg["method"] == "server/discover":
                answer(msg, {"supportedVersions": ["2026-07-28"], "capabilities": {},
                             "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "m"}}})
            else:
                answer(msg, {"echo": msg["params"]["name"]})
        """
    )
    assert conn.protocol_version == "2026-07-28"
    assert conn.server_info == {"name": "m"}
    assert conn.request("tools/call", {"name": "x"}, timeout=5) == {"echo": "x"}


def test_garbage_on_stdout_is_counted_and_skipped(connect) -> None:
    conn = connect(legacy('print("log line"); print("[1, 2]"); answer(msg, {"ok": 1})'))
    assert conn.request("tools/list", {}, timeout=5) == {"ok": 1}
    assert conn.garbage_count == 2
    assert list(conn.garbage) == ["log line", "[1, 2]"]


def test_response_to_an_unknown_id_is_not_taken_for_ours(connect) -> None:
    conn = connect(
        legacy(
            'send({"jsonrpc": "2.0", "id": 999, "result": {"wrong": 1}}); answer(msg, {"ok": 1})'
        )
    )
    assert conn.request("tools/list", {}, timeout=5) == {"ok": 1}
    assert "unknown request id 999" in conn.garbage[-1]


def test_oversized_message_is_refused_without_holding_it(connect) -> None:
    conn = connect(
        legacy('answer(msg, {"text": "x" * (5000 if msg["method"] == "big" else 1)})'),
        max_bytes=1000,
    )
    with pytest.raises(ProtocolViolation, match="over the 1000-byte limit"):
        conn.request("big", {}, timeout=5)
    # The connection survives: the next, normal answer arrives.
    assert conn.request("small", {}, timeout=5) == {"text": "x"}


def test_an_oversized_message_is_never_held_whole(connect) -> None:
    # 8 MB against a 2 MB cap: read in 1 MB chunks, dropped as soon as the cap is passed.
    conn = connect(
        legacy('answer(msg, {"text": "x" * (8 << 20 if msg["method"] == "big" else 1)})'),
        max_bytes=2 << 20,
    )
    with pytest.raises(ProtocolViolation, match=r"could not be read: it was a message of \d+ "):
        conn.request("big", {}, timeout=10)
    assert conn.request("small", {}, timeout=5) == {"text": "x"}


def test_a_message_too_deep_for_the_json_module_is_still_read(connect) -> None:
    # json.loads gives up near 1,000 levels (RecursionError): that must not kill the reader.
    conn = connect(
        legacy(
            'sys.stdout.write(\'{"jsonrpc": "2.0", "id": %d, "result": {"deep": \' % msg["id"]'
            ' + "[" * 5000 + "]" * 5000 + "}}\\n"); sys.stdout.flush()'
        )
    )
    value = conn.request("tools/list", {}, timeout=5)["deep"]
    depth = 0
    while value:
        value, depth = value[0], depth + 1
    assert depth == 4999
    assert conn.request("tools/list", {}, timeout=5)  # and the connection goes on


def test_a_message_deeper_than_any_reader_allows_fails_its_request(connect) -> None:
    conn = connect(
        legacy('sys.stdout.write("[" * 200001 + "]" * 200001 + "\\n"); sys.stdout.flush()')
    )
    with pytest.raises(ProtocolViolation, match="nested deeper than 100000 levels"):
        conn.request("tools/list", {}, timeout=5)


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ('{"jsonrpc": "2.0", "id": ID}', 'neither "result" nor "error"'),
        (
            '{"jsonrpc": "2.0", "id": ID, "result": {}, "error": {"code": 1, "message": "m"}}',
            'both "result" and "error"',
        ),
        ('{"jsonrpc": "1.0", "id": ID, "result": {}}', '"jsonrpc" must be "2.0", got "1.0"'),
        ('{"id": ID, "result": {}}', '"jsonrpc" must be "2.0", got null'),
        ('{"jsonrpc": "2.0", "id": ID, "error": "boom"}', '"error" is not an object'),
        ('{"jsonrpc": "2.0", "id": ID, "result": "hello"}', "the result of x is not an object"),
    ],
)
def test_an_invalid_json_rpc_response_is_a_protocol_violation(
    connect, response: str, message: str
) -> None:
    write = f'sys.stdout.write({response!r}.replace("ID", str(msg["id"])) + "\\n")'
    conn = connect(legacy(write + "; sys.stdout.flush()"))
    with pytest.raises(ProtocolViolation, match=re.escape(message)):
        conn.request("x", {}, timeout=5)


def test_json_rpc_error_is_raised_with_its_code(connect) -> None:
    conn = connect(legacy("refuse(msg, -32603)"))
    with pytest.raises(RpcError) as info:
        conn.request("tools/call", {}, timeout=5)
    assert info.value.code == -32603


def test_server_that_dies_mid_request_says_so_with_stderr(connect) -> None:
    conn = connect(legacy('sys.stderr.write("dying now\\n"); sys.stderr.flush(); sys.exit(7)'))
    with pytest.raises(ServerDied, match="exit status 7") as info:
        conn.request("tools/call", {}, timeout=5)
    assert "dying now" in info.value.stderr_tail


def test_silence_hits_the_timeout(connect) -> None:
    conn = connect(legacy("pass"))
    with pytest.raises(CallTimeout, match=r"within 0\.3 s"):
        conn.request("tools/call", {}, timeout=0.3)


def test_server_requests_are_answered(connect) -> None:
    # The server pings us before answering; it reports what we answered. A method no
    # client has is refused as unknown (sampling and the others: test_connect_client.py).
    conn = connect(
        legacy(
            """send({"jsonrpc": "2.0", "id": "p1", "method": "ping"})
        pong = json.loads(sys.stdin.readline())
        send({"jsonrpc": "2.0", "id": "s1", "method": "tools/list", "params": {}})
        refused = json.loads(sys.stdin.readline())
        answer(msg, {"pong": pong, "refused": refused["error"]["code"]})"""
        )
    )
    result = conn.request("tools/call", {}, timeout=5)
    assert result == {"pong": {"jsonrpc": "2.0", "id": "p1", "result": {}}, "refused": -32601}


def test_server_environment_is_inherited(connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_MCP_PROBE", "42")
    conn = connect(legacy('import os; answer(msg, {"v": os.environ.get("PYTEST_MCP_PROBE")})'))
    assert conn.request("x", {}, timeout=5) == {"v": "42"}


def test_unknown_protocol_version_from_initialize_is_a_start_error(connect) -> None:
    with pytest.raises(ServerStartError, match="protocol version '1999-01-01'"):
        connect(
            legacy("pass").replace(
                "answer(msg, INIT)", 'answer(msg, {**INIT, "protocolVersion": "1999-01-01"})'
            )
        )


SILENT_ON_PROBE = """
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        answer(msg, INIT)
    elif msg.get("method") == "server/discover" and DIE_ON_PROBE:
        sys.exit(9)
"""


def test_a_server_silent_on_the_probe_still_gets_the_handshake(
    connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_mcp_contracts.transport.jsonrpc.PROBE_TIMEOUT", 0.3)
    conn = connect(SILENT_ON_PROBE.replace("DIE_ON_PROBE", "False"), timeout=5)
    assert conn.protocol_version == "2025-06-18"


def test_a_2026_server_too_slow_for_the_probe_is_asked_again_when_it_refuses_initialize(
    connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under load a 2026-07-28 server can answer the probe after the probe time: it then
    refuses initialize (-32022) as it should, and the client, which heard nothing from it on
    the probe, asks it again instead of calling it a server that does not start."""
    monkeypatch.setattr("pytest_mcp_contracts.transport.jsonrpc.PROBE_TIMEOUT", 0.3)
    conn = connect(
        """
        import time
        time.sleep(0.6)  # still starting when the probe gives up
        for line in sys.stdin:
            msg = json.loads(line)
            if msg["method"] == "server/discover":
                answer(msg, {"supportedVersions": ["2026-07-28"], "capabilities": {},
                             "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "m"}}})
            else:
                refuse(msg, -32022)
        """
    )
    assert conn.protocol_version == "2026-07-28"
    assert conn.server_info == {"name": "m"}
    assert conn.garbage_count == 0  # the late answer to the first probe is no garbage


def test_a_server_silent_on_the_probe_that_refuses_initialize_reports_the_refusal(
    connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_mcp_contracts.transport.jsonrpc.PROBE_TIMEOUT", 0.3)
    with pytest.raises(ServerStartError, match=r"the initialize handshake failed: .*nope"):
        connect(
            """
            for line in sys.stdin:
                msg = json.loads(line)
                if msg["method"] == "initialize":
                    refuse(msg, -32602)
            """
        )


def test_a_known_handshake_era_server_is_restarted_without_the_probe(tmp_path: Path) -> None:
    script = tmp_path / "dies_on_probe.py"
    script.write_text(PRELUDE + textwrap.dedent(SILENT_ON_PROBE.replace("DIE_ON_PROBE", "True")))
    command = ServerCommand((sys.executable, str(script)))
    with pytest.raises(ServerStartError, match="exit status 9"):
        open_stdio(command, startup_timeout=5, max_message_bytes=1 << 20)
    conn = open_stdio(command, startup_timeout=5, max_message_bytes=1 << 20, legacy=True)
    assert conn.protocol_version == "2025-06-18"
    conn.close()


def test_a_late_answer_after_a_timeout_is_not_garbage(connect) -> None:
    conn = connect(legacy('import time; time.sleep(0.5); answer(msg, {"late": True})'))
    with pytest.raises(CallTimeout):
        conn.request("tools/call", {}, timeout=0.1)
    assert conn.request("tools/call", {}, timeout=5) == {"late": True}
    assert conn.garbage_count == 0


def test_protocol_versions_are_the_sdks() -> None:
    # Kept as literals in vocabulary.py: importing mcp_types (pydantic) would cost ~0.2 s on the
    # stdio path, which otherwise never imports the SDK. This keeps them from drifting.
    from mcp_types import PROTOCOL_VERSION_META_KEY, version

    from pytest_mcp_contracts import vocabulary
    from pytest_mcp_contracts.transport import jsonrpc

    assert vocabulary.HANDSHAKE_VERSIONS == version.HANDSHAKE_PROTOCOL_VERSIONS
    assert vocabulary.HANDSHAKE_VERSION == version.LATEST_HANDSHAKE_VERSION
    assert vocabulary.MODERN_VERSION == version.LATEST_MODERN_VERSION
    assert jsonrpc.PROTOCOL_VERSION_KEY == PROTOCOL_VERSION_META_KEY


# A server on an old SDK, reduced to what the fallback depends on: the probe breaks it
# (it exits, at once or at the next message), a fresh start without the probe reaches it.
BROKEN_BY_PROBE = """
import os
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "server/discover":
        sys.stderr.write("Traceback (most recent call last):\\n")
        sys.stderr.write("pydantic_core.ValidationError: 24 validation errors for ClientRequest\\n")
        sys.stderr.write("  For further information visit https://errors.pydantic.dev\\n")
        sys.stderr.flush()
        if HANG:
            sys.stdin.readline()
        os._exit(1)
    elif msg.get("method") == "initialize":
        if DIE_ON_INITIALIZE:
            sys.stderr.write("fatal: no configuration\\n"); sys.stderr.flush()
            os._exit(4)
        answer(msg, {**INIT, "protocolVersion": "2024-11-05"})
"""


def _broken_by_probe(tmp_path: Path, *, hang: bool = False, die: bool = False) -> ServerCommand:
    script = tmp_path / "broken_by_probe.py"
    body = BROKEN_BY_PROBE.replace("HANG", str(hang)).replace("DIE_ON_INITIALIZE", str(die))
    script.write_text(PRELUDE + textwrap.dedent(body))
    return ServerCommand((sys.executable, str(script)))


@pytest.mark.parametrize("hang", [False, True], ids=["exits", "hangs-then-exits"])
def test_a_server_the_probe_breaks_is_started_again_for_the_handshake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hang: bool
) -> None:
    monkeypatch.setattr("pytest_mcp_contracts.transport.jsonrpc.PROBE_TIMEOUT", 0.5)
    conn = open_server(
        _broken_by_probe(tmp_path, hang=hang), startup_timeout=5, max_message_bytes=1 << 20
    )
    try:
        assert conn.protocol_version == "2024-11-05"  # the older version it answered with
        assert conn.probe_failure is not None
        died = (
            "no answer to server/discover within 0.5 s, then the server exited while answering "
            "initialize (exit status 1)"
            if hang
            else "the server exited while answering server/discover (exit status 1)"
        )
        assert conn.probe_failure == (
            f"{died}; its stderr ended with "
            "'pydantic_core.ValidationError: 24 validation errors for ClientRequest'"
        )
    finally:
        conn.close()


def test_a_server_that_dies_on_both_requests_is_named_for_the_one_it_died_on(
    tmp_path: Path,
) -> None:
    with pytest.raises(ServerStartError) as raised:
        open_server(
            _broken_by_probe(tmp_path, die=True), startup_timeout=5, max_message_bytes=1 << 20
        )
    assert raised.value.message.startswith(
        "the server exited while answering initialize (exit status 4); on its first start, "
        "with the 2026 probe, the server exited while answering server/discover (exit status 1)"
    )
    assert "fatal: no configuration" in raised.value.stderr_tail


def test_initialize_offers_older_versions_to_a_server_that_refuses_the_newest(connect) -> None:
    conn = connect(
        legacy("answer(msg, {})").replace(
            'elif msg["method"] == "initialize":\n        answer(msg, INIT)',
            'elif msg["method"] == "initialize":\n'
            '        if msg["params"]["protocolVersion"] != "2025-03-26":\n'
            "            refuse(msg, -32602)\n"
            "        else:\n"
            '            answer(msg, {**INIT, "protocolVersion": "2025-03-26"})',
        )
    )
    assert conn.protocol_version == "2025-03-26"


def test_initialize_refused_in_every_version_reports_the_first_refusal(connect) -> None:
    with pytest.raises(ServerStartError, match=r"initialize handshake failed: .*-32602"):
        connect(
            legacy("answer(msg, {})").replace(
                'elif msg["method"] == "initialize":\n        answer(msg, INIT)',
                'elif msg["method"] == "initialize":\n        refuse(msg, -32602)',
            )
        )


@pytest.mark.parametrize(
    ("stderr", "words"),
    [
        (
            "  + Exception Group Traceback\n  | ExceptionGroup: unhandled errors\n"
            "    | ValueError: bad thing\n    +----------\n",
            "ValueError: bad thing",
        ),
        ("starting\nlistening on stdio\n\n", "listening on stdio"),
        ("", ""),
    ],
)
def test_last_words_are_the_last_exception_line_else_the_last_line(stderr: str, words: str) -> None:
    assert last_words(stderr) == words


def test_wait_exit_sees_an_exit_reaps_it_and_gives_up_on_a_process_that_stays() -> None:
    exits = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
    assert wait_exit(exits, 10)
    assert exits.returncode == 0  # reaped: the exit status is known
    stays = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert not wait_exit(stays, 0.2)
        assert stays.returncode is None
    finally:
        stays.kill()
        stays.wait()
    assert wait_exit(stays, 0)  # already reaped: nothing to wait for


DEAF_SERVER = """
import signal, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        answer(msg, INIT)
    elif "id" in msg:
        refuse(msg)
time.sleep(60)  # the end of its input is no reason to exit: only a signal ends it
"""


def test_a_server_that_outlived_its_grace_once_is_given_a_short_one_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command whose server did not exit at the end of its input (the Python SDK 1.6) is
    signalled after DEAF_GRACE at its later stops, not after the whole EXIT_GRACE again;
    another command still gets the whole grace, and exits within it unsignalled."""
    graces: list[float] = []

    def waited(proc: subprocess.Popen[bytes], timeout: float) -> bool:
        graces.append(timeout)
        return wait_exit(proc, timeout)

    monkeypatch.setattr(stdio, "wait_exit", waited)
    monkeypatch.setattr(stdio, "_DEAF_TO_EOF", set())
    deaf = tmp_path / "deaf.py"
    deaf.write_text(PRELUDE + textwrap.dedent(DEAF_SERVER))
    hearing = tmp_path / "hearing.py"
    hearing.write_text(PRELUDE + textwrap.dedent(legacy("refuse(msg)")))
    stops = []
    for script in (deaf, deaf, hearing):
        conn = open_stdio(
            ServerCommand((sys.executable, str(script))), startup_timeout=5, max_message_bytes=1024
        )
        graces.clear()
        conn.close()
        stops.append((graces[:], conn.returncode))
    # The first stop waits the whole grace, then signals (SIGTERM ends the sleep: -15).
    assert stops[0] == ([stdio.EXIT_GRACE, stdio.EXIT_GRACE], -15)
    assert stops[1] == ([stdio.DEAF_GRACE, stdio.EXIT_GRACE], -15)
    assert stops[2] == ([stdio.EXIT_GRACE], 0)
    assert {ServerCommand((sys.executable, str(deaf))).identity} == stdio._DEAF_TO_EOF
