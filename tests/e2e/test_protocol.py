"""The protocol item (mcp:<server>::protocol, runs/protocol, judges/protocol_rules): the raw
server of tests/servers/protocol/raw_stdio.py in each protocol version passes it clean, and
each of its breaks fails the protocol item, naming the rule, and no other item (but where an
existing check sees the same evidence: noted per case); the SDK fixture servers pass it or
fail it only where the spec backs the failure."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.conftest import NO_SEQUENCES, server_command, without_durations

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
PROTOCOL = "mcp:raw-stdio::protocol"
SCHEMA = json.loads(
    (Path(__file__).parents[2] / "docs" / "run-report.schema.json").read_text(encoding="utf-8")
)

Run = Callable[..., pytest.RunResult]


@pytest.fixture
def run_protocol(pytester: pytest.Pytester) -> Run:
    """pytest on one server command (or on what ``args`` name), the protocol item on, few
    examples."""

    def run(command: str, *args: str) -> pytest.RunResult:
        target = [f"--mcp-server={command}"] if command else []  # "": args name it
        return pytester.runpytest_subprocess(
            *target,
            "-p",
            "no:randomly",
            NO_SEQUENCES,
            "--mcp-protocol=on",
            "--mcp-max-examples=3",
            "-rfEw",
            *args,
            timeout=120,
        )

    return run


def raw(version: str, broken: str = "none") -> str:
    return f"{server_command('protocol/raw_stdio.py')} --version {version} --break {broken}"


def failed(result: pytest.RunResult) -> set[str]:
    return set(re.findall(r"^FAILED (\S+)", result.stdout.str(), re.MULTILINE))


@pytest.mark.parametrize("version", VERSIONS)
def test_the_clean_raw_server_passes_every_rule(run_protocol: Run, version: str) -> None:
    result = run_protocol(raw(version))
    assert failed(result) == set(), result.stdout.str()
    out = result.stdout.str()
    assert "protocol check: every rule held" in out
    assert "McpContractWarning" not in out
    assert result.ret == 0


# (version, break, the other item that sees the same evidence, or None)
FAILING = [
    ("2025-06-18", "arguments-null", None),
    ("2025-06-18", "arguments-array", None),  # the server dies: the item starts another
    ("2025-06-18", "missing-name", None),
    ("2025-11-25", "unknown-tool", None),
    ("2024-11-05", "unknown-method", None),
    # A loop in a listing the server declared fails its listing item already (discover).
    ("2024-11-05", "pagination", "mcp:raw-stdio::listing:resources::schema"),
    # A prompt listed twice fails its schema item already (mcp/duplicate).
    ("2026-07-28", "repeated-entry", "mcp:raw-stdio::prompt:greet::schema"),
    ("2026-07-28", "per-connection", None),
    ("2026-07-28", "unsupported-version", None),
    ("2026-07-28", "resource-not-found", None),
    ("2026-07-28", "discover", None),
    ("2026-07-28", "error-codes", None),
]


@pytest.mark.parametrize(("version", "broken", "also"), FAILING)
def test_each_break_fails_the_protocol_item_naming_its_rule(
    run_protocol: Run, version: str, broken: str, also: str | None
) -> None:
    result = run_protocol(raw(version, broken))
    out = result.stdout.str()
    assert failed(result) == {PROTOCOL, *([also] if also else [])}, out
    assert f"FAILED {PROTOCOL} - [protocol/{broken}]" in out
    assert f"protocol check: 1 rule(s) broken: protocol/{broken}" in out
    # The finding says where the spec says it, what was sent and what came back.
    assert re.search(rf"\[protocol/{broken}\] .*\n  at .*(§|server/discover)", out), out


def test_a_listing_grown_within_a_2026_connection_is_a_side_effect(run_protocol: Run) -> None:
    # 2026-07-28: a listing MUST NOT vary "as a side effect of other requests on the
    # connection"; another connection does not see the change.
    result = run_protocol(raw("2026-07-28", "list-changed"))
    assert failed(result) == {PROTOCOL}
    assert "[protocol/per-connection] tools/list changed on the connection" in result.stdout.str()


def test_error_codes_names_the_code_the_spec_does_not_define(run_protocol: Run) -> None:
    out = run_protocol(raw("2026-07-28", "error-codes")).stdout.str()
    assert "tools/call was answered with -32050, a code the specification does not define" in out
    # The same answer is a code other than -32602 for a call without a name: a warning.
    assert "McpContractWarning: raw-stdio: protocol/missing-name: " in out


# (version, break, the rule warned, other items that fail)
WARNED = [
    # Before 2026-07-28 a change within a connection is allowed; listChanged: true promised
    # a notification (SHOULD).
    ("2025-06-18", "list-changed", "list-changed", set()),
    # -32002 is a SHOULD before 2026-07-28.
    ("2025-03-26", "resource-not-found", "resource-not-found", set()),
    # No version before 2026-07-28 forbids an entry on two pages in words.
    ("2025-11-25", "repeated-entry", "repeated-entry", {"mcp:raw-stdio::prompt:greet::schema"}),
]


@pytest.mark.parametrize(("version", "broken", "rule", "others"), WARNED)
def test_what_the_spec_asks_with_should_warns(
    run_protocol: Run, version: str, broken: str, rule: str, others: set[str]
) -> None:
    result = run_protocol(raw(version, broken))
    out = result.stdout.str()
    assert failed(result) == others, out
    assert f"McpContractWarning: raw-stdio: protocol/{rule}: " in out
    assert f"protocol check: 1 rule(s) warned: protocol/{rule}" in out


@pytest.mark.parametrize("broken", ["per-connection", "unsupported-version"])
def test_a_break_of_2026_alone_is_not_judged_on_a_handshake_version(
    run_protocol: Run, broken: str
) -> None:
    result = run_protocol(raw("2025-06-18", broken))
    assert failed(result) == set() and "protocol check: every rule held" in result.stdout.str()


def test_the_run_report_carries_the_check_and_its_findings(
    run_protocol: Run, pytester: pytest.Pytester
) -> None:
    run_protocol(raw("2025-06-18", "missing-name"), "--mcp-report=report.json")
    document: dict[str, Any] = json.loads((pytester.path / "report.json").read_text("utf-8"))
    assert list(Draft202012Validator(SCHEMA).iter_errors(document)) == []
    server = document["servers"][0]
    assert server["protocol"] == "2025-06-18"  # the negotiated version, as before
    assert server["protocol_check"]["outcome"] == "failed"
    assert server["protocol_check"]["failure"] == {
        "kind": "protocol_violation",
        "severity": "high",
    }
    (finding,) = server["protocol_findings"]
    assert finding["rule"] == "protocol/missing-name"
    assert finding["severity"] == "error"
    assert finding["where"].startswith("2025-06-18 server/tools §Error Handling")
    assert finding["details"][0].startswith('sent: tools/call {"arguments": {}}')


def test_off_collects_no_protocol_item(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        f"--mcp-server={raw('2025-06-18', 'missing-name')}",
        NO_SEQUENCES,
        "--mcp-protocol=off",
        "--co",
        "-q",
    )
    assert "::protocol" not in result.stdout.str()


# -- the SDK fixture servers ---------------------------------------------------------------


def test_the_python_sdk_mcpserver_passes_with_warnings(run_protocol: Run) -> None:
    # MCPServer answers an unknown tool and arguments: null with isError results: the spec
    # lists both among the protocol errors, without a MUST.
    result = run_protocol(server_command("sdks/mcp2_mcpserver.py"), "-k", "protocol")
    out = result.stdout.str()
    assert result.ret == 0, out
    assert "protocol/unknown-tool: tools/call of an unknown tool was answered with an isEr" in out


def test_the_python_sdk_lowlevel_server_answers_an_unknown_tool_with_an_internal_error(
    run_protocol: Run,
) -> None:
    # The low-level Server turns the handler's KeyError into -32603; the spec's protocol
    # error for an unknown tool is -32602 (every version's server/tools §Error Handling).
    result = run_protocol(server_command("sdks/mcp2_lowlevel.py"), "-k", "protocol")
    out = result.stdout.str()
    assert failed(result) == {"mcp:mcp2.3.0-lowlevel::protocol"}, out
    assert "protocol check: 1 rule(s) broken: protocol/unknown-tool" in out


def broken_rules(result: pytest.RunResult) -> set[str]:
    """The rules the summary's protocol line names as broken."""
    found = re.search(r"protocol check: \d+ rule\(s\) broken: ([^;(]+)", result.stdout.str())
    return set() if found is None else {rule.strip() for rule in found.group(1).split(",")}


