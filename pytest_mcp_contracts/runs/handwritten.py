"""What a hand-written test gets from the ``mcp_server`` fixture (``pytest/fixtures``): the
server the generated items of the run call, and their verdicts on one call.

``call``, ``read`` and ``get`` send one request and hand back its result as a typed object;
a JSON-RPC error is raised as ``McpRpcError``, and a call that hung, killed the server or
broke the protocol as ``CheckFailed`` (the one judge's words, ``judge.judge_call``).
``check``, ``check_read`` and ``check_get`` apply to one call every verdict the ``contract``,
``read`` and ``get`` items apply to each of theirs: ``contract.judge_contract_call`` (the
judge, the isError evidence of ``error_results``, the result checks of ``result`` and
``contents``, the recorded output contract of ``contracts/observe``) and
``reads.judge_answer`` with the content contract; a failure is ``CheckFailed``, whose text
is the report those items print, replayed on a fresh server as theirs are. ``inputs`` is the
strategy the contract item draws from.

What the run decides (settings, the recorder, the conftest hooks, the sandbox, how to get a
fresh server) comes in through the server's ``context.RunContext``, the one its generated
items ask: no pytest here.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from pytest_mcp_contracts.judges.failures import ContractFailure, FailureKind, Finding
from pytest_mcp_contracts.text import json_text, short_json, shown
from pytest_mcp_contracts.vocabulary import Check, EntryKind

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from pytest_mcp_contracts.contracts.observe import EntryObservations
    from pytest_mcp_contracts.runs.context import RunContext
    from pytest_mcp_contracts.transport.discover import (
        Entry,
        ServerSurface,
    )
    from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer

# The heading of an input in a report: the test's own, not one a shrinker found.
INPUT_LABEL = "input (as the test sent it):"
REQUEST_LABEL = "request (as the test sent it):"


def _texts(blocks: Any) -> list[str]:
    """The ``text`` of each text block (or text resource content) in a list of them."""
    if not isinstance(blocks, list):
        return []
    return [
        block["text"]
        for block in blocks
        if isinstance(block, dict) and isinstance(block.get("text"), str)
    ]


@dataclass(frozen=True)
class ToolResult:
    """A ``tools/call`` result: its ``content`` blocks, its ``structuredContent`` (None when
    it has none), whether it is an ``isError`` result, and the ``raw`` result object."""

    content: list[Any]
    structured_content: Any
    is_error: bool
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def of(cls, raw: dict[str, Any]) -> ToolResult:
        content = raw.get("content")
        return cls(
            content=list(content) if isinstance(content, list) else [],
            structured_content=raw.get("structuredContent"),
            is_error=raw.get("isError") is True,
            raw=raw,
        )

    @property
    def text(self) -> str:
        """The text of its text blocks, one after the other on separate lines."""
        return "\n".join(_texts(self.content))


@dataclass(frozen=True)
class ResourceResult:
    """A ``resources/read`` result: its ``contents`` (each with ``uri``, ``mimeType`` and
    ``text`` or ``blob``) and the ``raw`` result object."""

    contents: list[Any]
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def of(cls, raw: dict[str, Any]) -> ResourceResult:
        contents = raw.get("contents")
        return cls(contents=list(contents) if isinstance(contents, list) else [], raw=raw)

    @property
    def text(self) -> str:
        """The text of its text contents, one after the other on separate lines."""
        return "\n".join(_texts(self.contents))


@dataclass(frozen=True)
class PromptResult:
    """A ``prompts/get`` result: its ``messages`` (each with ``role`` and ``content``), its
    ``description`` (None when it has none) and the ``raw`` result object."""

    messages: list[Any]
    description: str | None
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def of(cls, raw: dict[str, Any]) -> PromptResult:
        messages = raw.get("messages")
        description = raw.get("description")
        return cls(
            messages=list(messages) if isinstance(messages, list) else [],
            description=description if isinstance(description, str) else None,
            raw=raw,
        )

    @property
    def text(self) -> str:
        """The text of its messages' text content, one message a line."""
        contents = [m.get("content") for m in self.messages if isinstance(m, dict)]
        return "\n".join(text for c in contents for text in _texts([c]))


class McpRpcError(Exception):
    """The server answered a request with a JSON-RPC error: its ``code``, ``message`` and
    ``data``, and the ``method`` and ``subject`` (tool, URI, prompt) of the request."""

    def __init__(self, method: str, subject: str, code: int, message: str, data: Any) -> None:
        super().__init__(f"{method} {shown(subject)}: JSON-RPC error {code}: {message}")
        self.method = method
        self.subject = subject
        self.code = code
        self.message = message
        self.data = data

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.method, self.subject, self.code, self.message, self.data)


