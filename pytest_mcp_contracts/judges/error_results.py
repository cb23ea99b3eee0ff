"""Judge a call that failed: the tool's own refusal, or a crash.

The official SDKs turn a tool's crash into an ordinary ``isError: true`` result, so a client
sees the same shape for ``unknown sku`` (a clean answer) and for an ``IndexError`` (a bug).
What tells them apart is where the exception came from, read from the evidence in one order
(docs/explanation/iserror.md, "The evidence order"):

1. An SDK's own refusal of the tool's *output* (its outputSchema or output model): a defect
   of the tool, ``output-invalid``.
2. **(a)** A trace at hand, in the result text or on the server's stderr while this call ran:
   its raise site (``judges/tracebacks``). Raised by the tool's own code with an explicit
   ``raise``/``throw`` and a message: a refusal. Raised by the runtime at a line of the
   tool's own code, or escaped from a library: a crash.
3. **(b)** Without a trace, the message, taken out of the phrases an SDK puts around *any*
   exception (``Error executing tool <name>:``, ``Error calling tool '<name>':``: neutral,
   ``_WRAPPERS``). A language runtime's own error message (``Cannot read properties of
   undefined``, ``'NoneType' object has no attribute``) is a crash; the same words after the
   server framed the input as refused are a refusal.
4. **(c)** Anything that says only that something unexpected happened (a wrapper with no
   message, "internal error") is ``suspect``: counted and named in a warning, never a
   failure. An isError result in the server's own words is a refusal.

Certain evidence of a crash fails the contract item, unless the user made that class a
warning. The same evidence in a result *without* ``isError`` (a server that caught its own
exception and returned the message) makes it an ``error-as-result``, which fails like a
crash; a refusal there, in words or in an error-shaped structure, is a
``disguised-refusal``, counted apart from real results (``judge_success_result``). Pure: the
text of the result and the call's stderr go in, an ``ErrorVerdict`` comes out. The SDK
wordings were checked on the wire (docs/error-results.md, by SDK generation).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contracts.contracts.classify import parse_json_text
from pytest_mcp_contracts.judges.tracebacks import (
    RUNTIME_WORDS,
    TRACE_MARKERS,
    Origin,
    RaiseSite,
    raise_site,
)
from pytest_mcp_contracts.vocabulary import FAILING_CLASSES, ErrorClass


@dataclass(frozen=True)
class ErrorVerdict:
    kind: ErrorClass
    evidence: str = ""  # which signature matched, in words
    exception: str = ""  # "IndexError: string index out of range", when it can be told
    paths: tuple[str, ...] = ()  # output-invalid: the fields the SDK's message names

    @property
    def certain(self) -> bool:
        return self.kind in FAILING_CLASSES


REFUSAL: Final = ErrorVerdict(ErrorClass.REFUSAL)

# -- SDK wordings ------------------------------------------------------------------------
# Outputs an SDK refused to send because they break the tool's own outputSchema or model:
# TypeScript 1.x (with "MCP error -32602: " before it), fastmcp, Python 1.x low-level server;
# Java; the Go SDK; mcp-go; rmcp; Python 1.x FastMCP's output model (after its prefix).
_OUTPUT_INVALID: Final = (
    (re.compile(r"^(?:MCP error -32602: )?Output validation error:"), "the TypeScript SDK's"),
    (
        re.compile(r"^Tool \(.+\) output validation failed:|^Response missing structured content"),
        "the Java SDK's",
    ),
    (re.compile(r"^validating tool output:"), "the Go SDK's"),
    (re.compile(r"^output schema validation failed:|^invalid structured content:"), "mcp-go's"),
    (re.compile(r"^Failed to serialize structured content:"), "rmcp's"),
    (re.compile(r"\d+ validation errors? for \w*Output\b"), "the Python SDK's"),
    # Python mcp 1.x FastMCP: a prompt that returned what cannot be a message.
    (re.compile(r"Could not convert prompt result to message"), "the Python SDK 1.x's"),
)
# An SDK's own argument validation: on a schema-valid input, the schema and the server's
# validation disagree (suggestive: lenient schemas, formats checked differently).
_ARGUMENTS_REFUSED: Final = re.compile(
    r"\d+ validation errors? for (?:\w+Arguments|call\[\w+\])|Input validation error:"
    r"|^validating \"arguments\":|^input schema validation failed:"
    r"|^Tool \(.+\) input validation failed:|^failed to deserialize parameters:"
    r"|^Invalid parameters for tool '",
    re.M,
)
# Phrases an SDK (or a server's catch-all) puts around the message of *any* exception: they
# say an exception happened, not which kind, so they are taken off before the message is
# judged (docs/error-results.md names each SDK's). Python mcp 1.x FastMCP and 2.x MCPServer:
# "Error executing tool <name>: <message>" (2.x: no message unless a ToolError); fastmcp 2-4:
# "Error calling tool '<name>': <message>"; the TypeScript SDK: "MCP error <code>: "; C#,
# Ruby, Kotlin: their own; and the "Error: " a server's own catch-all writes.
_WRAPPERS: Final = re.compile(
    r"MCP error -?\d+:\s*"
    r"|Error executing tool \S+?(?::\s+|$)"
    r"|Error calling tool '[^']*'(?::\s*|$)"
    r"|An error occurred invoking '[^']*'(?:[.:]\s*|$)"
    r"|Internal error calling tool \S+(?::\s*|$)"
    # Reads and gets: Python mcp 1.x FastMCP and fastmcp ("Error rendering prompt <name>:
    # <exception text>", no traceback in 1.x), MCPServer 2.x (no message at all).
    r"|Error rendering prompt \S+?(?::\s+|$)"
    r"|Error (?:creating resource from template|reading resource) \S+?(?::\s+|$)"
    r"|(?:Tool )?(?:execution )?(?:error|exception)\s*:\s*",
    re.I,
)
# A server's own catch-all wrapper: words that say only that something failed, then a colon
# or a dash ("Failed to read sheet: ", "Error while saving - ").
_FAILURE_WRAPPER: Final = re.compile(
    r"\b(?:fail(?:ed|ure|s)?|errors?|exceptions?|unable to|could ?n[o']t|can ?n[o']t|can't)\b"
    r"[^:\n]{0,80}[:\-\u2014]\s*$",
    re.I,
)
# A panic is the Go runtime's crash, whoever recovered it.
_PANIC: Final = re.compile(r"^panic recovered in \S+ tool handler:")
# What a wrapper holds for an exception without a message (Kotlin's "null").
_NO_MESSAGE: Final = frozenset({"", "null", "undefined", "None"})
# Python's KeyError says only the key: "Error executing tool t: 'id'".
_KEY_ERROR: Final = re.compile(r"'[^'\n]{1,200}'|\"[^\"\n]{1,200}\"|-?\d{1,20}")
# How a server frames a refused input: it is invalid, unknown, missing, not found, not allowed.
_INPUT_REFUSED: Final = re.compile(
    r"\b(?:invalid|unknown|unsupported|missing|required|must|expected|not (?:found|allowed|"
    r"permitted|supported|valid|a valid)|no such|does ?n[o']t exist|out of range|bad (?:request|"
    r"input|argument|parameter)|(?:access|permission) denied|outside (?:of )?(?:the )?allowed)\b",
    re.I,
)

# Often a crash, sometimes a deliberate message: counted, never failed on.
_SUGGESTIVE: Final = re.compile(
    r"\binternal (?:server )?error\b|\bunexpected (?:error|exception)\b|\bunhandled\b"
    r"|\bexception\b|\bstack ?trace\b|\bpanic(?:ked)?\b|\bsegmentation fault\b"
    r"|\bsomething went wrong\b|^\w*(?:Error|Exception): ",
    re.I | re.M,
)
_EXCEPTION_LINE = re.compile(
    r"^(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning)(?::.*)?)$"
)


def result_text(result: Mapping[str, Any]) -> str:
    """The text blocks of a result, joined: what an SDK wrote into an isError result."""
    content = result.get("content")
    if not isinstance(content, list):
        return ""
    texts = [
        block["text"]
        for block in content
        if isinstance(block, Mapping) and isinstance(block.get("text"), str)
    ]
    return "\n".join(texts)


def judge_error_result(
    tool_name: str,
    result: Mapping[str, Any],
    stderr: str | None,
    arguments: Any = None,
) -> ErrorVerdict:
    """Classify one ``isError: true`` result by where its exception came from.

    The evidence order (docs/explanation/iserror.md): an SDK's refusal of the tool's own
    output first; then (a) a trace at hand, in the text or on ``stderr`` while this call ran
    (None: the transport has none), judged by its raise site (``judges/tracebacks``); then
    (b) the message, unwrapped from the neutral phrases SDKs put around any exception
    (``_by_message``). Evidence that lies inside a quote of the input, in the text or on
    stderr, does not count: a refusal that echoes its input ("unknown sku: 'panic'") must not
    be judged by what the generator sent (and hypothesis also draws string constants from
    local code, this package's own evidence patterns included). Evidence around a quoted
    input still counts, so an input such as "line" cannot hide a real traceback.
    """
    echo = _Echo(arguments)
    # The evidence is near the start; huge texts are cut.
    text = result_text(result)[:20_000]
    during = (stderr or "")[-200_000:]
    # An error-shaped JSON text ({"error": "..."}, pretty-printed over lines) says its
    # message in its error key: that is the line to judge (rule 2, as without isError).
    said = _said_in_json(parse_json_text(text)) or _said_in_json(result.get("structuredContent"))
    first = said.splitlines()[0] if said else text.strip().splitlines()[0] if text.strip() else ""
    for pattern, whose in _OUTPUT_INVALID:
        if echo.search(pattern, first) or (
            pattern.pattern[0] != "^" and echo.search(pattern, text)
        ):
            return ErrorVerdict(
                ErrorClass.OUTPUT_INVALID,
                f"{whose} wording for an output that breaks what it declares (an outputSchema, "
                "a model, a prompt's messages)",
                paths=_ts_paths(text) or _pydantic_paths(text),
            )
    logged = _traced(during, echo)
    if logged is not None and _output_conversion_failed(during):
        return ErrorVerdict(
            ErrorClass.OUTPUT_INVALID,
            "the traceback on stderr shows the return value failing the tool's output model",
            exception=logged.exception,
            paths=_pydantic_paths(during),
        )
    site = _traced(text, echo) or logged
    if site is not None:
        crash, suspect = ErrorClass.UNEXPECTED_EXCEPTION, ErrorClass.SUSPECT
        verdict = _by_site(site, ErrorClass.REFUSAL, crash, suspect)
        if verdict is not None:
            return verdict
        # The tool's own frame, its line not shown: the exception's own words decide.
        return _traced_message(site, _by_message(site.exception, site.exception, echo))
    panic = echo.search(_PANIC, first)
    if panic is not None:
        return ErrorVerdict(ErrorClass.UNEXPECTED_EXCEPTION, "mcp-go's wording for a panic")
    return _by_message(_unwrapped(first, echo), text, echo)


def _traced_message(site: RaiseSite, verdict: ErrorVerdict) -> ErrorVerdict:
    evidence = f"{site.words()}; {verdict.evidence}" if verdict.evidence else site.words()
    return ErrorVerdict(verdict.kind, evidence, verdict.exception or site.exception[:300])


def _traced(text: str, echo: _Echo) -> RaiseSite | None:
    """The raise site of a trace in ``text`` that is not a quote of the input."""
    if not text or not _traceback_in(text, echo):
        return None
    return raise_site(text)


def _by_site(
    site: RaiseSite, refusal: ErrorClass, crash: ErrorClass, suspect: ErrorClass
) -> ErrorVerdict | None:
    """Rule (a): a deliberate raise is ``refusal``, the runtime's or a library's exception
    ``crash``, a validation library's ``suspect``; None when the frame does not show its
    line."""
    if site.origin is Origin.DELIBERATE:
        return ErrorVerdict(refusal, site.words(), exception=site.exception[:300])
    if site.origin in (Origin.RUNTIME, Origin.LIBRARY):
        return ErrorVerdict(crash, site.words(), exception=site.exception[:300])
    if site.origin is Origin.VALIDATION:
        return ErrorVerdict(suspect, site.words(), exception=site.exception[:300])
    return None


def _runtime_verdict(
    message: str, echo: _Echo, crash: ErrorClass, refusal: ErrorClass, suspect: ErrorClass
) -> ErrorVerdict | None:
    """Rule (b) on a message that holds a language runtime's own error words (None: it
    holds none). Alone, or after a wrapper of the server's own that says only that something
    failed ("Failed to read sheet: list index out of range": a catch-all, as neutral as an
    SDK's), they are a ``crash``; after words that frame a refused input ("invalid
    arguments: '<' not supported between ...") a ``refusal``: the server caught the error
    and said no; inside any other sentence ``suspect``."""
    runtime = echo.search(RUNTIME_WORDS, message)
    if runtime is None:
        return None
    words = runtime.group(0).strip()
    before = message[: runtime.start()]
    framed = echo.search(_INPUT_REFUSED, before)
    if runtime.start() > 4 and framed is not None:
        return ErrorVerdict(
            refusal,
            f"framed as a refused input ({framed.group(0).strip()!r}) before it quotes a "
            f"runtime's message ({words!r})",
        )
    if runtime.start() <= 4 or _FAILURE_WRAPPER.search(before):
        wrapped = " after a wrapper that says only that something failed" if before else ""
        return ErrorVerdict(
            crash,
            f"a language runtime's own error message ({words!r}){wrapped}",
            exception=message[:300],
        )
    return ErrorVerdict(suspect, f"a language runtime's words inside the server's own ({words!r})")


def _unwrapped(line: str, echo: _Echo) -> str:
    """The message inside the neutral phrases an SDK (or a server's catch-all) puts around
    any exception: ``Error executing tool t: 'NoneType' ...`` is the runtime's message."""
    for _ in range(5):  # nested wrappers ("Error executing tool a: Error executing tool b")
        wrapper = echo.search(_WRAPPERS, line)
        if wrapper is None or wrapper.start() != 0:
            break
        line = line[wrapper.end() :].strip()
    return line


def _by_message(message: str, text: str, echo: _Echo) -> ErrorVerdict:
    """Rule (b), without a trace: a runtime's own error message, alone or inside a wrapper,
    is a crash; the same words after the server's own framing of a refused input are a
    refusal (it caught the error and said no); a wrapper with no message, words that say
    something unexpected happened, or a runtime's words after other framing are suspect
    (rule c). Anything else is the server's own words in an isError result: a refusal."""
    if message in _NO_MESSAGE:
        if not text.strip():
            return REFUSAL  # isError and nothing more: nothing says it crashed
        return ErrorVerdict(
            ErrorClass.SUSPECT,
            "an SDK's wrapper with no message: an exception was raised, of no known kind",
        )
    crash = ErrorClass.UNEXPECTED_EXCEPTION
    runtime = _runtime_verdict(message, echo, crash, ErrorClass.REFUSAL, ErrorClass.SUSPECT)
    if runtime is not None:
        return runtime
    if _KEY_ERROR.fullmatch(message):
        return ErrorVerdict(
            ErrorClass.UNEXPECTED_EXCEPTION,
            "a bare quoted key, as a Python KeyError says",
            exception=f"KeyError: {message}",
        )
    if echo.search(_ARGUMENTS_REFUSED, text):
        return ErrorVerdict(
            ErrorClass.SUSPECT,
            "the server's own argument validation refused an input its inputSchema allows",
        )
    suggestive = echo.search(_SUGGESTIVE, message)
    if suggestive is not None:
        return ErrorVerdict(ErrorClass.SUSPECT, f"the words {suggestive.group(0).strip()!r}")
    return REFUSAL


# -- results without isError ---------------------------------------------------------------
# Many servers catch their own exceptions and return the message as an ordinary result. What
# is judged is the first line, and a short text's rest only after a first line that refuses:
# a document that mentions an error in its body is content. Tuned on office-word-mcp-server,
# mcp-server-git, mcp-server-time, server-everything and server-memory, whose correct
# answers none of these match (docs/explanation/iserror.md, "Errors returned as successful
# results").
_SHORT: Final = 400
_BREAKS: Final = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")
# Words a refusal starts with.
_REFUSAL_LEAD: Final = re.compile(
    r"^[^\w'\"]{0,4}(?:"
    r"(?:fatal |internal |unexpected )?(?:error|exception)\s*[:!\-\u2014\[(]"
    r"|(?:an? )?(?:\w+ )?error (?:occurred|was raised|while|when|during|in|executing|calling|"
    r"running|reading|writing|getting|creating|updating|deleting|processing|loading|parsing|"
    r"opening|saving|adding|fetching|retrieving)\b"
    r"|failed\b|failure\s*[:!]|unable to\b|could ?n[o']t\b|can ?n[o']t\b|can't\b"
    r"|invalid\b|unsupported\b|no such\b|not (?:found|allowed|permitted|supported|authori[sz]ed)\b"
    r"|unknown \w+(?: \w+)?\s*[:'\"`]"
    r"|missing (?:required )?(?:\w+ )?(?:argument|parameter|field|value)"
    r"|(?:access|permission) denied\b"
    r")",
    re.I,
)
# Words a short refusal has anywhere in its first line ("Document x.docx does not exist").
_REFUSAL_WORDS: Final = re.compile(
    r"\b(?:does ?n[o']t|did ?n[o']t|no longer) exists?\b|\bnot found\b|\bno such (?:\w+ )?\w+"
    r"|\b(?:access|permission) denied\b|\boutside (?:of )?(?:the )?allowed\b"
    r"|\b(?:is|are) not (?:allowed|permitted|supported|a valid)\b|\bfailed to\b"
    r"|\bunable to\b|\bcould ?n[o']t (?:be )?\w+",
    re.I,
)
# A JSON text that says it is an error: {"error": "..."}, and {"success": false, ...} or
# {"status": "error", ...} with nothing but an error's keys ({"status": "failed", "job": 7}
# is a job's state, told correctly).
_ERROR_KEYS: Final = ("error", "Error", "errorMessage", "error_message")
_ERROR_SHAPE: Final = frozenset(
    {"success", "ok", "status", "message", "error", "errors", "details", "code", "reason"}
)


def judge_success_result(
    result: Mapping[str, Any],
    arguments: Any = None,
    *,
    output_schema: Mapping[str, Any] | None = None,
) -> ErrorVerdict | None:
    """Judge a result without ``isError``: None for a real result, else ``error-as-result``
    (a crash's evidence, by the same rules as an isError result: a trace whose raise site is
    the runtime or a library, a runtime's own error message) or ``disguised-refusal`` (the
    tool said no without saying isError).

    Rule 2 of the evidence order: a result whose *structure* says error is no real result,
    wherever the error sits: ``{"error": "..."}``, ``{"success": false, ...}`` or
    ``{"status": "error", ...}`` at the top of the structured content or of a JSON text, or
    one level down under a single wrapper key (``{"result": {"error": ...}}``: how FastMCP in
    ``mcp`` 1.x sends a tool's dict). Then the text: its first line refusing, or a short
    text's first line saying a thing does not exist.

    ``output_schema``: the tool's declared one; an error key it declares is a field of the
    result, not an error (``{"valid": false, "error": "..."}`` from a validator). Its
    structured content, when it does not say error, is the result whatever the text says
    (check_result validates it), unless it is only a string in a wrapper:
    ``{"result": "Error: ..."}`` is how the Python SDK sends any tool annotated ``-> str``.
    Evidence inside a quote of the input does not count, as for isError results.
    """
    structured = result.get("structuredContent")
    fields = _declared_fields(output_schema)
    said = _said_in_json(structured, fields)
    if said is not None:
        return _said_verdict(said, _Echo(arguments), "the structured content says it is an error")
    if output_schema is not None and structured is not None and not _wrapped_string(structured):
        return None
    text = result_text(result)
    data = parse_json_text(text)
    said = _said_in_json(data, fields)
    if said is not None:
        text = said if said else text
    elif data is not None:
        return None  # JSON data is content, whatever words its values hold
    text = text[:20_000].strip()
    if not text:
        return None
    # A line break inside a quote of the input does not end the first line: a generated
    # name with one in it is echoed ("Document a<LF>b.docx does not exist"). Only its first
    # quote: a value that is only a line break is in every text (a help article's title
    # "Troubleshooting <LF>", every line break after it made one line of the whole article).
    broken = sorted(
        {value for value in _strings(arguments, 0, shortest=1) if _BREAKS.search(value)},
        key=len,
        reverse=True,
    )[:50]
    for value in broken:
        text = text.replace(value, _BREAKS.sub(" ", value), 1)
    echo = _Echo([arguments, [_BREAKS.sub(" ", value) for value in broken]])
    lead = text.split("\n", 1)[0].strip()[:500]
    short = len(text) <= _SHORT
    # Refusal words past the first line are content: a short document may say that
    # something "does not exist" in its third paragraph.
    refusal = echo.search(_REFUSAL_LEAD, lead) or (
        echo.search(_REFUSAL_WORDS, lead) if short else None
    )
    head = "\n".join(text.splitlines()[: 50 if refusal or said is not None else 3])
    if _traceback_in(head, echo):
        site = raise_site(head)
        if site is None:  # a trace whose frames tell nothing (Java's): its words decide
            return _said_verdict(lead, echo, "a trace in the result text")
        disguised = ErrorClass.DISGUISED_REFUSAL
        by_site = _by_site(site, disguised, ErrorClass.ERROR_AS_RESULT, disguised)
        return by_site or _traced_message(site, _said_verdict(site.exception, echo, ""))
    if short:
        verdict = _said_verdict(lead, echo, "")
        if verdict.kind is ErrorClass.ERROR_AS_RESULT:
            return verdict
    if said is not None:
        return ErrorVerdict(ErrorClass.DISGUISED_REFUSAL, "a JSON text that says it is an error")
    if refusal:
        return ErrorVerdict(ErrorClass.DISGUISED_REFUSAL, f"the words {refusal.group(0).strip()!r}")
    return None


def _said_verdict(message: str, echo: _Echo, evidence: str) -> ErrorVerdict:
    """What an error message the tool returned as a result is: a runtime's own message,
    alone or after a neutral wrapper ("Error: 'NoneType' object has no attribute ..."), is a
    crash returned as a result; anything else a refusal."""
    unwrapped = _unwrapped(message.strip().split("\n", 1)[0], echo)
    disguised = ErrorClass.DISGUISED_REFUSAL
    verdict = _runtime_verdict(unwrapped, echo, ErrorClass.ERROR_AS_RESULT, disguised, disguised)
    if verdict is not None and verdict.kind is ErrorClass.ERROR_AS_RESULT:
        return verdict
    return ErrorVerdict(disguised, evidence)


def _wrapped_string(structured: Any) -> bool:
    return (
        isinstance(structured, dict)
        and len(structured) == 1
        and isinstance(next(iter(structured.values())), str)
    )


def _declared_fields(schema: Mapping[str, Any] | None) -> frozenset[str]:
    """The property names an outputSchema declares at its top and one level down."""
    if not isinstance(schema, Mapping):
        return frozenset()
    names: set[str] = set()
    properties = schema.get("properties")
    for name, sub in properties.items() if isinstance(properties, Mapping) else ():
        names.add(name)
        inner = sub.get("properties") if isinstance(sub, Mapping) else None
        names.update(inner if isinstance(inner, Mapping) else ())
    return frozenset(names)


def _said_in_json(value: object, declared: frozenset[str] = frozenset()) -> str | None:
    """The message of a JSON value that says it is an error ("" when it has none), else
    None."""
    if not isinstance(value, dict):
        return None
    if len(value) == 1 and isinstance(next(iter(value.values())), dict):
        # {"result": {"error": ...}}: FastMCP in mcp 1.x wraps a tool's dict so
        return _said_in_json(next(iter(value.values())), declared)
    for key in _ERROR_KEYS:
        if key in declared:
            continue
        message = value.get(key)
        if isinstance(message, dict):
            message = message.get("message")
        if isinstance(message, str) and message.strip():
            return message.strip()
    failed = value.get("success") is False or value.get("ok") is False
    failed = failed or value.get("status") in ("error", "failed", "failure")
    if failed and value.keys() <= _ERROR_SHAPE:
        message = value.get("message")
        return message.strip() if isinstance(message, str) else ""
    return None


class _Echo:
    """Where a text quotes the input: its strings as they are, or escaped the way Python's
    repr, JSON and JavaScript write them (a control character or a quote comes out
    escaped)."""

    def __init__(self, arguments: Any) -> None:
        forms = set()
        for value in _strings(arguments, 0)[:200]:
            forms |= {
                value,
                repr(value)[1:-1],
                json.dumps(value)[1:-1],
                json.dumps(value, ensure_ascii=False)[1:-1],
            }
        self.forms = [form for form in forms if len(form) >= 3]

    def spans(self, text: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        for form in self.forms:
            at = text.find(form)
            while at >= 0 and len(found) < 10_000:
                found.append((at, at + len(form)))
                at = text.find(form, at + 1)
        return found

    def search(self, pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
        """The first match of ``pattern`` in ``text`` that is not inside a quote of the
        input."""
        spans = None
        for match in pattern.finditer(text):
            if spans is None:
                spans = self.spans(text) if self.forms else []
            start, end = match.span()
            if not any(left <= start and end <= right for left, right in spans):
                return match
        return None


def _strings(value: Any, depth: int, *, shortest: int = 3) -> list[str]:
    if isinstance(value, str):
        return [value] if len(value) >= shortest else []
    if depth > 20:
        return []
    if isinstance(value, Mapping):
        return [
            s
            for key in value
            for s in (
                *_strings(key, depth + 1, shortest=shortest),
                *_strings(value[key], depth + 1, shortest=shortest),
            )
        ]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item, depth + 1, shortest=shortest)]
    return []


def _traceback_in(text: str, echo: _Echo) -> str:
    for pattern, what in TRACE_MARKERS:
        if echo.search(pattern, text):
            return what
    return ""


def _output_conversion_failed(stderr: str) -> bool:
    # MCPServer converts a return value in FuncMetadata.convert_result; pydantic's
    # ValidationError out of it is the output model refusing what the tool returned.
    return "convert_result" in stderr and "ValidationError" in stderr


def _pydantic_paths(stderr: str) -> tuple[str, ...]:
    """Field locations from the last pydantic ValidationError in a traceback: the lines
    after "N validation error(s) for Model" that are not indented."""
    lines = stderr.splitlines()
    starts = [i for i, line in enumerate(lines) if re.search(r"\d+ validation errors? for ", line)]
    if not starts:
        return ()
    paths: list[str] = []
    for line in lines[starts[-1] + 1 :]:
        if not line.strip() or line.startswith("    "):
            continue
        if line.startswith("  ") and paths and ":" not in paths[-1]:
            # pydantic's message for the field just named, without its [type=...] part
            paths[-1] += ": " + re.sub(r"\s*\[type=.*$", "", line.strip())
            continue
        if line.startswith(("  ", "\t")):
            continue
        if " " in line.strip() or _EXCEPTION_LINE.match(line.strip()):
            break
        paths.append(_dotted_to_json_path(line.strip()))
    return tuple(dict.fromkeys(paths))[:10]


def _dotted_to_json_path(dotted: str) -> str:
    out = "$"
    for part in dotted.split("."):
        out += f"[{part}]" if part.isdecimal() else f".{part}"
    return out


def _ts_paths(text: str) -> tuple[str, ...]:
    """Paths in the TypeScript SDK's message: Ajv's "data/total must be number" and zod's
    "path": ["total"] forms."""
    paths: list[str] = []
    for match in re.finditer(r"(?:^|[\s,:])(?:data)?((?:/[\w$-]+)+)\s+(must\b[^,;\n]*)", text):
        parts = match.group(1).strip("/").split("/")
        where = "$" + "".join(f"[{p}]" if p.isdecimal() else f".{p}" for p in parts)
        paths.append(f"{where}: {match.group(2).strip()}")
    # zod 4 through SDK 1.3x: "...for tool t: Invalid input: expected number, received
    # string at total; ..."
    tail = re.split(r"for tool \S+?: ", text, maxsplit=1)
    for segment in re.split(r";\s*|\n", tail[-1]) if len(tail) == 2 else ():
        found = re.fullmatch(r"\s*(.+?) at ([\w$-]+(?:\.[\w$-]+|\[\d+\])*)\s*", segment)
        if found:
            where = "$" + "".join(
                f"[{p}]" if p.isdecimal() else f".{p}" for p in re.findall(r"[\w$-]+", found[2])
            )
            paths.append(f"{where}: {found[1]}")
    for match in re.finditer(r'"path":\s*\[([^\]]*)\]', text):
        steps: list[tuple[str, str]] = re.findall(r'"([^"]*)"|(\d+)', match.group(1))
        paths.append("$" + "".join(f".{key}" if key else f"[{at}]" for key, at in steps))
    return tuple(dict.fromkeys(paths))[:10]


# -- JSON-RPC errors of reads and gets -----------------------------------------------------
# Python mcp 2.x MCPServer refuses a prompts/get that lacks a required argument by raising
# ValueError("Missing required arguments: {...}") in its own code: JSON-RPC -32603 "Internal
# server error" with that traceback on stderr. The standalone fastmcp (4.x) raises its own
# ValidationError with the same words (fastmcp/prompts/function_prompt.py, render), answers
# -32602 and logs the traceback at warning level ("Error rendering prompt '<name>'"). The
# SDK's refusal, not the prompt crashing.
_PY_MISSING_ARGUMENTS: Final = re.compile(
    r"\b(?:ValueError|ValidationError): Missing required arguments: "
)


def judge_error_message(message: str, stderr: str | None, arguments: Any = None) -> ErrorVerdict:
    """Classify a JSON-RPC error's message and the call's stderr as an isError text is
    classified: a resource or a prompt has no isError, so the SDKs turn a read or a get that
    raised into a JSON-RPC error (Python ``MCPServer``: -32603 and a traceback on stderr;
    TypeScript ``McpServer``: -32603 with the exception's message alone)."""
    as_result = {"content": [{"type": "text", "text": message}]}
    return judge_error_result("", as_result, stderr, arguments)


def sdk_missing_argument_refusal(stderr: str | None) -> bool:
    """Whether the call's stderr shows the Python SDK (or fastmcp) refusing a missing prompt
    argument."""
    return bool(stderr) and _PY_MISSING_ARGUMENTS.search(stderr or "") is not None