def test_the_old_python_sdk_leaves_malformed_requests_unanswered(
    run_protocol: Run, old_sdk_command: Callable[[str], str]
) -> None:
    # mcp 1.6 drops a request that fails its own validation, and a method it does not know,
    # without a reply: JSON-RPC 2.0 says the server MUST reply.
    result = run_protocol(old_sdk_command("server.py"), "-k", "protocol", "--mcp-call-timeout=2")
    out = result.stdout.str()
    assert broken_rules(result) == {
        "protocol/missing-name",
        "protocol/arguments-array",
        "protocol/unknown-method",
    }, out
    assert "tools/call without a name got no answer (no answer within 2 s)" in out
    assert "JSON-RPC 2.0 §5 Response object (the Server MUST reply with a Response)" in out


# The TypeScript SDK: what each generation answers, by its bundle (tests/servers/ts_legacy).
TS_BROKEN = {
    # 1.x validates the request with zod and sends the failure as -32603.
    "sdk_1_32.mjs": {
        "protocol/missing-name",
        "protocol/arguments-null",
        "protocol/arguments-array",
    },
    # 1.0.1 also answers an unknown tool with the handler's TypeError, as -32603.
    "sdk_1_0_1.mjs": {
        "protocol/missing-name",
        "protocol/unknown-tool",
        "protocol/arguments-null",
        "protocol/arguments-array",
    },
    "sdk_2.mjs": set(),
}


