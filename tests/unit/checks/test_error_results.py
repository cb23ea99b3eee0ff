"""isError results: a refusal, or a server failure an SDK wrapped (error_results)."""

from __future__ import annotations

import json

import pytest

from pytest_mcp_contracts.judges.error_results import judge_error_result
from pytest_mcp_contracts.project import WARNABLE_CLASSES
from pytest_mcp_contracts.text import plain_traceback
from pytest_mcp_contracts.vocabulary import EntryKind, ErrorClass

# The traceback MCPServer (mcp 2.3) logs when a tool's return value fails its output model.
OUTPUT_TRACEBACK = """\
ERROR:mcp.server.mcpserver.server:Tool 'price_quote' raised an unexpected exception
Traceback (most recent call last):
  File ".../mcp/server/mcpserver/tools/base.py", line 192, in run
    result = self.fn_metadata.convert_result(result)
  File ".../pydantic/type_adapter.py", line 410, in validate_python
    return self.validator.validate_python(
pydantic_core._pydantic_core.ValidationError: 1 validation error for Quote
total
  Input should be a valid number, unable to parse string as a number [type=float_parsing]
    For further information visit https://errors.pydantic.dev/2.14/v/float_parsing

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File ".../mcp/server/mcpserver/tools/base.py", line 213, in run
    raise UnexpectedToolError(f"Error executing tool {self.name}") from exc
mcp.server.mcpserver.exceptions.UnexpectedToolError: Error executing tool price_quote
"""

CRASH_TRACEBACK = """\
ERROR:mcp.server.mcpserver.server:Tool 'initial' raised an unexpected exception
Traceback (most recent call last):
  File "server.py", line 12, in initial
    return word[0]
IndexError: string index out of range

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
mcp.server.mcpserver.exceptions.UnexpectedToolError: Error executing tool initial
"""


# The same through Rich (installed with mcp[cli]): wrapped at 80 columns, framed, indented.
RICH_TRACEBACK = """\
[11/22/26 19:23:31] ERROR    Tool 'initial' raised an unexpected   server.py:455
                             exception
                             ╭─ Traceback (most recent call last─╮
                             │ /srv/server.py:8 in initial       │
                             ╰───────────────────────────────────╯
                             IndexError: string index out of range

                             The above exception was the direct
                             cause of the following exception:

                             ╭─ Traceback (most recent call last─╮
                             ╰───────────────────────────────────╯
                             UnexpectedToolError: Error executing
                             tool initial
"""


def judge(text: str, stderr: str | None = None, tool: str = "t"):  # type: ignore[no-untyped-def]
    # As a call's stderr reaches the judge: rich's boxes rewritten (transport/managed).
    stderr = plain_traceback(stderr) if stderr is not None else None
    return judge_error_result(
        tool, {"isError": True, "content": [{"type": "text", "text": text}]}, stderr
    )


def test_python_sdk_crash_is_certain_with_the_root_exception_from_stderr() -> None:
    verdict = judge("Error executing tool initial", CRASH_TRACEBACK, tool="initial")
    assert verdict.kind is ErrorClass.UNEXPECTED_EXCEPTION and verdict.certain
    assert verdict.exception == "IndexError: string index out of range"
    assert "raised by the language runtime in the tool's own code" in verdict.evidence
    assert "server.py:12 (return word[0])" in verdict.evidence


def test_an_sdk_wrapper_alone_is_no_evidence_of_a_crash() -> None:
    # Over HTTP there is no stderr: "Error executing tool <name>" says that an exception was
    # raised (MCPServer 2.x masks every one that is not a ToolError), not which kind.
    verdict = judge("Error executing tool initial", None, tool="initial")
    assert verdict.kind is ErrorClass.SUSPECT and not verdict.certain


def test_rich_formatted_logs_are_read_too() -> None:
    verdict = judge("failed", RICH_TRACEBACK, tool="initial")
    assert verdict.kind is ErrorClass.UNEXPECTED_EXCEPTION
    assert "Python traceback" in verdict.evidence
    assert verdict.exception == "IndexError: string index out of range"


