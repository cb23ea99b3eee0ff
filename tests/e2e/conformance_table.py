"""What the official conformance suite and this plugin each flag on the violations
tests/servers/protocol/raw_http.py plants: the table tests/e2e/test_conformance_agreement.py
holds both tools to, and docs/explanation/conformance.md shows (rendered by
docs/_hooks/generated.py at build time, so the page cannot drift from what the test checks).

Standard library only: the docs build imports it without pytest or the package's
dependencies.
"""

from __future__ import annotations

from dataclasses import dataclass

# The server's name in this plugin's node ids: its serverInfo.name.
SERVER = "raw-http"
# The suite: @modelcontextprotocol/conformance, at the version tests/servers/conformance pins.
SUITE_VERSIONS = ("2025-06-18", "2025-11-25")
# The suite's server scenarios (its active suite) the raw server implements: their fixed
# names (test_simple_text, test://static-text, ...) are the raw server's. The other
# scenarios call tools, prompts and resources of the suite's "everything" server by name.
SERVED = {
    "server-initialize": "2025-06-18",
    "server-session-lifecycle": "2025-06-18",
    "logging-set-level": "2025-06-18",
    "ping": "2025-06-18",
    "tools-list": "2025-06-18",
    "tools-call-simple-text": "2025-06-18",
    "tools-call-with-logging": "2025-06-18",
    "tools-call-with-progress": "2025-06-18",
    "resources-list": "2025-06-18",
    "resources-read-text": "2025-06-18",
    "prompts-list": "2025-06-18",
    "dns-rebinding-protection": "2025-11-25",  # the first version the suite runs it at
}
# The check the suite adds to every scenario: every message the server sent, validated
# against the definition for it in the version's schema.json.
WIRE = "wire-schema-valid"
# What a row's pending check waits for: set on this plugin's side where the check is not
# there yet (the test marks it xfail, strict, with this reason).
PENDING = "lands with the schema validation"


@dataclass(frozen=True)
class Row:
    violation: str  # a key of raw_http.VIOLATIONS
    breaks: str  # the definition or rule, as the docs say it
    # (scenario, check id) -> words its error message holds; empty: the suite cannot see it.
    suite: dict[tuple[str, str], str]
    # node id after "mcp:raw-http::" -> words its failure holds; empty: the plugin cannot.
    ours: dict[str, tuple[str, ...]]
    why: str  # how each sees it, or why one cannot: for the docs
    pending: bool = False  # ours is written as it should be and fails until the check lands
    since: str = "2025-06-18"  # the first version the suite flags it at


AGREEMENT = (
    Row(
        "priority",
        "`Annotations.priority` in 0..1, in a `CallToolResult`'s content block",
        {("tools-call-simple-text", WIRE): "CallToolResult/content/0/annotations/priority"},
        {"test_simple_text::contract": ("CallToolResult", "priority")},
        "both validate the result against the version's schema",
    ),
    Row(
        "log_level",
        "`LoggingMessageNotification`: `level` is required",
        {
            ("tools-call-with-logging", WIRE): "LoggingMessageNotification/params: "
            "must have required property 'level'",
            ("tools-call-with-logging", "tools-call-with-logging"): "No log notifications",
        },
        {"test_tool_with_logging::contract": ("LoggingMessageNotification", "level")},
        "both validate the notification that came during the call; the suite's SDK client "
        "also drops it, so its scenario sees no log message",
    ),
    Row(
        "progress",
        "`ProgressNotification`: `progress` is a number",
        {
            ("tools-call-with-progress", WIRE): "ProgressNotification/params/progress: "
            "must be number",
            ("tools-call-with-progress", "tools-call-with-progress"): "No progress notifications",
        },
        {"test_tool_with_progress::contract": ("ProgressNotification", "progress")},
        "both validate the notification that came during the call; the suite's SDK client "
        "also drops it",
    ),
    Row(
        "unknown_method",
        "JSON-RPC 2.0: a method the server does not know is answered with -32601",
        {},
        {"protocol": ("-32601", "-32603")},
        "the suite never sends a method the server does not know; the plugin sends one on purpose",
    ),
    Row(
        "read_uri",
        "`ReadResourceResult`: each content's `uri` is required",
        {
            ("resources-read-text", WIRE): "ReadResourceResult/contents/0: "
            "must have required property 'uri'",
            ("resources-read-text", "resources-read-text"): "Content missing uri",
        },
        {"resource:test_static-text::read": ("mcp/required-member", "uri")},
        "both: the suite by schema and by its scenario, the plugin by its read check",
    ),
    Row(
        "input_schema",
        "`Tool`: `inputSchema` is required",
        {
            ("tools-list", WIRE): "ListToolsResult/tools/0: "
            "must have required property 'inputSchema'",
            ("tools-list", "tools-list"): "Tool 0: missing inputSchema",
        },
        {
            "test_simple_text::schema": ("mcp/listing-entry", "inputSchema"),
            "test_simple_text::contract": ("cannot be called",),
        },
        "both: the suite by schema and by its scenario, the plugin by its listing check "
        "(and the tool's calls are not made)",
    ),
    Row(
        "jsonrpc",
        'JSON-RPC 2.0: `"jsonrpc": "2.0"` on every response',
        {("resources-list", "resources-list"): r"expected \"2.0\""},
        {"listing:resources::schema": ('"jsonrpc" must be "2.0"',)},
        "both; in the suite, the SDK client's transport refuses the message before the "
        "schema check sees it, so its scenario fails, not `wire-schema-valid`",
    ),
    Row(
        "result_array",
        "JSON-RPC 2.0 and `Result`: a result is an object",
        {("prompts-list", "prompts-list"): "expected object, received array"},
        {"listing:prompts::schema": ("prompts/list is not an object",)},
        "both; in the suite, as for `jsonrpc`, its scenario fails, not `wire-schema-valid`",
    ),
    Row(
        "any_host",
        "Streamable HTTP: a local server rejects a request from another Host or Origin "
        "(DNS rebinding)",
        {
            ("dns-rebinding-protection", "localhost-host-rebinding-rejected"): "Expected "
            "HTTP 4xx for invalid Host/Origin headers, got 200"
        },
        {},
        "the suite sends a request with a foreign Host and Origin (from 2025-11-25); the "
        "plugin does not",
        since="2025-11-25",
    ),
    Row(
        "session_kept",
        "Streamable HTTP: a request with an ended session's id gets 404",
        {
            ("server-session-lifecycle", "server-session-terminated-returns-404"): "Expected "
            "404 on terminated session ID, got 200"
        },
        {},
        "the suite ends a session and uses it again; the plugin ends its sessions without "
        "looking back",
    ),
)


def _cell(found: list[str]) -> str:
    return "<br>".join(found) if found else "no"


def markdown() -> str:
    """The table as the docs page shows it: a row per violation, what each tool flags."""
    lines = [
        "| the server breaks | the official suite flags | pytest-mcp-contracts flags | how |",
        "|---|---|---|---|",
    ]
    for row in AGREEMENT:
        suite = [f"`{scenario}`: `{check}`" for scenario, check in row.suite]
        if suite and row.since != SUITE_VERSIONS[0]:
            suite[-1] += f" (from {row.since})"
        ours = [f"`{SERVER}::{node}`" for node in row.ours]
        if row.pending:
            ours = [f"{node} (pending: issue 47)" for node in ours]
        lines.append(f"| {row.breaks} | {_cell(suite)} | {_cell(ours)} | {row.why} |")
    return "\n".join(lines) + "\n"
