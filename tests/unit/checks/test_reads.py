"""runs/content_calls: how a read's or a get's answer is judged (refusal, crash, a listed resource
that cannot be read, a hang), and the command that replays one."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pytest_mcp_contracts.judges.failures import FailureKind, same_problem_key
from pytest_mcp_contracts.runs.content_calls import Judged, judge_answer, request_command
from pytest_mcp_contracts.transport.errors import CallTimeout, RpcError, ServerDied
from pytest_mcp_contracts.transport.managed import CallOutcome
from pytest_mcp_contracts.transport.stdio import ServerCommand
from pytest_mcp_contracts.vocabulary import Check, EntryKind, Level
from tests.conforming import conforming

MODERN = "2026-07-28"
PY_TRACEBACK = (
    "Resource 'users:///profile' raised an unexpected exception\n"
    "Traceback (most recent call last):\n"
    '  File "server.py", line 40, in profile\n'
    "IndexError: string index out of range\n"
)


def _read(stderr: str | None = None, **fields: Any) -> CallOutcome:
    request = {"method": "resources/read", "params": {"uri": "users:///profile"}}
    return CallOutcome({"user_id": ""}, request, stderr=stderr, **_sent(request, fields))


def _get(**fields: Any) -> CallOutcome:
    request = {"method": "prompts/get", "params": {"name": "p", "arguments": {"topic": "x"}}}
    return CallOutcome({"topic": "x"}, request, **_sent(request, fields))


def _sent(request: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """An outcome's ``fields`` with its result as a 2026-07-28 server sends it."""
    if "result" not in fields:
        return fields
    return {**fields, "result": conforming(fields["result"], request["method"])}


@pytest.mark.parametrize(
    ("code", "message"),
    [(-32602, "Unknown resource: users:///profile"), (-32002, "Resource not found")],
)
def test_invalid_params_and_not_found_refuse_a_generated_value(code: int, message: str) -> None:
    judged = judge_answer(_read(rpc_error=RpcError(code, message)), MODERN, check="read")
    assert (judged.finding, judged.refused) == (None, True)


@pytest.mark.parametrize(
    ("error", "stderr", "evidence"),
    [
        # Python MCPServer: -32603 and the handler's traceback on stderr.
        (RpcError(-32603, "Error creating resource from template x"), PY_TRACEBACK, "traceback"),
        # TypeScript McpServer: -32603 with the exception's message alone.
        (RpcError(-32603, "Cannot read properties of undefined (reading 'y')"), "", "runtime"),
        # Another code, but the stderr shows the exception (a legacy server's code 0).
        (RpcError(0, "boom"), PY_TRACEBACK, "traceback"),
    ],
)
def test_an_internal_error_or_an_exception_fails_as_a_crash(
    error: RpcError, stderr: str, evidence: str
) -> None:
    judged = judge_answer(_read(stderr, rpc_error=error), MODERN, check="read")
    finding = judged.finding
    assert finding is not None and not judged.refused
    assert finding.kind is FailureKind.UNEXPECTED_EXCEPTION
    assert finding.check == "read"
    assert evidence in " ".join(finding.details)


def test_an_internal_error_without_evidence_is_a_refusal_with_a_warning() -> None:
    """The TypeScript SDK sends every thrown Error as -32603 (server-everything's "Unknown
    resource"), the Python SDK 2.x a ResourceError: without a crash's evidence it is a
    refusal sent with the wrong code."""
    outcome = _get(rpc_error=RpcError(-32603, "Unknown resource: everything://x"))
    judged = judge_answer(outcome, MODERN, check="get")
    assert judged.finding is None and judged.refused
    (warning,) = judged.warnings
    assert warning.rule == "mcp/refusal-code" and warning.level == "warning"
    # The SDK's own refusal of a missing argument is not the author's to fix: no warning.
    outcome = _get(rpc_error=RpcError(-32603, "Internal server error"), stderr=SDK_REFUSAL)
    judged = judge_answer(outcome, MODERN, check="get")
    assert judged.refused and judged.warnings == ()


