"""Verdicts as data: what sort of failure a check found, how grave it is, and its report.

Every failure an item raises is a ``ContractFailure`` carrying a ``FailureReport``; the
report's ``kind`` (a ``FailureKind``) says what went wrong in words CI can count (crashes
apart from schema violations), and the kind fixes the ``severity``. The report is built one
way for a call (``FailureReport.for_call``: the input, the request that reproduces it, what
the server wrote while it ran) and one way for a tool (``FailureReport.for_tool``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, Protocol

from pytest_mcp_contracts.text import call_stderr_block, indent, short_json, shown
from pytest_mcp_contracts.vocabulary import MODERN_VERSION, Check, EntryKind, Level

if TYPE_CHECKING:
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.errors import ServerError
    from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer


class Severity(StrEnum):
    """How grave a failure is, gravest first (``SEVERITY_ORDER``)."""

    CRITICAL = "critical"  # the server died, hung or could not be had: nothing else was learned
    HIGH = "high"  # a client gets a broken answer or breaks on it
    MEDIUM = "medium"  # a client gets an answer that misleads it, or the contract moved
    LOW = "low"  # the run's own setup or records, not the server's behaviour


SEVERITY_ORDER: Final = tuple(Severity)
#: The problem of a check whose ``pytest_mcp_tool_strategy`` strategy drew an input the
#: inputSchema refuses (the contract and sequences checks say it alike).
USER_STRATEGY_REFUSED: Final = (
    "a strategy from pytest_mcp_tool_strategy made an input the schema refuses"
)


class FailureKind(StrEnum):
    """What sort of failure a check found: the names the run report counts by. Each kind's
    words (a title, what happened, what to do) are ``KIND_TEXT``, which the docs' table of
    failure kinds and the SARIF rules both read."""

    CRASH = "crash"
    TIMEOUT = "timeout"
    PROTOCOL_VIOLATION = "protocol_violation"
    RPC_ERROR = "rpc_error"
    UNEXPECTED_EXCEPTION = "unexpected_exception"
    OUTPUT_SCHEMA = "output_schema"
    MALFORMED_RESULT = "malformed_result"
    CONTRADICTION = "contradiction"
    ERROR_AS_RESULT = "error_as_result"
    ALWAYS_ERRORS = "always_errors"
    OUTPUT_DRIFT = "output_drift"
    SURFACE_DRIFT = "surface_drift"
    REMOVED_TOOL = "removed_tool"
    INVALID_LISTING = "invalid_listing"
    ACCEPTS_INVALID = "accepts_invalid"
    SERVER_UNAVAILABLE = "server_unavailable"
    MISSING_RECORD = "missing_record"
    SETUP = "setup"
    CLIENT_SCHEMA = "client_schema"
    STDOUT_NOISE = "stdout_noise"
    DESCRIPTION_DRIFT = "description_drift"
    LINT = "lint"
    # What the security probes proved, each with its CWE (``CWE``).
    ARGUMENT_INJECTION = "argument_injection"
    COMMAND_INJECTION = "command_injection"
    PATH_TRAVERSAL = "path_traversal"
    LINK_FOLLOWING = "link_following"
    # A write the tool's annotations rule out (judges/writes): clients trust them to run it.
    BROKEN_ANNOTATION = "broken_annotation"
    # What a description proves by its words alone (judges/lints: the security class).
    TOOL_POISONING = "tool_poisoning"
    # A tool's p95 latency above its limit (--mcp-max-p95-ms, max_p95_ms).
    SLOW = "slow"


SEVERITY: Final[dict[FailureKind, Severity]] = {
    FailureKind.CRASH: Severity.CRITICAL,
    FailureKind.TIMEOUT: Severity.CRITICAL,
    FailureKind.SERVER_UNAVAILABLE: Severity.CRITICAL,
    FailureKind.PROTOCOL_VIOLATION: Severity.HIGH,
    FailureKind.RPC_ERROR: Severity.HIGH,
    FailureKind.UNEXPECTED_EXCEPTION: Severity.HIGH,
    FailureKind.OUTPUT_SCHEMA: Severity.HIGH,
    FailureKind.MALFORMED_RESULT: Severity.HIGH,
    FailureKind.REMOVED_TOOL: Severity.HIGH,
    FailureKind.CONTRADICTION: Severity.MEDIUM,
    FailureKind.ERROR_AS_RESULT: Severity.MEDIUM,
    FailureKind.ALWAYS_ERRORS: Severity.MEDIUM,
    FailureKind.OUTPUT_DRIFT: Severity.MEDIUM,
    FailureKind.SURFACE_DRIFT: Severity.MEDIUM,
    FailureKind.INVALID_LISTING: Severity.MEDIUM,
    FailureKind.ACCEPTS_INVALID: Severity.MEDIUM,
    FailureKind.CLIENT_SCHEMA: Severity.HIGH,
    FailureKind.STDOUT_NOISE: Severity.HIGH,
    FailureKind.DESCRIPTION_DRIFT: Severity.MEDIUM,
    FailureKind.LINT: Severity.MEDIUM,
    FailureKind.MISSING_RECORD: Severity.LOW,
    FailureKind.SETUP: Severity.LOW,
    FailureKind.ARGUMENT_INJECTION: Severity.CRITICAL,
    FailureKind.COMMAND_INJECTION: Severity.CRITICAL,
    FailureKind.PATH_TRAVERSAL: Severity.CRITICAL,
    FailureKind.LINK_FOLLOWING: Severity.CRITICAL,
    FailureKind.BROKEN_ANNOTATION: Severity.HIGH,
    # High, not critical: the words are there, but a model still has to obey them.
    FailureKind.TOOL_POISONING: Severity.HIGH,
    FailureKind.SLOW: Severity.LOW,
}
#: The weakness each security kind is an instance of (MITRE's CWE ids), and its score for
#: code scanning's ``security-severity`` (CVSS-like, 0-10: 9.0 and up is "critical").
CWE: Final[dict[FailureKind, tuple[int, str]]] = {
    FailureKind.ARGUMENT_INJECTION: (88, "9.1"),
    FailureKind.COMMAND_INJECTION: (78, "9.8"),
    FailureKind.PATH_TRAVERSAL: (22, "9.1"),
    FailureKind.LINK_FOLLOWING: (59, "9.1"),
    # CWE-1427, Improper Neutralization of Input Used for LLM Prompting (CWE 4.14): the
    # server's description is the external input a client puts into the model's prompt as
    # if it were the developer's directive. CVSS 3.1 AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N
    # (7.4): the attack needs a model that obeys (AC:H), then reads and sends what it reaches.
    FailureKind.TOOL_POISONING: (1427, "7.4"),
}


def severity_of(kind: FailureKind) -> Severity:
    return SEVERITY[kind]


@dataclass(frozen=True)
class KindText:
    """A failure kind in words, for readers who meet it outside the failure that raised it
    (a SARIF rule: its short and full description and its help)."""

    title: str  # one line
    description: str  # what happened
    help: str  # what to do about it


_ACCEPT = (
    "If the change is intended, accept it locally with --mcp-snapshot-update and commit the "
    "changed files under mcp-contracts/; otherwise restore what clients relied on."
)
_REPLAY = (
    "The failure in the JUnit report or the pytest output has the smallest input found, "
    "what the server wrote to stderr, and an `mcp-contracts call` command that replays it."
)

KIND_TEXT: Final[dict[FailureKind, KindText]] = {
    FailureKind.CRASH: KindText(
        "A tool call killed the MCP server",
        "The server process exited, or its connection closed, while a call was running.",
        _REPLAY,
    ),
    FailureKind.TIMEOUT: KindText(
        "A tool call did not return",
        "A call got no answer within --mcp-call-timeout (a progress notification restarts "
        "the timeout, up to --mcp-max-call-time).",
        f"Make the tool answer in time, or raise --mcp-call-timeout. {_REPLAY}",
    ),
    FailureKind.PROTOCOL_VIOLATION: KindText(
        "The server answered with something that is not MCP",
        "An answer broke the JSON-RPC or MCP message rules (an unknown id, a malformed "
        "message, a missing field).",
        _REPLAY,
    ),
    FailureKind.RPC_ERROR: KindText(
        "A JSON-RPC error where a result belongs",
        "A call with valid input got a JSON-RPC error (such as -32603, internal error) "
        "instead of a result or an isError refusal.",
        f"For valid input a tool returns a result, or isError: true with a message. {_REPLAY}",
    ),
    FailureKind.UNEXPECTED_EXCEPTION: KindText(
        "An isError result that is a crash",
        "A call with valid input returned isError: true whose text shows an unhandled "
        "exception (a traceback, a runtime's error words), not a refusal.",
        f"Handle the exception in the tool, or refuse the input with a message. {_REPLAY}",
    ),
    FailureKind.OUTPUT_SCHEMA: KindText(
        "Output that breaks the tool's outputSchema",
        "structuredContent does not validate against the outputSchema the tool declares.",
        f"Fix the output or the declared outputSchema. {_REPLAY}",
    ),
    FailureKind.MALFORMED_RESULT: KindText(
        "A result that is not a CallToolResult",
        "A result's content blocks or fields break the MCP result format (a block of an "
        "unknown type, a blob that is not base64, a missing field).",
        _REPLAY,
    ),
    FailureKind.CONTRADICTION: KindText(
        "Text content that contradicts structuredContent",
        "A JSON text block of a result says something other than its structuredContent: "
        "clients that read one or the other get different answers.",
        f"Serialize the same value into both. {_REPLAY}",
    ),
    FailureKind.ERROR_AS_RESULT: KindText(
        "An error returned as a successful result",
        "A result without isError carries a crash's evidence (a traceback, an exception's "
        "words): clients take the error for an answer.",
        f"Return isError: true for errors, or fix the crash. {_REPLAY}",
    ),
    FailureKind.ALWAYS_ERRORS: KindText(
        "A tool without arguments that always fails",
        "Every call of a tool that takes no arguments returned an error.",
        f"A tool without inputs has nothing a caller could get wrong: make it work. {_REPLAY}",
    ),
    FailureKind.OUTPUT_DRIFT: KindText(
        "Output away from the recorded output contract",
        "Output broke the contract recorded under mcp-contracts/: a field that was always "
        "present is missing, a value has a type never seen, or the output kind changed.",
        _ACCEPT,
    ),
    FailureKind.SURFACE_DRIFT: KindText(
        "A breaking change of the listed surface",
        "The listing (inputSchema, outputSchema, annotations) changed in a way that breaks "
        "callers or cannot be classified, against the surface recorded under mcp-contracts/.",
        _ACCEPT,
    ),
    FailureKind.REMOVED_TOOL: KindText(
        "A recorded tool is no longer listed",
        "The server no longer lists a tool (or prompt, resource, template) recorded under "
        "mcp-contracts/.",
        _ACCEPT,
    ),
    FailureKind.INVALID_LISTING: KindText(
        "A listing entry that breaks the MCP spec",
        "A tool's listing breaks the spec: its name, a schema's dialect or type, or a $ref "
        "that does not resolve.",
        "The schema check's failure names the place and the rule; fix the listing.",
    ),
    FailureKind.ACCEPTS_INVALID: KindText(
        "A tool ran an input its inputSchema forbids",
        "A call with input the inputSchema refuses returned a success result "
        "(--mcp-rejects-invalid=fail).",
        f"Validate inputs and refuse invalid ones with isError: true. {_REPLAY}",
    ),
    FailureKind.SERVER_UNAVAILABLE: KindText(
        "The MCP server could not be started",
        "The server did not start, or could not be restarted after a call killed it: what "
        "it would have been asked was not checked.",
        "The failure quotes what the server wrote to stderr; run its command by hand.",
    ),
    FailureKind.MISSING_RECORD: KindText(
        "No recorded contract, and CI records none",
        "The tool (or prompt, resource, template) has no file under mcp-contracts/, and a "
        "run in CI never writes one.",
        "Run pytest locally (it records what is missing) and commit the new files under "
        "mcp-contracts/.",
    ),
    FailureKind.SETUP: KindText(
        "The run could not check",
        "Something the check needs failed before the server was judged: a reset command, an "
        "unreadable record file, inputs that could not be generated, an error in the run.",
        "The failure says what failed and where.",
    ),
    FailureKind.CLIENT_SCHEMA: KindText(
        "A schema a chosen client refuses",
        "A schema or listing entry breaks a rule of a client chosen with --mcp-clients "
        "(the listing is valid MCP, but that client rejects it).",
        "The schema check's failure names the client's rule, the place and the fix "
        "(docs/clients.md).",
    ),
    FailureKind.STDOUT_NOISE: KindText(
        "A stdio server wrote what is not JSON-RPC on stdout",
        "Lines on stdout that are not JSON-RPC messages: clients that read stdout as the "
        "protocol break on them.",
        "Log to stderr; stdout is for protocol messages only.",
    ),
    FailureKind.DESCRIPTION_DRIFT: KindText(
        "A description changed",
        "A tool's or a property's description, an instruction to the model, changed "
        "(--mcp-descriptions=pin): the way tool poisoning arrives after a review.",
        f"Review the word diff in the failure. {_ACCEPT}",
    ),
    FailureKind.LINT: KindText(
        "A lint made an error",
        "A lint that --mcp-lints made an error found something (a missing description, "
        "hidden text, too many tools).",
        "The schema check's failure names the lint, the place and the fix (docs/lints.md).",
    ),
    FailureKind.ARGUMENT_INJECTION: KindText(
        "An argument was read as a program's option (CWE-88)",
        "A probe gave an argument the value --output=FILE, naming a file in a folder the "
        "run made, and the file appeared: the server passed the value to a program where "
        "it was read as an option (git writes any file it is told to this way).",
        "Refuse values that start with '-' where an operand is meant, or pass "
        "--end-of-options (or --) before them. The failure names the argument, the value "
        "and the file that appeared (docs/security.md).",
    ),
    FailureKind.COMMAND_INJECTION: KindText(
        "An argument reached a shell (CWE-78)",
        "A probe put `touch FILE` after shell syntax (;, |, &&, $(...), backticks) in an "
        "argument, naming a file in a folder the run made, and the file appeared: a shell "
        "ran what the argument said.",
        "Run programs with a list of arguments, not a command string through a shell. The "
        "failure names the argument, the value and the file that appeared "
        "(docs/security.md).",
    ),
    FailureKind.PATH_TRAVERSAL: KindText(
        "A path escaped the folder the server allows (CWE-22)",
        "The server refused a path plainly outside its allowed folder, yet read or wrote "
        "one outside it through a sibling folder whose name extends the allowed one, or a "
        "climb with '..'; or it read or wrote outside every folder it was given (its "
        "command line, its environment) and the client's roots it adopted: a canary's "
        "content came back, or a file appeared or changed there.",
        "Compare resolved paths component by component (os.path.commonpath, "
        "path.relative), not as strings. The failure names the path and the evidence "
        "(docs/security.md).",
    ),
    FailureKind.LINK_FOLLOWING: KindText(
        "A symlink led out of the folder the server allows (CWE-59)",
        "The server refused a path plainly outside its allowed folder, yet read or wrote "
        "through a symlink inside it that points outside: a canary's content came back, "
        "or a file appeared there.",
        "Resolve symlinks (realpath) before the check, and check what is opened. The "
        "failure names the path and the evidence (docs/security.md).",
    ),
    FailureKind.BROKEN_ANNOTATION: KindText(
        "A tool did what its annotations rule out",
        "A call of a tool annotated readOnlyHint: true created, deleted or changed a file "
        "the run watches, or one annotated destructiveHint: false deleted one. Clients run "
        "such tools without asking the user.",
        "Make the tool match its annotations, or annotate what it does. The failure names "
        "the input and the files that changed (docs/security.md).",
    ),
    FailureKind.TOOL_POISONING: KindText(
        "A description orders the model against the user (CWE-1427)",
        "A tool's description, or one of its properties' descriptions, tells the model to "
        "reach data the tool does not need (credential or private files), to send data to "
        "an address the description fixes, or to keep something from the user: the "
        "published tool-poisoning shapes. Every client puts descriptions before the model.",
        "Remove the orders from the description; a tool describes its own work. The "
        "failure quotes each order and names where it is (docs/security.md). "
        "--mcp-security=warn makes it a warning.",
    ),
    FailureKind.SLOW: KindText(
        "A tool answers slower than its latency limit",
        "The p95 latency of the tool's answered contract calls (from the request sent to its "
        "answer read) is above --mcp-max-p95-ms or the tool's max_p95_ms, over at least "
        "--mcp-latency-calls calls. The failure shows the slowest inputs.",
        "Make the slow inputs faster, or raise the limit where the tool is meant to be slow "
        "(max_p95_ms under [tool.mcp-contracts.tools.<name>]).",
    ),
}


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def same_problem_key(message: str) -> str:
    """``message`` with every number masked (see ``Finding.problem``)."""
    return _NUMBER.sub("#", message)


@dataclass(frozen=True)
class Finding:
    """One thing wrong, as a check found it. ``level`` says whether it fails the item or is
    only reported; ``kind`` is what sort of failure it is when it fails."""

    check: str
    message: str
    level: Level = Level.ERROR
    details: tuple[str, ...] = ()
    kind: FailureKind = field(kw_only=True)  # what sort of failure, when it fails its item
    # Findings a user acts on one by one (a client profile's rule, a lint) say which rule,
    # whose rule, where in the listing, and the fix; the run report lists them per tool.
    rule: str | None = field(default=None, kw_only=True)  # "gemini/array-items", a lint id
    client: str | None = field(default=None, kw_only=True)  # the profile: "claude", "openai", ...
    where: str | None = field(default=None, kw_only=True)  # "inputSchema $.properties.tags"
    fix: str | None = field(default=None, kw_only=True)  # "add `items`"

    @property
    def headline(self) -> str:
        """The first line of its failure: a ruled finding leads with its rule's id."""
        return f"[{self.rule}] {self.message}" if self.rule else self.message

    @property
    def all_details(self) -> tuple[str, ...]:
        """Where it is, the details, then the fix, for a finding that says them."""
        where = (f"at {self.where}",) if self.where else ()
        fix = (f"fix: {self.fix}",) if self.fix else ()
        return (*where, *self.details, *fix)

    def render(self) -> str:
        return "\n".join([self.headline, *(f"  {d}" for d in self.all_details)])

    @property
    def problem(self) -> str:
        """The message without its measurements, for "does a replay fail the same way":
        a server killed over the memory cap says how much it used, which differs by a few
        megabytes from run to run."""
        return same_problem_key(self.headline)