def test_python_sdk_output_model_failure_names_the_field() -> None:
    verdict = judge("Error executing tool price_quote", OUTPUT_TRACEBACK, tool="price_quote")
    assert verdict.kind is ErrorClass.OUTPUT_INVALID
    assert verdict.paths == (
        "$.total: Input should be a valid number, unable to parse string as a number",
    )


def test_typescript_sdk_output_validation_names_the_field() -> None:
    text = (
        "MCP error -32602: Output validation error: Invalid structured content for tool "
        "price_quote: Invalid input: expected number, received string at total"
    )
    verdict = judge(text)
    assert verdict.kind is ErrorClass.OUTPUT_INVALID
    assert verdict.paths == ("$.total: Invalid input: expected number, received string",)


@pytest.mark.parametrize(
    "text",
    [
        "Cannot read properties of undefined (reading 'toUpperCase')",  # TypeScript SDK
        "items.map is not a function",
        "Error executing tool t: 'NoneType' object has no attribute 'id'",  # FastMCP 1.x
        "Error executing tool t: list index out of range",
        "Error executing tool t: 'id'",  # FastMCP 1.x: a KeyError says only the key
        "Error calling tool 'lookup': division by zero",  # fastmcp 2-4
        "MCP error -32603: Cannot read properties of null (reading 'x')",
        "panic recovered in lookup tool handler: runtime error: index out of range",  # mcp-go
        "runtime error: invalid memory address or nil pointer dereference",  # Go
        "Object reference not set to an instance of an object",  # .NET
        "called `Option::unwrap()` on a `None` value",  # Rust
        "Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'id'",
        "TypeError: x is undefined\n    at lookup (/srv/tools.js:10:5)",
        "Failed to look it up: list index out of range",  # a catch-all's neutral wrapper
    ],
)
def test_runtime_and_sdk_crash_wordings_are_certain(text: str) -> None:
    assert judge(text, tool="lookup").kind is ErrorClass.UNEXPECTED_EXCEPTION


@pytest.mark.parametrize(
    "text",
    [
        "Error calling tool 'lookup'",  # fastmcp, mask_error_details
        "An error occurred invoking 'lookup'.",  # C#
        "Internal error calling tool lookup",  # Ruby
        "Error executing tool lookup: null",  # Kotlin, an exception without a message
    ],
)
def test_a_wrapper_without_the_message_is_suspect(text: str) -> None:
    verdict = judge(text, tool="lookup")
    assert verdict.kind is ErrorClass.SUSPECT and not verdict.certain


@pytest.mark.parametrize(
    "text",
    [
        # fastmcp 3.x renders a ValueError a tool raises to refuse as a crash's wrapper
        "Error calling tool 'search': limit must be at least 1",
        "Error executing tool search: limit must be at least 1",  # FastMCP in mcp 1.x
        # The server caught the runtime's error and framed it as a refused input.
        "invalid arguments: '<' not supported between instances of 'str' and 'int'",
        "Error calling tool 'sort': Invalid key: 'NoneType' object is not subscriptable",
    ],
)
def test_a_wrapper_is_neutral_and_a_refusal_framing_wins(text: str) -> None:
    verdict = judge(text, tool="search")
    assert verdict.kind is ErrorClass.REFUSAL, verdict


PLAIN_DELIBERATE = """\
ERROR:server:Tool open_file failed
Traceback (most recent call last):
  File "/srv/app/server.py", line 41, in logged
    return fn(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^
  File "/srv/app/tools.py", line 12, in open_file
    raise RuntimeError("path must be absolute")
RuntimeError: path must be absolute
"""

PLAIN_LIBRARY = """\
Traceback (most recent call last):
  File "/srv/app/tools.py", line 20, in load
    return json.loads(text)
  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
  File "/usr/lib/python3.11/json/decoder.py", line 355, in raw_decode
    raise JSONDecodeError("Expecting value", s, err.value) from None
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)
"""