class CheckFailed(ContractFailure):
    """A call failed a verdict of the generated items; its text is their failure report
    (the problem, the server, the input, the request and the command that replay it)."""

    def __str__(self) -> str:
        return self.report.render()

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.report,)


def _check_failed(error: ContractFailure) -> CheckFailed:
    """``error`` as the fixture raises it, with everything it carries (its calls, what a
    replay must show)."""
    found = CheckFailed(error.report)
    found.__dict__.update(vars(error))
    return found


def _in_hypothesis_attempt() -> bool:
    """Whether this runs inside a hypothesis test and is not its final run: a failure then
    is one of many hypothesis tries while it shrinks, so it is not replayed (each replay
    restarts the server); the final run of the smallest input is."""
    from hypothesis import currently_in_test_context

    if not currently_in_test_context():
        return False
    from hypothesis.control import current_build_context

    return not current_build_context().is_final


class ServerUnderTest:
    """One server of the run, as a hand-written test reaches it (the ``mcp_server``
    fixture). Every request it sends is counted in ``calls``."""

    def __init__(self, server: ManagedServer, run: RunContext) -> None:
        assert server.surface is not None, "a server that started"
        self._server = server
        self._run = run
        self.calls = 0
        self._strategies: dict[str, SearchStrategy[dict[str, Any]]] = {}

    def __repr__(self) -> str:
        return f"<ServerUnderTest {self.name} ({self._server.command.display})>"

    @property
    def name(self) -> str:
        """The server's name in node ids (``mcp:<name>``) and in the snapshot folder."""
        return self._server.node_name

    @property
    def surface(self) -> ServerSurface:
        """What the server listed when the run started it."""
        assert self._server.surface is not None
        return self._server.surface

    @property
    def tools(self) -> tuple[str, ...]:
        return tuple(tool.name for tool in self.surface.tools)

    @property
    def prompts(self) -> tuple[str, ...]:
        return tuple(prompt.key for prompt in self.surface.prompts)

    @property
    def resources(self) -> tuple[str, ...]:
        return tuple(resource.key for resource in self.surface.resources)

    @property
    def templates(self) -> tuple[str, ...]:
        return tuple(template.key for template in self.surface.templates)

    # -- tools -------------------------------------------------------------------------------

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Call ``tool`` with ``arguments`` (any: an invalid input too) and return its result,
        ``is_error`` or not; raise McpRpcError for a JSON-RPC error, CheckFailed for a call
        that hung, killed the server or broke the protocol."""
        __tracebackhide__ = True
        spec = self._find(self.surface.tools, tool) or _unlisted(EntryKind.TOOL, tool)
        outcome = self._call(spec, dict(arguments or {}))
        finding = self._judge_failure(outcome, Check.CONTRACT)
        if finding is not None:
            self._raise_failure(spec, outcome, finding)
        return ToolResult.of(self._result(outcome))

    def check(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Call ``tool`` with a schema-valid input and apply every verdict the contract item
        applies to one call; return the result when it passes (an ``is_error`` refusal
        passes, as there), raise CheckFailed with the contract item's report when it does
        not, McpRpcError for a JSON-RPC error the protocol allows (-32042)."""
        __tracebackhide__ = True
        from pytest_mcp_contracts.judges.call import error_verdict
        from pytest_mcp_contracts.runs.contract import judge_contract_call
        from pytest_mcp_contracts.transport.call_policy import task_refusal

        spec = self._tool(tool, "check")
        refusal = task_refusal(spec.raw, self.surface.capabilities)
        if refusal is not None:  # the server must refuse the call: no contract to judge
            raise ValueError(f"check({tool!r}): {refusal.removeprefix('not called: ')}")
        args = dict(arguments or {})
        problem = _invalid_input(spec.input_schema, args)
        if problem is not None:
            raise ValueError(
                f"check({tool!r}, {short_json(args)}): the arguments are not valid for its "
                f"inputSchema: {problem}. check() judges a schema-valid input, as the "
                "contract item does; send an invalid one with call() and assert on its answer"
            )
        observations = self._recorded_output(spec)
        outcome = self._call(spec, args)
        finding = judge_contract_call(
            spec,
            outcome,
            self._server.protocol_version,
            error_verdict(spec, outcome),
            warn_only=self._run.warn_only(spec),
            lints=self._run.lints,
            observations=observations,
            drift_hint=self._run.drift_hint,
        )
        if finding is not None:
            self._raise_failure(spec, outcome, finding)
        return ToolResult.of(self._result(outcome))

    def inputs(self, tool: str) -> SearchStrategy[dict[str, Any]]:
        """The hypothesis strategy of valid inputs the contract item draws from: generated
        from the inputSchema (``pytest_mcp_tool_strategy`` and the roots sandbox's paths
        included), with the configured and the schema's own examples among them. Made once
        per tool: a ``@given`` test asks for it once per example."""
        made = self._strategies.get(tool)
        if made is None:
            made = self._strategies[tool] = self._strategy(self._tool(tool, "inputs"))
        return made

    def _strategy(self, spec: Entry) -> SearchStrategy[dict[str, Any]]:
        from hypothesis import strategies as st

        from pytest_mcp_contracts.inputs.generate import input_strategy
        from pytest_mcp_contracts.inputs.input_schema import GenerationError

        try:
            strategy = input_strategy(
                spec.input_schema,
                self._run.overrides(spec),
                sandbox=self._run.sandbox_paths(spec),
            )
        except GenerationError as exc:
            raise ValueError(
                f"inputs({spec.name!r}): no inputs can be generated from its inputSchema at "
                f"{shown(exc.pointer, 120)}: {exc}"
            ) from None
        examples = self._run.examples(spec)
        if not examples:
            return strategy
        # Examples first: hypothesis shrinks toward the first branch, a realistic input.
        return st.one_of(st.sampled_from(examples).map(copy.deepcopy), strategy)

    # -- prompts and resources ---------------------------------------------------------------

    def read(self, uri: str) -> ResourceResult:
        """Read the resource at ``uri`` and return its result; raise McpRpcError for a
        JSON-RPC error, CheckFailed for a read that hung, killed the server or broke the
        protocol."""
        __tracebackhide__ = True
        entry, _, values = self._resource(uri)
        outcome = self._read(entry, uri, values)
        finding = self._judge_failure(outcome, Check.READ)
        if finding is not None:
            self._raise_failure(entry, outcome, finding)
        return ResourceResult.of(self._result(outcome))

    def check_read(self, uri: str) -> ResourceResult:
        """Read ``uri`` and apply the verdicts of the read item: a listed resource must be
        readable, a refusal is one only without a crash's evidence, the contents must be
        what the spec allows, and JSON content must keep its recorded content contract.
        Return the result; raise CheckFailed with the read item's report, McpRpcError for a
        refusal (of a URI that is no listed resource)."""
        __tracebackhide__ = True
        entry, listed, values = self._resource(uri)
        outcome = self._read(entry, uri, values)
        # A listed resource must be readable; a URI a template makes may be refused.
        must_succeed = listed and entry.kind == "resource"
        self._judge_content(entry, outcome, Check.READ, must_succeed=must_succeed)
        return ResourceResult.of(self._result(outcome))

    def get(self, prompt: str, arguments: Mapping[str, str] | None = None) -> PromptResult:
        """Get ``prompt`` with ``arguments`` (any) and return its result; raise McpRpcError
        for a JSON-RPC error, CheckFailed for a request that hung, killed the server or
        broke the protocol."""
        __tracebackhide__ = True
        entry = self._find(self.surface.prompts, prompt) or _unlisted(EntryKind.PROMPT, prompt)
        outcome = self._get(entry, dict(arguments or {}))
        finding = self._judge_failure(outcome, Check.GET)
        if finding is not None:
            self._raise_failure(entry, outcome, finding)
        return PromptResult.of(self._result(outcome))

    def check_get(self, prompt: str, arguments: Mapping[str, str] | None = None) -> PromptResult:
        """Get ``prompt`` with arguments valid for its listing and apply the verdicts of the
        get item: a refusal only without a crash's evidence, messages the spec allows, the
        recorded content contract. Return the result; raise CheckFailed with the get item's
        report, McpRpcError for a refusal."""
        __tracebackhide__ = True
        from pytest_mcp_contracts.inputs.listed import prompt_schema

        entry = self._prompt(prompt, "check_get")
        args = dict(arguments or {})
        problem = _invalid_input(prompt_schema(entry.raw.get("arguments")), args)
        if problem is not None:
            raise ValueError(
                f"check_get({prompt!r}, {short_json(args)}): the arguments are not valid for "
                f"the prompt's listed arguments: {problem}; send them with get() and assert "
                "on its answer"
            )
        outcome = self._get(entry, args)
        self._judge_content(entry, outcome, Check.GET)
        return PromptResult.of(self._result(outcome))

    # -- one request ---------------------------------------------------------------------------

    def _call(self, tool: Entry, arguments: dict[str, Any]) -> CallOutcome:
        return self._request(tool, lambda: self._server.call(tool.name, arguments))

    def _read(self, entry: Entry, uri: str, values: dict[str, Any]) -> CallOutcome:
        from pytest_mcp_contracts.runs.content_calls import read_resource

        return self._request(entry, lambda: read_resource(self._server, uri, values))

    def _get(self, entry: Entry, arguments: dict[str, Any]) -> CallOutcome:
        from pytest_mcp_contracts.runs.content_calls import prompt_target

        return self._request(
            entry, lambda: prompt_target(self._server, entry).send(arguments, None)
        )

    def _request(self, entry: Entry, send: Callable[[], CallOutcome]) -> CallOutcome:
        from pytest_mcp_contracts.judges.failures import unavailable
        from pytest_mcp_contracts.transport.errors import ServerError

        self.calls += 1
        try:
            return send()
        except ServerError as exc:  # it died, and could not be started again
            raise _check_failed(unavailable(self._server, entry, exc)) from None

    def _result(self, outcome: CallOutcome) -> dict[str, Any]:
        """The outcome's result, once its failures are judged: a JSON-RPC error is raised,
        and so is a call that was still at work, saying so, when its time ran out."""
        __tracebackhide__ = True
        error, subject = outcome.rpc_error, outcome.client.tool
        if error is not None:
            raise McpRpcError(outcome.method, subject, error.code, error.message, error.data)
        if outcome.result is None:  # a timeout the judge forgives: progress to the end
            message = outcome.failure.message if outcome.failure is not None else "no answer"
            raise TimeoutError(f"{outcome.method} {shown(subject)}: {message}")
        return outcome.result

    def _judge_failure(self, outcome: CallOutcome, check: str) -> Finding | None:
        """What fails a request that got no answer (``outcome.failure``: it hung, killed
        the server, broke the protocol), as the judge words it; None for any other."""
        if outcome.failure is None:
            return None
        import dataclasses

        from pytest_mcp_contracts.judges.call import judge_call

        found = judge_call(outcome, self._server.protocol_version)
        return None if found is None else dataclasses.replace(found, check=check)

    # -- failures ------------------------------------------------------------------------------

    def _raise_failure(self, entry: Entry, outcome: CallOutcome, finding: Finding) -> NoReturn:
        """Raise the item's failure for this call or request (a tool's contract item's, a
        prompt's get item's, a resource's read item's), replayed on a fresh server as
        theirs are: not while hypothesis shrinks (_in_hypothesis_attempt), nor for a tool
        the server does not list (the replays call listed tools)."""
        __tracebackhide__ = True
        from pytest_mcp_contracts.judges.failures import call_failure

        is_tool = entry.kind is EntryKind.TOOL
        label = INPUT_LABEL if is_tool else REQUEST_LABEL
        check = Check.CONTRACT.value if is_tool else None
        error = call_failure(self._server, entry, outcome, finding, check=check, label=label)
        if _in_hypothesis_attempt():
            raise _check_failed(error)
        if not is_tool:
            from pytest_mcp_contracts.runs.content_calls import replay_request

            raise _check_failed(replay_request(self._server, error, self._run.fresh))
        if entry.node_name:
            from pytest_mcp_contracts.runs.reproduce import note_sandbox, replay_failure

            error = replay_failure(
                self._server,
                entry,
                error,
                self._run.fresh,
                warn_only=self._run.warn_only(entry),
                fresh_possible=self._run.fresh_possible,
                lints=self._run.lints,
            )
            error = note_sandbox(error, self._run.sandbox)
        raise _check_failed(error)

    def _judge_content(
        self, entry: Entry, outcome: CallOutcome, check: str, *, must_succeed: bool = False
    ) -> None:
        """The read or get item's verdicts on one answer: raise CheckFailed (or McpRpcError
        for a refusal, from ``_result``), else return."""
        __tracebackhide__ = True
        from pytest_mcp_contracts.runs.content_calls import content_drift_finding, judge_answer

        judged = judge_answer(
            outcome, self._server.protocol_version, check=check, must_succeed=must_succeed
        )
        if judged.finding is not None:
            self._raise_failure(entry, outcome, judged.finding)
        result = self._result(outcome)
        # A refusal in disguise (an answer that says it failed) is no content, as the read
        # and get items leave it out of the content contract (reads.ContentRun.take).
        if judged.refused or not entry.node_name:  # unlisted URI: no recorded contract
            return
        recorder = self._run.recorder
        if recorder is None:
            return
        from pytest_mcp_contracts.contracts.snapshot import SnapshotError

        try:
            content = recorder.recorded(self.name, entry)
        except SnapshotError as exc:
            self._raise_failure(
                entry, outcome, Finding(check, exc.render(), kind=FailureKind.SETUP)
            )
        drift = content.observe(outcome.arguments, result)
        found = content_drift_finding(check, drift, outcome.arguments, self._run.drift_hint)
        if found is not None:
            self._raise_failure(entry, outcome, found)

    def _recorded_output(self, tool: Entry) -> EntryObservations | None:
        """The tool's recorded output contract to check results against (None: none)."""
        __tracebackhide__ = True
        recorder = self._run.recorder
        if recorder is None:
            return None
        from pytest_mcp_contracts.contracts.snapshot import SnapshotError

        try:
            return recorder.recorded(self.name, tool)
        except SnapshotError as exc:
            from pytest_mcp_contracts.judges.failures import FailureReport

            report = FailureReport.for_tool(
                self._server, tool.name, Check.CONTRACT, exc.render(), FailureKind.SETUP
            )
            raise CheckFailed(report) from None

    # -- names ---------------------------------------------------------------------------------

    @staticmethod
    def _find(entries: tuple[Entry, ...], key: str) -> Entry | None:
        return next((entry for entry in entries if entry.key == key), None)

    def _tool(self, name: str, method: str) -> Entry:
        """The listed tool ``name``, callable as the contract item calls it."""
        tool = self._find(self.surface.tools, name)
        if tool is None:
            raise LookupError(_unknown(self.name, "tool", name, self.tools, method))
        if tool.malformed:
            raise ValueError(
                f"{method}({name!r}): the tool's listing entry is malformed, so it cannot be "
                f"called as its inputSchema says (its schema item, mcp:{self.name}::"
                f"{tool.node_name}::schema, says why)"
            )
        return tool

    def _prompt(self, name: str, method: str) -> Entry:
        """The listed prompt ``name``."""
        found = self._find(self.surface.prompts, name)
        if found is None:
            raise LookupError(_unknown(self.name, "prompt", name, self.prompts, method))
        return found

    def _resource(self, uri: str) -> tuple[Entry, bool, dict[str, Any]]:
        """The entry a URI reads: a listed resource, else the first listed template that
        makes it (with its variables' values), else none (a stand-in with no node name);
        whether it is listed, and the values that made it ({"uri": uri} but for a
        template's)."""
        from pytest_mcp_contracts.inputs.listed import mined_values

        resource = self._find(self.surface.resources, uri)
        if resource is not None:
            return resource, True, {"uri": uri}
        for template in self.surface.templates:
            values = mined_values(template.key, [uri])
            if values:
                return template, True, dict(values[0])
        return _unlisted(EntryKind.RESOURCE, uri), False, {"uri": uri}