# The exception a finding names: its "exception: KeyError: 'x'" detail, the type in
# "raise an unexpected exception (KeyError: 'x')", or a text that starts with one.
_EXCEPTION_DETAIL = re.compile(r"^exception: ([A-Za-z_][\w.]*)(?::|$)")
_EXCEPTION_IN_MESSAGE = re.compile(r"unexpected exception \(([A-Za-z_][\w.]*)[:)]")
_EXCEPTION_TEXT = re.compile(r"^(?:isError )?text: ([A-Za-z_][\w.]*(?:Error|Exception|Exit)):")


# Distinct failures one check looks for at most before it stops (sequences, rejects_invalid):
# each is replayed or shrunk on fresh servers, and a hang costs a call timeout every time.
MAX_DISTINCT_FAILURES: Final = 3


def enough_failures_words(sent: str) -> str:
    """Why a check stopped at ``MAX_DISTINCT_FAILURES``, after ``sent`` (what it had made)."""
    return (
        f"stopped after {sent}: {MAX_DISTINCT_FAILURES} distinct failures found, the most "
        "the check looks for"
    )


def failure_identity(finding: Finding) -> tuple[str, str]:
    """What makes two findings of one tool the same failure for a check that goes on after
    its first (the sequences check, rejects_invalid): the failure kind and, for a crash,
    the exception type when the finding names one ("" when it does not). The message is no
    part of it: a "not found" that quotes each id would make every call a new failure."""
    name = ""
    for line in finding.details:
        match = _EXCEPTION_DETAIL.match(line) or _EXCEPTION_TEXT.match(line)
        if match:
            name = match.group(1)
            break
    else:
        match = _EXCEPTION_IN_MESSAGE.search(finding.message)
        name = match.group(1) if match else ""
    return str(finding.kind), name