# A refusal in the tool's own words, raised from the runtime's error it caught; the SDK's
# wrapper around both (mcp 1.x FastMCP raises ToolError "from" it) is skipped.
CHAINED_REFUSAL = """\
Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/notes_server/store.py", line 30, in get
    return self.notes[note_id]
           ~~~~~~~~~~^^^^^^^^^
KeyError: 'n-9'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/mcp/server/fastmcp/tools/base.py", line 90, in run
    return await self.fn_metadata.call_fn_with_arg_validation(
  File "/venv/lib/python3.11/site-packages/notes_server/store.py", line 32, in get
    raise ValueError(f"no note {note_id!r}")
ValueError: no note 'n-9'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/mcp/server/fastmcp/tools/base.py", line 94, in run
    raise ToolError(f"Error executing tool {self.name}: {e}") from e
mcp.server.fastmcp.exceptions.ToolError: Error executing tool get: no note 'n-9'
"""

# Rich, as MCPServer logs through it when rich is installed (log columns, box, guides).
RICH_DELIBERATE = """\
[12/01/26 15:41:11] ERROR    Tool 'refuse' raised an unexpected exception   server.py:14
                             ╭──── Traceback (most recent call last) ────╮
                             │ /srv/server.py:7 in refuse                │
                             │                                           │
                             │    6 │   if limit < 1:                   │
                             │ ❱  7 │   │   raise ValueError("limit mus │
                             │    8 │   return limit                    │
                             ╰───────────────────────────────────────────╯
                             ValueError: limit must be at least 1
"""


@pytest.mark.parametrize("stderr", [PLAIN_DELIBERATE, CHAINED_REFUSAL, RICH_DELIBERATE])
def test_a_deliberate_raise_is_a_refusal_though_its_traceback_was_logged(stderr: str) -> None:
    verdict = judge("Error executing tool t", stderr, tool="t")
    assert verdict.kind is ErrorClass.REFUSAL, verdict
    assert "raised on purpose by the tool's own code" in verdict.evidence


def test_an_exception_that_escaped_a_library_is_a_crash() -> None:
    verdict = judge("could not load", PLAIN_LIBRARY)
    assert verdict.kind is ErrorClass.UNEXPECTED_EXCEPTION
    assert "escaped from a library" in verdict.evidence
    assert verdict.exception.startswith("json.decoder.JSONDecodeError: Expecting value")


def test_a_traceback_on_stderr_during_the_call_is_judged_by_its_raise_site() -> None:
    crash = (
        'Traceback (most recent call last):\n  File "x.py", line 3, in f\n'
        "    return d[k]\nKeyError: 3\n"
    )
    verdict = judge("could not look that up", crash)
    assert verdict.kind is ErrorClass.UNEXPECTED_EXCEPTION
    assert verdict.exception == "KeyError: 3"
    refused = crash.replace("return d[k]", 'raise KeyError("no such key")')
    assert judge("could not look that up", refused).kind is ErrorClass.REFUSAL


@pytest.mark.parametrize(
    "text",
    [
        "unknown sku: 'zz'",
        "Error executing tool lookup: unknown sku: 'zz'",  # a ToolError in MCPServer 2.x
        "Order A-17 not found",
        "quantity must be positive",
        "MCP error -32602: Tool toggle not found",
        "",
    ],
)
def test_refusals_stay_refusals(text: str) -> None:
    verdict = judge(text, "INFO:mcp:Tool 'lookup' failed: 'unknown sku'\n", tool="lookup")
    assert verdict.kind is ErrorClass.REFUSAL and not verdict.certain


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        ("Internal error", "internal error"),
        ("ValueError: unknown sku", "ValueError:"),
        (
            "Error executing tool t: 1 validation error for tArguments\nx\n  Input should be",
            "argument validation",
        ),
        ("MCP error -32602: Input validation error: Invalid arguments for tool t", "argument"),
    ],
)
def test_suggestive_evidence_is_counted_not_failed(text: str, evidence: str) -> None:
    verdict = judge(text)
    assert verdict.kind is ErrorClass.SUSPECT and not verdict.certain
    assert evidence.lower() in verdict.evidence.lower()


def test_what_the_input_said_is_not_evidence() -> None:
    result = {"isError": True, "content": [{"type": "text", "text": "unknown sku: 'panic'"}]}
    assert judge_error_result("t", result, None).kind is ErrorClass.SUSPECT
    verdict = judge_error_result("t", result, None, {"sku": "panic", "n": 1})
    assert verdict.kind is ErrorClass.REFUSAL