def _invalid_input(schema: Any, arguments: dict[str, Any]) -> str | None:
    """Why ``arguments`` are not valid for ``schema``, or None: the error jsonschema deems
    most relevant, as a user strategy's refused value is worded (inputs/generate)."""
    import jsonschema

    from pytest_mcp_contracts.schema.dialects import validator_for_schema

    error = jsonschema.exceptions.best_match(validator_for_schema(schema).iter_errors(arguments))
    if error is None:
        return None
    where = error.json_path if error.path else "the input"
    return f"{where}: {error.message}"


def _unknown(server: str, noun: str, name: str, known: tuple[str, ...], method: str) -> str:
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    listed = ", ".join(shown(k) for k in known[:20]) + (" ..." if len(known) > 20 else "")
    return (
        f"{method}({name!r}): the server {server} lists no {noun} named {json_text(name)}"
        f"{hint} (it lists: {listed or 'none'}); call() and get() send any name"
    )


def _unlisted(kind: EntryKind, key: str) -> Entry:
    """A stand-in for a name or URI the server does not list: no node name, so no recorded
    contract and no replay that calls listed entries."""
    from pytest_mcp_contracts.transport.discover import LISTINGS, Entry

    return Entry(kind, key, "", {LISTINGS[kind].key_field: key})


# The public names read as users import them (``pytest_mcp_contracts.CheckFailed``), in
# tracebacks and in pytest's failure lines too.
for _public in (
    ServerUnderTest,
    ToolResult,
    ResourceResult,
    PromptResult,
    McpRpcError,
    CheckFailed,
):
    _public.__module__ = "pytest_mcp_contracts"