CALLS_IN_COMMAND: Final = 10  # more than this many calls go in a file (--file)


def call_command_line(target: Target, calls: Sequence[tuple[str, Any]]) -> str:
    """The ``mcp-contracts call`` command that makes ``calls`` (tool, arguments) on the
    target, in order: inline pairs, or for a long sequence a file of them."""
    import shlex

    words = ["mcp-contracts", "call", *target.call_flags]
    if len(calls) <= CALLS_IN_COMMAND:
        for tool, arguments in calls:
            words += [tool, json.dumps(arguments, ensure_ascii=False, sort_keys=True)]
        return shlex.join(words)
    lines = [f"{tool} {json.dumps(arguments, ensure_ascii=False)}" for tool, arguments in calls]
    return (
        shlex.join([*words, "--file=calls.txt"])
        + f"   # calls.txt: these {len(calls)} lines\n"
        + "\n".join(lines)
    )


class Target(Protocol):
    """A server as the user named it (a stdio command, a URL, an in-process app): each kind
    supplies its own words, so no report asks which kind it is talking about."""

    @property
    def noun(self) -> str: ...  # "command", "url", "app": what the display is

    @property
    def display(self) -> str: ...

    @property
    def call_flags(self) -> tuple[str, ...]: ...  # what names it to mcp-contracts call

    @property
    def output_source(self) -> str | None: ...  # what its side output is called, if any

    @property
    def fresh_start(self) -> str: ...  # where a replay runs: "a freshly started server"

    @property
    def restart_caveat(self) -> str: ...  # what a restart of it does and does not reset

    def reproduce_where(self, *, after_handshake: bool) -> str: ...

    def output_block(self, tail: str | None, *, call_output_shown: bool) -> str: ...

    def start_failure(self, problem: str, stderr_tail: str) -> str: ...