def test_another_calls_traceback_is_not_evidence() -> None:
    # The caller passes only what the server wrote while *this* call ran.
    assert judge("unknown sku", stderr="").kind is ErrorClass.REFUSAL


def test_settings_spell_the_failing_classes() -> None:
    from pytest_mcp_contracts.vocabulary import FAILING_CLASSES

    assert set(WARNABLE_CLASSES) == {str(kind) for kind in FAILING_CLASSES}


def test_calls_that_needed_a_url_count_toward_a_barely_exercised_contract() -> None:
    from pytest_mcp_contracts.runs.contract import ContractStats, error_result_notes
    from pytest_mcp_contracts.runs.stats import ToolStats
    from pytest_mcp_contracts.transport.discover import Entry

    schema = {"type": "object", "properties": {"folder": {"type": "string"}}}
    tool = Entry(
        EntryKind.TOOL, "open_drive", "open_drive", {"name": "open_drive", "inputSchema": schema}
    )
    stats = ContractStats(ToolStats(calls=20, error_results=4), url_required=15)
    assert stats.mostly_errors
    (note,) = error_result_notes(tool, stats)
    assert note.startswith("4 of 20 calls returned isError and 15 needed the user to open a URL")
    assert not ContractStats(ToolStats(calls=20, error_results=4), url_required=10).mostly_errors


def test_a_configured_example_that_answered_for_real_is_exercise_enough() -> None:
    from pytest_mcp_contracts.runs.contract import ContractStats
    from pytest_mcp_contracts.runs.stats import ToolStats

    assert ContractStats(ToolStats(calls=50, error_results=50)).mostly_errors
    assert not ContractStats(ToolStats(calls=50, error_results=49), configured_real=1).mostly_errors


@pytest.mark.parametrize(
    "quoted",
    [
        "unknown sku: 'is not valid JSON\\x1f'",  # Python: repr() escapes the control char
        'unknown sku: "is not valid JSON\\u001f"',  # JSON.stringify / json.dumps
        "unknown sku: is not valid JSON\x1f",  # as it is
    ],
)
def test_a_refusal_quoting_its_input_escaped_is_not_judged_by_that_input(quoted: str) -> None:
    # Found on a correct server: hypothesis drew "is not valid JSON\x1f" (a string it took
    # from this package's own patterns) and the tool refused it, quoting it with repr().
    result = {"isError": True, "content": [{"type": "text", "text": quoted}]}
    verdict = judge_error_result("lookup", result, "", {"sku": "is not valid JSON\x1f"})
    assert verdict.kind is ErrorClass.REFUSAL, verdict


@pytest.mark.parametrize("word", ["line", "File", "Traceback", "lookup", "Error"])
def test_an_input_that_is_a_word_of_the_evidence_cannot_hide_it(word: str) -> None:
    # Only evidence inside a quote of the input is discounted, not evidence around it.
    text = 'Traceback (most recent call last):\n  File "app.py", line 3, in lookup\nKeyError: 3'
    result = {"isError": True, "content": [{"type": "text", "text": text}]}
    verdict = judge_error_result("lookup", result, "", {"sku": word})
    assert verdict.kind is ErrorClass.UNEXPECTED_EXCEPTION, verdict
    logged = "Tool 'lookup' raised an unexpected exception\n" + text
    plain = {"isError": True, "content": [{"type": "text", "text": "no such sku"}]}
    verdict = judge_error_result("lookup", plain, logged, {"sku": word})
    assert verdict.kind is ErrorClass.UNEXPECTED_EXCEPTION, verdict


def test_a_traceback_the_server_logs_as_its_input_is_no_evidence() -> None:
    # The input itself is a traceback's text, logged on stderr and quoted in the refusal.
    word = "Traceback (most recent call last):"
    plain = {"isError": True, "content": [{"type": "text", "text": f"no such sku: {word!r}"}]}
    verdict = judge_error_result("lookup", plain, f"looking up {word}\n", {"sku": word})
    assert verdict.kind is ErrorClass.REFUSAL, verdict