@pytest.mark.parametrize("bundle", list(TS_BROKEN))
def test_the_typescript_sdk_generations(
    run_protocol: Run, ts_servers: Callable[[str], str], bundle: str
) -> None:
    result = run_protocol(ts_servers(bundle), "-k", "protocol")
    out = result.stdout.str()
    assert broken_rules(result) == TS_BROKEN[bundle], out
    if TS_BROKEN[bundle]:
        assert "was answered with -32603 (internal error): the client's mistake is -32602" in out
    else:
        assert result.ret == 0, out


def test_the_python_sdk_over_http_refuses_headers_that_disagree_with_the_body(
    run_protocol: Run, http_server: Callable[..., str]
) -> None:
    # The protocol item opens a session of its own; the SDK checks Mcp-Method and Mcp-Name
    # against the body (basic/transports/streamable-http §Server Validation).
    url = http_server("param_headers.py")
    result = run_protocol("", "--mcp-url", url, "-k", "protocol", "-rP")
    out = result.stdout.str()
    assert "headers (2026-07-28 basic/transports/streamable-http §Server Validation)" in out
    assert "protocol/headers" not in broken_rules(result) and "[protocol/headers]" not in out


def test_under_xdist_the_run_report_is_the_serial_ones(
    run_protocol: Run, pytester: pytest.Pytester
) -> None:
    def report(name: str, *args: str) -> Any:
        run_protocol(raw("2025-06-18", "list-changed"), f"--mcp-report={name}", *args)
        return without_durations(json.loads((pytester.path / name).read_text("utf-8")))

    serial = report("serial.json")
    shutil.rmtree(pytester.path / "mcp-contracts")  # the same start: nothing recorded
    assert report("xdist.json", "-n", "2") == serial
    (found,) = serial["servers"][0]["protocol_findings"]
    assert found["rule"] == "protocol/list-changed" and found["severity"] == "warning"


# (version, break, the items it fails, the definition each failure names): what the
# version's schema.json refuses (schema/spec), in a call's result or what came during it
# (the calling check), in a listing entry (its schema item), elsewhere (this item).
ECHO = "mcp:raw-stdio::echo::contract"
SCHEMA_BREAKS = [
    ("2025-06-18", "block-priority", {ECHO}, "CallToolResult"),
    ("2025-06-18", "block-audience", {ECHO}, "CallToolResult"),
    ("2025-06-18", "log-level", {ECHO}, "LoggingMessageNotification"),
    ("2025-06-18", "progress-value", {ECHO}, "ProgressNotification"),
    ("2026-07-28", "result-type", {ECHO}, "CallToolResult"),
    ("2024-11-05", "list-meta", {PROTOCOL}, "ListToolsResult"),
    ("2025-11-25", "server-info", {PROTOCOL}, "InitializeResult"),
    ("2026-07-28", "server-info", {PROTOCOL}, "DiscoverResult"),
    ("2025-03-26", "tool-annotation", {"mcp:raw-stdio::echo::schema"}, "Tool"),
]


@pytest.mark.parametrize(("version", "broken", "items", "definition"), SCHEMA_BREAKS)
def test_each_schema_break_fails_the_item_it_belongs_to_naming_the_definition(
    run_protocol: Run, version: str, broken: str, items: set[str], definition: str
) -> None:
    out = run_protocol(raw(version, broken)).stdout.str()
    assert set(re.findall(r"^FAILED (\S+)", out, re.MULTILINE)) == items, out
    for item in items:
        assert f"FAILED {item} - [mcp/schema]" in out
    said = rf"the server's message breaks the protocol's schema: .* breaks {definition} "
    assert re.search(said + rf"\({version} schema\) at \$", out), out


def test_a_read_without_uri_fails_the_read_in_the_hand_written_words(run_protocol: Run) -> None:
    # The read check says more than the schema (mcp/required-member, with its fix): the
    # schema's verdict is held back so one defect fails its item once.
    out = run_protocol(raw("2025-06-18", "read-uri")).stdout.str()
    reads = {"mcp:raw-stdio::resource:memo_one::read", "mcp:raw-stdio::resource:memo_two::read"}
    assert set(re.findall(r"^FAILED (\S+)", out, re.MULTILINE)) == reads, out
    assert "[mcp/required-member]" in out
    assert "[mcp/schema]" not in out