@dataclass
class FailureReport:
    """A failure as the items print it: who, what, the input, how to reproduce."""

    server: str
    target: Target
    tool: str
    check: str
    problem: str
    kind: FailureKind  # what sort of failure: the run report counts by it
    details: Sequence[str] = ()
    arguments: Any = None
    request_json: str | None = None
    request_method: str = "tools/call"  # the method of ``request_json``
    request_after_handshake: bool = False
    stderr_tail: str | None = None
    notes: list[str] = field(default_factory=list)
    input_label: str = "smallest input found:"
    call_stderr: str | None = None  # what the server wrote while the failing call ran
    stderr_before: str = ""
    # What the server asked of the client while the failing call ran (sampling, elicitation,
    # roots), and the notifications it sent, one line each.
    client_exchanges: Sequence[str] = ()
    # A failure reached by a sequence of calls (the sequences check): each call and its
    # answer, and the JSON-RPC lines that replay it on ``replay_from``.
    sequence: Sequence[str] = ()
    replay: Sequence[str] = ()
    replay_from: str = ""
    # Calls before the failing one that may have changed the state it ran in.
    earlier_calls: Sequence[str] = ()
    # One command that makes the reproducing call(s) itself (mcp-contracts call).
    replay_command: str = ""
    # What ``tool`` names: a tool, or a prompt, resource or template (its key).
    subject: str = "tool"
    # Other failures the same check found after this one, each in its own report (its own
    # input or sequence and reproduction), shown after this one's.
    also: Sequence[FailureReport] = ()

    @property
    def severity(self) -> Severity:
        return severity_of(self.kind)

    @classmethod
    def for_tool(
        cls,
        server: ManagedServer,
        tool: str,
        check: str,
        problem: str,
        kind: FailureKind,
        **extra: Any,
    ) -> FailureReport:
        """A failure of a tool (or of "(all)" of them) that no single call shows: it names
        the server as it called itself, its command, the tool and the check."""
        surface = server.surface
        return cls(
            server=surface.name if surface else server.command.display,
            target=server.command,
            tool=tool,
            check=check,
            problem=problem,
            kind=kind,
            **extra,
        )

    @classmethod
    def for_call(
        cls,
        server: ManagedServer,
        tool: str,
        check: str,
        problem: str,
        kind: FailureKind,
        outcome: CallOutcome,
        **extra: Any,
    ) -> FailureReport:
        """A failure one call shows: its input, the request that reproduces it, what the
        server asked of the client and wrote while it ran."""
        tail = outcome.failure.stderr_tail if outcome.failure else None
        fields: dict[str, Any] = {
            "arguments": outcome.arguments,
            "request_json": outcome.request_json(),
            "request_method": outcome.method,
            "client_exchanges": outcome.client.report_lines(),
            "request_after_handshake": server.protocol_version != MODERN_VERSION,
            "stderr_tail": tail if tail else server.stderr_tail(),
            "call_stderr": outcome.stderr,
            "stderr_before": outcome.stderr_before,
        }
        return cls.for_tool(server, tool, check, problem, kind, **(fields | extra))

    def render(self) -> str:
        target = self.target
        # The first line is what pytest's short summary shows: make it the problem itself.
        parts = [self.problem, *(f"  {d}" for d in self.details)]
        parts += [
            "",
            f"server: {shown(self.server)}  ({target.noun}: {target.display})",
            f"{self.subject}: {shown(self.tool)}    check: {self.check}",
        ]
        if self.sequence:
            parts += ["", "shortest sequence found (each call, then its answer):"]
            parts += [indent(line) for line in self.sequence]
        elif self.arguments is not None:
            parts += ["", self.input_label, indent(short_json(self.arguments))]
        if self.earlier_calls:
            parts += [
                "",
                "earlier calls that may have changed the state this call ran in (the newest last):",
                *(indent(line) for line in self.earlier_calls),
            ]
        if self.replay:
            how = "POST them to the URL" if target.noun == "url" else "write them to its stdin"
            parts += [
                "",
                f"reproduce on {self.replay_from}: {how}, each after the answer to the one before:",
            ]
            parts += [
                indent(line if len(line) < 4000 else line[:4000] + "…") for line in self.replay
            ]
        elif self.request_json is not None:
            when = target.reproduce_where(after_handshake=self.request_after_handshake)
            request = self.request_json
            parts += [
                "",
                f"reproduce with this {self.request_method} request ({when}):",
                indent(request if len(request) < 4000 else request[:4000] + "…"),
            ]
        if self.replay_command:
            parts += ["", "or with one command:", indent(self.replay_command)]
        if self.client_exchanges:
            parts += [
                "",
                "what the server asked of the client during this call:",
                *(f"  {line}" for line in self.client_exchanges),
            ]
        parts += ["", *self.notes] if self.notes else []
        if self.call_stderr is not None and target.output_source is not None:
            block = call_stderr_block(
                self.call_stderr, self.stderr_before, source=target.output_source
            )
            parts += ["", block]
        block = target.output_block(
            self.stderr_tail, call_output_shown=self.call_stderr is not None
        )
        parts += ["", block] if block else []
        total = len(self.also) + 1
        for number, other in enumerate(self.also, 2):
            parts += ["", f"failure {number} of {total} of this check:"]
            parts += [indent(line) if line else "" for line in other.render().splitlines()]
        return "\n".join(parts)