def test_a_barely_exercised_contract_says_what_the_tool_said_last() -> None:
    from pytest_mcp_contracts.runs.contract import ContractStats, error_result_notes
    from pytest_mcp_contracts.runs.stats import ToolStats
    from pytest_mcp_contracts.transport.discover import Entry

    schema = {"type": "object", "properties": {"repo_path": {"type": "string"}}}
    tool = Entry(
        EntryKind.TOOL, "git_status", "git_status", {"name": "git_status", "inputSchema": schema}
    )
    refusal = "Repository path 'x' is outside\n  the allowed repository '/srv/repo'" + "!" * 200
    stats = ContractStats(ToolStats(calls=50, error_results=50), last_error_text=refusal)
    (note,) = error_result_notes(tool, stats)
    assert note.startswith("50 of 50 calls returned isError, so the output contract was barely")
    # On one line (the warning is one), cut at 150 characters.
    assert "(the last said: \"Repository path 'x' is outside the allowed repository" in note
    assert note.endswith('!…")'), note


def _ok(text: str, **extra: object) -> dict[str, object]:
    return {"content": [{"type": "text", "text": text}], **extra}


@pytest.mark.parametrize(
    "text",
    [
        # dddabtc/winremote-mcp#82, ansys/pyaedt-mcp#120: caught and returned as text
        "Error: 'NoneType' object has no attribute 'strip'",
        "Failed to read sheet: list index out of range",
        'Traceback (most recent call last):\n  File "tool.py", line 3, in run\nKeyError: 3',
        "Error: Cannot read properties of undefined (reading 'id')",
    ],
)
def test_a_crash_returned_as_an_ordinary_result_is_certain(text: str) -> None:
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    verdict = judge_success_result(_ok(text), {"sheet": "S1"})
    assert verdict is not None and verdict.kind is ErrorClass.ERROR_AS_RESULT, verdict
    assert verdict.certain


@pytest.mark.parametrize(
    ("text", "evidence"),
    [
        # office-word-mcp-server, every document tool on a file that is not there
        ("Document report.docx does not exist", "does not exist"),
        ("Document report.docx not found.", "not found"),
        ("Invalid heading level: 0. Level must be between 1 and 9.", "Invalid"),
        ("Error: unknown sku 'B-7'", "Error:"),
        ('{\n  "success": false,\n  "error": "Document a.docx does not exist"\n}', "JSON"),
        ('{"error": "not signed in"}', "JSON"),
    ],
)
def test_refusal_words_without_iserror_are_a_disguised_refusal(text: str, evidence: str) -> None:
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    verdict = judge_success_result(_ok(text), {"filename": "report.docx"})
    assert verdict is not None and verdict.kind is ErrorClass.DISGUISED_REFUSAL, verdict
    assert evidence in verdict.evidence
    assert not verdict.certain


LONG_ARTICLE = (
    "Error handling in the importer\n"
    + "The importer retries twice. A file that does not exist is skipped, and an "
    "error is logged; 'NoneType' object has no attribute 'strip' was fixed in 2.1.\n" * 8
)


@pytest.mark.parametrize(
    "text",
    [
        "Paragraph added to report.docx",
        "No Word documents found in .",  # an empty listing is an answer
        "Unknown",  # a value, not a refusal
        LONG_ARTICLE,  # a document that mentions errors in its body is content
        "Commit history:\nCommit: 'abc'\nMessage: fix list index out of range\n",
        "Issue #82: 'NoneType' object has no attribute 'strip' in get_clipboard",
        "AttributeError: 'NoneType' object has no attribute 'strip'\n" + "An issue body. " * 40,
        '{"valid": true, "errors": []}',  # JSON data, whatever its words
        '{"log": "Error: disk full"}',
        '{"status": "failed", "job_id": 7}',  # a job's state, told correctly
        # office-word-mcp-server's get_document_text on a short, real document
        'Quarterly report\nRevenue grew 4%.\nError handling: the importer logs "Error: file '
        'not found" and skips the file; it does not exist yet.\na\n\n\n',
    ],
)
def test_correct_prose_and_data_are_real_results(text: str) -> None:
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    assert judge_success_result(_ok(text), {}) is None


