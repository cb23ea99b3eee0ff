"""The pure parts of the Streamable HTTP client: header specs, environment expansion, URLs
shown in output, and reading an SSE answer (split across chunks, multi-line data, capped)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx2
import pytest

from pytest_mcp_contracts.transport.client import CallClock
from pytest_mcp_contracts.transport.errors import CallTimeout, ProtocolViolation, ServerDied
from pytest_mcp_contracts.transport.http import (
    HeaderError,
    HttpConnection,
    ServerUrl,
    display_url,
    expand,
    parse_header,
    variables,
)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("Authorization: Bearer ${TOKEN}", ("Authorization", "Bearer ${TOKEN}")),
        ("X-Api-Key:abc", ("X-Api-Key", "abc")),
        ("  X-Trace :  a:b:c  ", ("X-Trace", "a:b:c")),  # only the first colon splits
    ],
)
def test_header_specs_split_at_the_first_colon(spec: str, expected: tuple[str, str]) -> None:
    assert parse_header(spec) == expected


@pytest.mark.parametrize("spec", ["no colon", ": value", "Bad Name: x", "Ünicode: x"])
def test_malformed_header_specs_are_refused(spec: str) -> None:
    with pytest.raises(HeaderError, match="expected 'Name: value'"):
        parse_header(spec)


def test_variables_are_read_in_both_spellings_and_only_when_set() -> None:
    value = "Bearer ${TOKEN}-$SUFFIX $$ 5$"
    assert variables(value) == ["TOKEN", "SUFFIX"]
    environ = {"TOKEN": "t0k", "SUFFIX": "s"}
    assert expand("Authorization", value, environ) == "Bearer t0k-s $$ 5$"
    with pytest.raises(
        HeaderError, match="Authorization: the environment variable TOKEN is not set"
    ):
        expand("Authorization", value, {"SUFFIX": "s"})


def test_a_missing_variable_names_the_header_not_the_other_values() -> None:
    with pytest.raises(HeaderError) as caught:
        expand("X-Key", "${ABSENT}", {"OTHER": "secret-value"})
    assert "secret-value" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:pw@mcp.example.com/mcp?token=abc#x", "https://mcp.example.com/mcp"),
        ("http://127.0.0.1:8080/mcp", "http://127.0.0.1:8080/mcp"),
        ("http://[::1]:9000/mcp", "http://[::1]:9000/mcp"),
    ],
)
def test_urls_are_shown_without_credentials_query_or_fragment(url: str, shown: str) -> None:
    assert display_url(url) == shown
    assert ServerUrl.parse(url).display == shown


@pytest.mark.parametrize("url", ["ftp://host/mcp", "mcp.example.com/mcp", "http:///mcp"])
def test_only_http_urls_with_a_host_are_accepted(url: str) -> None:
    with pytest.raises(ValueError, match="http:// or https://"):
        ServerUrl.parse(url)


def _response(*pieces: bytes) -> httpx2.Response:
    """An event-stream response whose body arrives in the given pieces, as from a socket."""
    return httpx2.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=iter(pieces),
        request=httpx2.Request("POST", "http://127.0.0.1:1/mcp"),
    )


def _conn(limit: int = 1 << 20) -> HttpConnection:
    return HttpConnection(ServerUrl.parse("http://127.0.0.1:1/mcp"), max_message_bytes=limit)


def _read(conn: HttpConnection, *pieces: bytes, msg_id: int = 7) -> dict[str, object]:
    return conn._read_sse(_response(*pieces), "tools/call", msg_id, CallClock(60))


def test_sse_answer_split_across_chunks_with_multi_line_data() -> None:
    answer = {"jsonrpc": "2.0", "id": 7, "result": {"content": []}}
    text = json.dumps(answer, indent=1).encode()  # several lines: several data: fields
    event = b"event: message\r\n" + b"".join(b"data: " + ln + b"\r\n" for ln in text.splitlines())
    stream = b": keep-alive\n\n" + event + b"\r\n"
    pieces = [stream[i : i + 5] for i in range(0, len(stream), 5)]
    assert _read(_conn(), *pieces) == answer


def test_sse_notifications_and_other_ids_come_before_the_answer() -> None:
    conn = _conn()
    events = [
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}},
        {"jsonrpc": "2.0", "id": 99, "result": {}},
        {"jsonrpc": "2.0", "id": 7, "result": {"ok": True}},
    ]
    body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
    assert _read(conn, body) == events[2]
    assert conn.garbage_count == 1  # the answer to an id we never sent
    assert "unknown request id 99" in conn.garbage[0]
    # Worded for HTTP, not as lines on stdout.
    assert conn.stray_note(1, list(conn.garbage)) == (
        "wrote 1 message(s) in its HTTP answers that are not JSON-RPC messages for this "
        "client: 'a response to an unknown request id 99'"
    )


def test_sse_stream_that_ends_without_the_answer_is_a_dead_server() -> None:
    with pytest.raises(ServerDied, match="closed the event stream without answering tools/call"):
        _read(_conn(), b'data: {"jsonrpc":"2.0","method":"notifications/message"}\n\n')


def test_sse_event_over_the_cap_is_refused_without_holding_it() -> None:
    big = b"data: " + b"x" * 5000 + b"\n"
    with pytest.raises(ProtocolViolation, match="over the 1000-byte limit"):
        _read(_conn(limit=1000), big, big, b"\n")


def test_sse_line_without_a_newline_over_the_cap_is_refused() -> None:
    with pytest.raises(ProtocolViolation, match="over the 1000-byte limit"):
        _read(_conn(limit=1000), b"data: " + b"y" * 600, b"y" * 600)


def test_sse_bare_cr_line_endings_end_lines_and_events() -> None:
    # The SSE spec allows CR alone as a line ending; the SDK's parser honours it.
    answer = {"jsonrpc": "2.0", "id": 7, "result": {"ok": True}}
    body = b"event: message\rdata: " + json.dumps(answer).encode() + b"\r\r"
    assert _read(_conn(), body) == answer


def test_sse_crlf_split_across_chunks_is_one_line_ending() -> None:
    # A CR at the end of one chunk and its LF at the start of the next must not be read as
    # two line endings (which would end the event early with half of its data).
    answer = {"jsonrpc": "2.0", "id": 7, "result": {"text": "a\nb"}}
    lines = json.dumps(answer, indent=1).encode().splitlines()
    pieces: list[bytes] = []
    for line in lines:
        pieces += [b"data: " + line + b"\r", b"\n"]
    pieces += [b"\r", b"\n"]
    assert _read(_conn(), *pieces) == answer


def test_sse_deadline_is_checked_while_the_stream_trickles() -> None:
    conn = _conn()

    def trickle() -> Iterator[bytes]:
        while True:
            yield b": still here\n"

    response = httpx2.Response(
        200,
        headers={"content-type": "text/event-stream"},
        content=trickle(),
        request=httpx2.Request("POST", "http://127.0.0.1:1/mcp"),
    )
    with pytest.raises(CallTimeout, match=r"no answer to tools/call within 0\.2 s"):
        conn._read_sse(response, "tools/call", 7, CallClock(0.2))