class ContractFailure(Exception):
    """A check failed; ``report`` says what, for whom, and with which input; ``kind`` and
    ``severity`` say what sort of failure it is, for the run report."""

    # The call the failure was found on, when it was one call (runs/reproduce replays it).
    outcome: CallOutcome | None = None
    # The first call that failed this way, before shrinking: near a boundary (a time or a
    # memory limit) the smallest input may not fail again where the first one does.
    first_outcome: CallOutcome | None = None
    # What a replay of ``outcome`` must show to fail "the same way", when the report words
    # the problem for its context ("without its required argument 'text': ..."): the
    # replay's judge sees the request alone. None: the report's own problem.
    replay_problem: str | None = None

    def __init__(self, report: FailureReport) -> None:
        super().__init__(report.problem)
        self.report = report

    @property
    def kind(self) -> FailureKind:
        return self.report.kind

    @property
    def severity(self) -> Severity:
        return self.report.severity


def combined_failure(errors: Sequence[ContractFailure]) -> ContractFailure:
    """One failure for an item whose check went on after its first failure and found
    others: the gravest (``SEVERITY_ORDER``; of equals, the first met) as the headline, its
    kind the item's, so the run report and SARIF count a crash found behind a shallower
    failure as a crash; the others shown after it (``FailureReport.also``), each with its
    own input and reproduction."""
    ranked = sorted(errors, key=lambda error: SEVERITY_ORDER.index(error.severity))
    first, others = ranked[0], ranked[1:]
    if others:
        more = f"{len(others)} more failure{'s' if len(others) > 1 else ''}"
        first.report.problem = f"{first.report.problem} (and {more} of this check below)"
        first.report.also = [error.report for error in others]
    return first