def test_validated_structured_content_is_a_result_whatever_its_text_says() -> None:
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    result = _ok("Error: not found", structuredContent={"status": "not found", "n": 0})
    assert judge_success_result(result, {}, output_schema={"type": "object"}) is None
    verdict = judge_success_result(result, {}, output_schema=None)
    assert verdict is not None and verdict.kind is ErrorClass.DISGUISED_REFUSAL
    # MCPServer sends a tool annotated -> str as {"result": "..."}: that string is the text.
    wrapped = _ok("Error: not found", structuredContent={"result": "Error: not found"})
    verdict = judge_success_result(wrapped, {}, output_schema={"type": "object"})
    assert verdict is not None and verdict.kind is ErrorClass.DISGUISED_REFUSAL


def test_an_error_one_level_down_in_structured_content_is_no_real_result() -> None:
    # FastMCP in mcp 1.x wraps a tool's dict return: {"result": {"error": ...}}, isError false.
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    wrapped = {"result": {"error": "nothing is open"}}
    declared = {"type": "object", "properties": {"result": {"type": "object"}}}
    result = _ok('{\n  "error": "nothing is open"\n}', structuredContent=wrapped)
    verdict = judge_success_result(result, {}, output_schema=declared)
    assert verdict is not None and verdict.kind is ErrorClass.DISGUISED_REFUSAL
    crashed = _ok("{}", structuredContent={"result": {"error": "list index out of range"}})
    verdict = judge_success_result(crashed, {}, output_schema=declared)
    assert verdict is not None and verdict.kind is ErrorClass.ERROR_AS_RESULT
    # An error field the outputSchema declares is part of the result.
    validator = {"type": "object", "properties": {"valid": {}, "error": {}}}
    said = _ok("{}", structuredContent={"valid": False, "error": "missing comma at 3"})
    assert judge_success_result(said, {}, output_schema=validator) is None


def test_a_result_that_is_the_input_echoed_is_not_judged_by_it() -> None:
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    said = "Error: 'NoneType' object has no attribute 'strip'"
    assert judge_success_result(_ok(said), {"message": said}) is None


def test_disguised_refusals_feed_the_barely_exercised_warning() -> None:
    from pytest_mcp_contracts.judges.error_results import ErrorVerdict
    from pytest_mcp_contracts.runs.contract import ContractStats, error_result_notes
    from pytest_mcp_contracts.runs.stats import ToolStats
    from pytest_mcp_contracts.transport.discover import Entry

    schema = {"type": "object", "properties": {"filename": {"type": "string"}}}
    tool = Entry(
        EntryKind.TOOL, "get_text", "get_text", {"name": "get_text", "inputSchema": schema}
    )
    stats = ContractStats(ToolStats(calls=20, error_results=2))
    for _ in range(17):
        stats.count(
            ErrorVerdict(ErrorClass.DISGUISED_REFUSAL, "the words 'does not exist'"),
            "Document x.docx does not exist",
            is_error=False,
        )
    assert stats.mostly_errors
    (note,) = error_result_notes(tool, stats)
    assert note.startswith(
        "19 of 20 calls returned isError or a disguised refusal (17 without isError), so the "
        "output contract was barely exercised"
    ), note
    assert '(the last said: "Document x.docx does not exist")' in note
    assert "17 disguised-refusal" in stats.summary()


def test_large_json_data_is_content_whatever_its_first_values_say() -> None:
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    rows = [{"log": "'NoneType' object has no attribute 'strip'", "n": n} for n in range(2000)]
    assert judge_success_result(_ok(json.dumps(rows)), {}) is None
    verdict = judge_success_result(_ok('{"success": false}'), {})
    assert verdict is not None and verdict.kind is ErrorClass.DISGUISED_REFUSAL


@pytest.mark.parametrize("name", ["\r", "\n", "a\nb", "x\u2028y\r\nz"])
def test_a_line_break_in_an_echoed_input_does_not_end_the_first_line(name: str) -> None:
    # Found on office-word-mcp-server: {"filename": "\r"} answered "Document \r.docx does
    # not exist", which the first line alone ("Document ") took for a real result.
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    text = f"Document {name}.docx does not exist"
    verdict = judge_success_result(_ok(text), {"filename": name})
    assert verdict is not None and verdict.kind is ErrorClass.DISGUISED_REFUSAL, verdict


