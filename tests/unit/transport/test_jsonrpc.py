"""What the shared JSON-RPC client does with a message that breaks the negotiated version's
schema: notifications and requests during a call go on the call's transcript, everything
else not a call's result on the connection, and an error object that is not one is a
protocol violation of the request it answers."""

# ruff: noqa: E501

from __future__ import annotations

import pytest

from pytest_mcp_contracts.transport.errors import ProtocolViolation, RpcError
from tests.unit.transport import test_client
from tests.unit.transport.test_client import Connect, call
from tests.unit.transport.test_stdio import legacy

connect = test_client.connect  # the scripted stdio servers' fixture

LOG_WITHOUT_LEVEL = (
    'send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x"}})'
)


def test_a_notification_during_a_call_is_the_call_s(connect: Connect) -> None:
    conn = connect(
        legacy(
            f"""if msg["method"] == "tools/call":
            {LOG_WITHOUT_LEVEL}
            answer(msg, {{"content": []}})
        else:
            answer(msg, {{}})"""
        )
    )
    result, record = call(conn)
    assert result == {"content": []}
    assert [(v.definition, v.path) for v in record.violations] == [
        ("LoggingMessageNotification", "$.params")
    ]
    assert conn.violations == []


def test_what_comes_outside_a_call_is_the_connection_s(connect: Connect) -> None:
    conn = connect(
        legacy(
            f"""if msg["method"] == "tools/list":
            {LOG_WITHOUT_LEVEL}
            answer(msg, {{"tools": [{{"name": "t"}}], "nextCursor": 7}})
        else:
            answer(msg, {{}})"""
        )
    )
    conn.request("tools/list", {}, timeout=5)
    found = {(v.definition, v.path) for v in conn.violations}
    # The entry without inputSchema is its schema item's to judge, not the listing's.
    assert found == {
        ("LoggingMessageNotification", "$.params"),
        ("ListToolsResult", "$.nextCursor"),
    }
    assert conn.violation_count == 2


def test_an_error_that_is_no_error_object_breaks_the_protocol(connect: Connect) -> None:
    conn = connect(
        legacy(
            """send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": "E42", "message": "no"}})"""
        )
    )
    # A call's: the call broke the protocol (its check fails).
    with pytest.raises(
        ProtocolViolation, match=r"breaks JSONRPCError \(2025-06-18 schema\) at \$\.error\.code"
    ):
        call(conn)
    # Another request's: refused as it said, and kept on the connection.
    with pytest.raises(RpcError):
        conn.request("tools/list", {}, timeout=5)
    assert [(v.definition, v.path) for v in conn.violations] == [("JSONRPCError", "$.error.code")]


def test_progress_for_a_token_never_sent_is_a_violation(connect: Connect) -> None:
    conn = connect(
        legacy(
            """send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "other", "progress": 1}})
        token = msg["params"]["_meta"]["progressToken"]
        send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1}})
        answer(msg, {"content": []})"""
        )
    )
    _, record = call(conn)
    assert record.progress == 1
    assert [v.path for v in conn.violations] == ["$.params.progressToken"]
    assert "'other'" in conn.violations[0].message or '"other"' in conn.violations[0].message