EARLIER_CALLS_SHOWN: Final = 5


def entry_failure(
    server: ManagedServer,
    entry: Entry,
    check: str,
    problem: str,
    details: tuple[str, ...] = (),
    kind: FailureKind = FailureKind.SETUP,
    **extra: Any,
) -> ContractFailure:
    """A failure of ``check`` for ``entry`` (a tool, prompt, resource or template) that no
    single call shows: its setup, a missing record, drifted content."""
    name = entry.key or f"(no {entry.listing.key_field})"
    report = FailureReport.for_tool(server, name, check, problem, kind, details=details, **extra)
    report.subject = str(entry.kind)
    return ContractFailure(report)


def call_failure(
    server: ManagedServer,
    entry: Entry,
    outcome: CallOutcome,
    finding: Finding,
    *,
    check: str | None = None,
    label: str | None = None,
    notes: Sequence[str] = (),
) -> ContractFailure:
    """The failure one call of ``entry`` shows: ``finding`` under ``check`` (the finding's
    own by default), ``label`` heading its input when that is not the smallest found,
    ``notes`` under it. A tool's report lists the earlier calls that may have left the
    state it failed in."""
    earlier = earlier_state_lines(server) if entry.kind is EntryKind.TOOL else []
    report = FailureReport.for_call(
        server,
        entry.key,
        check or finding.check,
        finding.headline,
        finding.kind,
        outcome,
        details=finding.all_details,
        notes=list(notes),
        earlier_calls=earlier,
    )
    report.subject = str(entry.kind)
    if label is not None:
        report.input_label = label
    failure = ContractFailure(report)
    failure.outcome = outcome
    return failure