def test_python_sdk_1_wording_for_a_prompt_that_raised_is_a_crash() -> None:
    message = "Error rendering prompt translate: 'NoneType' object has no attribute 'lower'"
    finding = judge_answer(_get(rpc_error=RpcError(0, message)), MODERN, check="get").finding
    assert finding is not None and finding.kind is FailureKind.UNEXPECTED_EXCEPTION
    message = "Error rendering prompt bad_role: Could not convert prompt result to message: {}"
    finding = judge_answer(_get(rpc_error=RpcError(0, message)), MODERN, check="get").finding
    assert finding is not None and "Python SDK 1.x" in " ".join(finding.details)


def test_a_listed_resource_that_answers_any_error_fails() -> None:
    outcome = _read(rpc_error=RpcError(-32002, "Resource not found"))
    judged = judge_answer(outcome, MODERN, check="read", must_succeed=True)
    finding = judged.finding
    assert finding is not None and not judged.refused
    assert finding.kind is FailureKind.RPC_ERROR
    assert finding.message.startswith("a listed resource cannot be read")


def test_a_declared_capability_whose_method_is_not_found_fails() -> None:
    outcome = _get(rpc_error=RpcError(-32601, "Method not found"))
    finding = judge_answer(outcome, MODERN, check="get").finding
    assert finding is not None and finding.kind is FailureKind.PROTOCOL_VIOLATION
    assert "lists prompts but does not answer prompts/get" in finding.message


@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        (CallTimeout("no answer within 10 s"), FailureKind.TIMEOUT),
        (ServerDied("the server exited with status 1"), FailureKind.CRASH),
    ],
)
def test_a_hang_or_a_death_is_judged_as_a_tool_calls(failure: Any, kind: FailureKind) -> None:
    finding = judge_answer(_read(failure=failure), MODERN, check="read").finding
    assert finding is not None and finding.kind is kind and finding.check == "read"


def test_results_are_judged_by_the_contents_checks() -> None:
    good = _read(result={"contents": [{"uri": "users:///profile", "text": "{}"}]})
    assert judge_answer(good, MODERN, check=Check.READ) == Judged()
    bad = _get(result={"messages": "hello"})
    finding = judge_answer(bad, MODERN, check=Check.GET).finding
    assert finding is not None and finding.kind is FailureKind.MALFORMED_RESULT


def test_the_replay_command_reads_or_gets_again() -> None:
    class Server:
        command = ServerCommand(("python", "srv.py"))

    read = request_command(Server(), _read())  # type: ignore[arg-type]
    assert read == "mcp-contracts call '--server=python srv.py' --read users:///profile"
    get = request_command(Server(), _get())  # type: ignore[arg-type]
    assert get.endswith("""--prompt p --arguments '{"topic": "x"}'""")


class _Server:
    """Answers every prompts/get alike: enough of a ManagedServer for the probe."""

    protocol_version = MODERN
    surface = None
    command = ServerCommand(("python", "srv.py"))

    def __init__(self, **answer: Any) -> None:
        self.answer = answer

    def request(self, method: str, params: dict[str, Any], **kwargs: Any) -> CallOutcome:
        request = {"method": method, "params": params}
        return CallOutcome(kwargs.get("arguments") or {}, request, **_sent(request, self.answer))

    def stderr_tail(self) -> str:
        return ""


PROMPT_ARGS = [{"name": "code", "required": True}, {"name": "style"}]
SDK_REFUSAL = (
    "Traceback (most recent call last):\n"
    '  File "mcp/server/mcpserver/prompts/base.py", line 177, in render\n'
    "ValueError: Missing required arguments: {'code'}\n"
)