@pytest.mark.parametrize("topic", ["\n", "\r\n", "\n\n\n", "a\nb"])
def test_an_input_of_line_breaks_does_not_join_the_lines_after_its_echo(topic: str) -> None:
    # Found by CI on tests/servers/disguised.py: troubleshoot {"topic": "\n"} answered a
    # correct help article that quotes a traceback in its tenth line; every line break of
    # the article was taken for the input's, the article became one first line, and the
    # traceback evidence of a crash.
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    article = (
        f"Troubleshooting {topic}\n\nMost reports come from a missing configuration file.\n\n"
        "Older releases crashed on blank names with:\n\n"
        "    Traceback (most recent call last):\n"
        '      File "service.py", line 12, in load\n'
        "    AttributeError: 'NoneType' object has no attribute 'strip'\n"
    )
    assert judge_success_result(_ok(article), {"topic": topic}) is None


def test_an_echo_of_an_input_with_line_breaks_is_still_not_evidence() -> None:
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    said = "Error: 'NoneType' object\nhas no attribute"
    assert judge_success_result(_ok(said), {"message": said}) is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # @executeautomation/database-server: a catch-all's JSON, pretty-printed over lines.
        (
            '{\n  "error": "SQL Error: Cannot read properties of undefined (reading \'trim\')"\n}',
            ErrorClass.UNEXPECTED_EXCEPTION,
        ),
        ('{\n  "error": "SQL Error: Only SELECT queries are allowed"\n}', ErrorClass.REFUSAL),
    ],
)
def test_an_error_shaped_json_text_is_judged_by_its_message(text: str, kind: ErrorClass) -> None:
    assert judge(text).kind is kind


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        # mcp 1.x FastMCP: a prompt that raised, code 0, no traceback: the wrapper is neutral.
        ("Error rendering prompt brief: 'NoneType' object has no attribute 'lower'", "crash"),
        ("Error rendering prompt code_review: Project '' not found", "refusal"),
    ],
)
def test_a_prompts_wrapper_is_neutral(message: str, kind: str) -> None:
    from pytest_mcp_contracts.judges.error_results import judge_error_message

    verdict = judge_error_message(message, None)
    assert verdict.certain is (kind == "crash"), verdict


# mcp-json-yaml-toml (fastmcp 3.x), offline: the tool's own error class, raised from the HTTP
# client's error it caught; the root exception's frames start inside httpx.
OWN_CLASS_FROM_A_LIBRARY = """\
Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/httpx/_transports/default.py", line 101, in map
    raise mapped_exc(message) from exc
httpx.ConnectError: [Errno -2] Name or service not known

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/fastmcp/tools/base.py", line 421, in _run
  File "/venv/lib/python3.11/site-packages/mcp_json_yaml_toml/backends/yq.py", line 235, in run
  File "/venv/lib/python3.11/site-packages/mcp_json_yaml_toml/binary.py", line 600, in get
YQBinaryNotFoundError: yq binary not found and auto-download failed: Network error
"""


def test_the_tools_package_is_found_from_the_outermost_exception() -> None:
    verdict = judge(
        "Error calling tool 'data_query': yq binary not found", OWN_CLASS_FROM_A_LIBRARY
    )
    assert verdict.kind is ErrorClass.REFUSAL, verdict
    assert "raised on purpose by the tool's own code" in verdict.evidence


@pytest.mark.parametrize(
    "text",
    [
        "thread 'main' panicked at src/tools.rs:12:5:\nindex out of bounds",
        "goroutine 7 [running]:\nmain.lookup(...)\n\t/srv/tools.go:12 +0x1d",
    ],
)
def test_a_panic_is_the_runtimes_crash_report(text: str) -> None:
    from pytest_mcp_contracts.judges.error_results import judge_success_result

    assert judge(text).kind is ErrorClass.UNEXPECTED_EXCEPTION
    returned = judge_success_result(_ok(text), {})
    assert returned is not None and returned.kind is ErrorClass.ERROR_AS_RESULT