# The check a server that did not come back fails, by the kind of entry being called.
_CALLING_CHECK: Final = {
    EntryKind.TOOL: Check.CONTRACT,
    EntryKind.PROMPT: Check.GET,
    EntryKind.RESOURCE: Check.READ,
    EntryKind.TEMPLATE: Check.READ,
}


def unavailable(
    server: ManagedServer, entry: Entry, exc: ServerError, check: str | None = None
) -> ContractFailure:
    """The failure of a check whose server died and could not be started again."""
    return entry_failure(
        server,
        entry,
        check or _CALLING_CHECK[entry.kind],
        f"the server could not be restarted for this {entry.kind}: {exc.message}",
        kind=FailureKind.SERVER_UNAVAILABLE,
        stderr_tail=exc.stderr_tail,
    )


def earlier_state_lines(server: ManagedServer) -> list[str]:
    """The calls before the last one made on this server process that may have left state
    the last one ran in: invalid inputs that were accepted (a tool that took one may have
    stored it), and, on a server that declares readOnlyHint on some of its tools, successful
    calls of its other tools. A server that declares none would make every call a suspect,
    so there only accepted invalid inputs are listed."""
    surface = server.surface
    annotated = {
        tool.name: tool.annotations.get("readOnlyHint") is True
        for tool in (surface.tools if surface else [])
    }
    declares = any(annotated.values())
    calls = list(server.recent_calls)[:-1]  # the last call is the failing one
    suspects = [
        call
        for call in calls
        if call.succeeded and (call.invalid or (declares and not annotated.get(call.tool, False)))
    ]
    lines = []
    if len(suspects) > EARLIER_CALLS_SHOWN:
        lines.append(f"({len(suspects) - EARLIER_CALLS_SHOWN} earlier ones not shown)")
    for call in suspects[-EARLIER_CALLS_SHOWN:]:
        args = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
        args = args if len(args) <= 200 else args[:200] + "…"
        why = "  (an invalid input, accepted: sent by rejects_invalid)" if call.invalid else ""
        lines.append(f"{call.tool} {args}{why}")
    return lines