# fastmcp 4.2.3 (tests/servers/fastmcp_prompts.py has the whole log record).
FASTMCP_REFUSAL = (
    "[11/27/26 11:54:29] Error rendering prompt 'p'\n"
    "                    ╭─────────── Traceback (most recent call last) ────────────╮\n"
    "                    │ /srv/venv/lib/python3.11/site-packages/fastmcp/prompts/f │\n"
    "                    │ unction_prompt.py:344 in render                           │\n"
    "                    ╰──────────────────────────────────────────────────────────╯\n"
    "                    ValidationError: Missing required arguments: {'code'}\n"
)


@pytest.mark.parametrize(
    ("answer", "fails", "notes"),
    [
        ({"rpc_error": RpcError(-32602, "Invalid arguments for prompt p")}, False, 0),
        # The Python SDK's own check: -32603 with its traceback on stderr.
        ({"rpc_error": RpcError(-32603, "Internal server error"), "stderr": SDK_REFUSAL}, False, 0),
        # fastmcp 4.x's own check: -32602, its ValidationError's traceback logged.
        (
            {
                "rpc_error": RpcError(-32602, "Missing required arguments: {'code'}"),
                "stderr": FASTMCP_REFUSAL,
            },
            False,
            0,
        ),
        # Nothing shows a crash: a refusal, with the wrong code (a warning).
        ({"rpc_error": RpcError(-32603, "Internal server error"), "stderr": ""}, False, 1),
        (
            {"rpc_error": RpcError(-32603, "Cannot read properties of undefined (reading 'x')")},
            True,
            0,
        ),
        ({"failure": ServerDied("the server exited with status 1")}, True, 0),
        (
            {"result": {"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]}},
            False,
            1,
        ),
    ],
)
def test_a_prompt_without_its_required_argument_must_be_refused_not_crash(
    answer: dict[str, Any], fails: bool, notes: int
) -> None:
    from pytest_mcp_contracts.runs.content_calls import ContentRun, probe_missing_arguments
    from pytest_mcp_contracts.transport.discover import Entry

    prompt = Entry(EntryKind.PROMPT, "p", "p", {"name": "p", "arguments": PROMPT_ARGS})
    run = ContentRun()
    failure = probe_missing_arguments(_Server(**answer), prompt, run)  # type: ignore[arg-type]
    assert (failure is not None) is fails
    if failure is not None:
        assert failure.report.problem.startswith("without its required argument 'code': ")
        assert failure.report.arguments == {}
        # A replay sends the request alone: it fails the same way with the problem unprefixed.
        unprefixed = failure.report.problem.split(": ", 1)[1]
        assert failure.replay_problem == same_problem_key(unprefixed)
    assert len(run.notes) == notes
    assert run.stats.calls == 1


def test_a_results_warnings_are_said_once_per_rule_with_the_first_request() -> None:
    from pytest_mcp_contracts.judges.failures import Finding
    from pytest_mcp_contracts.runs.content_calls import ContentRun

    warning = Finding(
        "read", "a mimeType the text contradicts", Level.WARNING, kind=FailureKind.LINT
    )
    run = ContentRun()
    for values in ({"user_id": "a"}, {"user_id": "b"}):
        outcome = CallOutcome(values, {"method": "resources/read"}, result={"contents": []})
        run.count(outcome, Judged(warnings=(warning,)))
    assert run.notes == ['a mimeType the text contradicts (resources/read {"user_id": "a"})']
    assert (run.stats.calls, run.stats.real_results, run.stats.refused) == (2, 2, 0)


@pytest.mark.parametrize(
    ("name", "id_like"),
    [
        ("id", True),
        ("ID", True),
        ("resourceId", True),
        ("userID", True),
        ("user_id", True),
        ("item-id", True),
        ("page", True),
        ("Index", True),
        ("n", True),
        ("valid", False),
        ("grid", False),
        ("android", False),
        ("name", False),
        ("path", False),
    ],
)
def test_a_template_variable_named_like_an_id_is_also_tried_as_1(name: str, id_like: bool) -> None:
    """ids are mostly numbers and a string strategy seldom draws one: server-everything's
    ``demo://resource/dynamic/text/{resourceId}`` was never read without this input."""
    from pytest_mcp_contracts.runs.content_calls import known_inputs
    from pytest_mcp_contracts.transport.discover import Entry

    template = Entry(
        EntryKind.TEMPLATE, f"x://{{{name}}}", "t", {"uriTemplate": f"x://{{{name}}}", "name": "t"}
    )
    found = known_inputs(_Server(), template, [name], [name])  # type: ignore[arg-type]
    assert found == ([{name: "1"}] if id_like else [])


class _Completing(_Server):
    """A server that declares completions and offers ``offered`` for every name."""

    def __init__(self, offered: dict[str, list[str]]) -> None:
        super().__init__()
        self.offered = offered
        self.surface = SimpleNamespace(capabilities={"completions": {}})  # type: ignore[assignment]

    def request(self, method: str, params: dict[str, Any], **kwargs: Any) -> CallOutcome:
        argument = params["argument"]
        values = [
            v for v in self.offered.get(argument["name"], []) if v.startswith(argument["value"])
        ]
        result = conforming({"completion": {"values": values}}, method)
        return CallOutcome({}, {"method": method}, result=result)


def test_a_prompts_id_like_argument_is_tried_as_1_beside_each_completed_input() -> None:
    """server-everything's resource-prompt: completions give its resourceType, nothing
    gives its resourceId (a positive integer): 24 gets, 0 results without this."""
    from pytest_mcp_contracts.runs.content_calls import known_inputs
    from pytest_mcp_contracts.transport.discover import Entry

    arguments = [
        {"name": "resourceType", "required": True},
        {"name": "resourceId", "required": True},
    ]
    prompt = Entry(EntryKind.PROMPT, "resource-prompt", "resource-prompt", {"arguments": arguments})
    server = _Completing({"resourceType": ["Text", "Blob"]})
    names = ["resourceType", "resourceId"]
    found = known_inputs(server, prompt, names, names)  # type: ignore[arg-type]
    assert found == [
        {"resourceType": "Text", "resourceId": "a"},
        {"resourceType": "Text", "resourceId": "1"},
        {"resourceType": "Blob", "resourceId": "a"},
        {"resourceType": "Blob", "resourceId": "1"},
    ]


def test_values_a_description_names_are_tried_and_completions_win_over_them() -> None:
    from pytest_mcp_contracts.runs.content_calls import known_inputs
    from pytest_mcp_contracts.transport.discover import Entry

    raw = {"uriTemplate": "todo://status/{status}", "description": "Todos by status: open / done"}
    template = Entry(EntryKind.TEMPLATE, "todo://status/{status}", "t", raw)
    found = known_inputs(_Server(), template, ["status"], ["status"])  # type: ignore[arg-type]
    assert found == [{"status": "open"}, {"status": "done"}]
    arguments = [{"name": "style", "description": "One of: formal, casual"}]
    prompt = Entry(EntryKind.PROMPT, "p", "p", {"arguments": arguments})
    found = known_inputs(_Server(), prompt, ["style"], [])  # type: ignore[arg-type]
    assert found == [{"style": "formal"}, {"style": "casual"}]
    server = _Completing({"style": ["terse"]})
    found = known_inputs(server, prompt, ["style"], [])  # type: ignore[arg-type]
    assert found == [{"style": "terse"}]


TEXT = {"type": "text", "text": ""}


@pytest.mark.parametrize(
    ("check", "result", "must_succeed", "refused"),
    [
        # mcp-server-fetch's prompt with the network closed: the failure as the prompt's text.
        (
            Check.GET,
            {"messages": [{"role": "user", "content": {**TEXT, "text": "Failed to fetch x: E"}}]},
            False,
            True,
        ),
        # fastmcp-sample-server's note template: the error as the resource's JSON.
        (
            Check.READ,
            {"contents": [{"uri": "users:///profile", "text": '{"error": "note 7 not found"}'}]},
            False,
            True,
        ),
        (
            Check.READ,
            {"contents": [{"uri": "users:///profile", "text": '{"id": 7}'}]},
            False,
            False,
        ),
        (
            Check.GET,
            {"messages": [{"role": "user", "content": {**TEXT, "text": "Explain this error: x"}}]},
            False,
            False,
        ),
        # A listed resource's words are its content (a log file says "Error: ..." as it is).
        (
            Check.READ,
            {"contents": [{"uri": "users:///profile", "text": "Error: disk full"}]},
            True,
            False,
        ),
    ],
)
def test_a_result_that_says_it_is_an_error_counts_as_refused_not_as_a_result(
    check: Check, result: dict[str, Any], must_succeed: bool, refused: bool
) -> None:
    from pytest_mcp_contracts.runs.content_calls import ContentRun

    outcome = (_get if check == Check.GET else _read)(result=result)
    judged = judge_answer(outcome, MODERN, check=check, must_succeed=must_succeed)
    assert judged.finding is None
    assert judged.refused is refused and (judged.disguised is not None) is refused
    run = ContentRun()
    run.count(outcome, judged)
    assert (run.stats.real_results, run.stats.refused) == (int(not refused), int(refused))
    assert len(run.results) == int(not refused)  # refusals teach no content contract


def test_an_entry_no_call_reached_passes_saying_so() -> None:
    from pytest_mcp_contracts.runs.content_calls import ContentRun
    from pytest_mcp_contracts.transport.discover import Entry

    prompt = Entry(EntryKind.PROMPT, "fetch", "fetch", {})
    failed = {"messages": [{"role": "user", "content": {**TEXT, "text": "Failed to fetch a: E"}}]}
    run = ContentRun()
    for _ in range(3):
        outcome = _get(result=failed)
        run.count(outcome, judge_answer(outcome, MODERN, check=Check.GET))
    outcome = _get(rpc_error=RpcError(-32602, "url is required"))
    run.count(outcome, judge_answer(outcome, MODERN, check=Check.GET))
    run.note_unreached(prompt)
    (note,) = run.notes
    assert note.startswith(
        "none of its 4 gets returned a real result (4 refused; 3 answered with a result that "
        "says so: the words 'Failed'), so its contents were never checked"
    )
    assert note.endswith("""[tool.mcp-contracts.prompts."fetch"] skip = true""")
    reached = ContentRun()
    good = _get(result={"messages": [{"role": "user", "content": {**TEXT, "text": "<html>"}}]})
    reached.count(good, judge_answer(good, MODERN, check=Check.GET))
    reached.note_unreached(prompt)
    assert reached.notes == []


def test_a_reads_and_a_gets_time_limit_reaches_the_request() -> None:
    # The check's time budget (--mcp-tool-time) caps each request, as it caps a tool's call.
    from pytest_mcp_contracts.runs.content_calls import prompt_target, template_target
    from pytest_mcp_contracts.transport.discover import Entry

    asked: list[tuple[str, float | None]] = []

    class Server:
        def request(self, method: str, params: Any, **kwargs: Any) -> CallOutcome:
            asked.append((method, kwargs["limit"]))
            return CallOutcome(kwargs["arguments"], {"method": method, "params": params})

    server: Any = Server()
    template = Entry(EntryKind.TEMPLATE, "users://{id}", "users", {"uriTemplate": "users://{id}"})
    prompt = Entry(EntryKind.PROMPT, "greet", "greet", {"name": "greet"})
    template_target(server, template).send({"id": "7"}, 1.5)
    prompt_target(server, prompt).send({}, None)
    assert asked == [("resources/read", 1.5), ("prompts/get", None)]
