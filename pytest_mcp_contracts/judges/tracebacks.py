"""Where an exception came from: the raise site of a Python traceback or a JavaScript stack.

A traceback is not by itself evidence of a crash: many servers log every exception, their
tools' deliberate refusals included. What tells a refusal from a crash is the frame that
raised it (docs/explanation/iserror.md, "The evidence order"; rich's boxed tracebacks reach
here as Python's own, ``text.plain_traceback`` rewrites every call's stderr):

- raised by the tool's **own code** with an explicit ``raise`` (a JavaScript ``throw`` of
  something that is not the engine's own error) and a message: a deliberate refusal;
- raised by the **runtime** at a line of the tool's own code that is not a ``raise``
  (``return items[0]``: an ``IndexError``; ``x.y`` on undefined: a ``TypeError``), or
  escaped from a **library** (``json``, ``open``, an HTTP client): a crash;
- raised by a **validation** library (pydantic, jsonschema, zod): the tool checking values,
  which may be its input or its own output: suspect, never a failure.

In a chain (``raise ValueError("unknown id") from KeyError``) the outermost exception that
is not the SDK's own wrapper decides: the tool caught the runtime's error and refused in its
own words. Which frames are the tool's own: any file outside an installed package and the
standard library (a server run from its checkout), and, for a server installed as a
package, the package of the first frame below the SDK's dispatch (the SDK packages are
named in ``_SDK_PACKAGES``, the one place this module knows of any SDK).

Pure and bounded: a text goes in, a ``RaiseSite`` or None comes out.
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from enum import Enum
from typing import Final

_MAX_TEXT: Final = 200_000
_MAX_FRAMES: Final = 400


class Origin(Enum):
    """Who raised the exception that decides, as ``RaiseSite.origin``."""

    DELIBERATE = "deliberate"  # the tool's own code: an explicit raise with a message
    RUNTIME = "runtime"  # the language, at a line of the tool's own code
    LIBRARY = "library"  # a library the tool called (the standard library included)
    VALIDATION = "validation"  # a validation library refusing a value
    UNKNOWN = "unknown"  # the tool's own code, but the line is not shown


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    function: str
    source: str = ""  # the line's code, "" when the traceback does not show it


@dataclass(frozen=True)
class RaiseSite:
    """The frame that raised the deciding exception, and what it makes of the call."""

    exception: str  # "ValueError: limit must be at least 1"
    frame: Frame | None
    origin: Origin
    language: str  # "Python" or "JavaScript"
    sdk: bool = False  # raised in the SDK's own code, not the tool's

    @property
    def where(self) -> str:
        if self.frame is None:
            return "an unknown frame"
        where = f"{self.frame.path}:{self.frame.line}"
        if self.frame.source:
            where += f" ({self.frame.source.strip()[:120]})"
        return where

    def words(self) -> str:
        """The evidence in words, for a verdict."""
        whose = "the SDK's code" if self.sdk else "the tool's own code"
        what = {
            Origin.DELIBERATE: f"raised on purpose by {whose}",
            Origin.RUNTIME: f"raised by the language runtime in {whose}",
            Origin.LIBRARY: "escaped from a library the tool called",
            Origin.VALIDATION: "raised by a validation library",
            Origin.UNKNOWN: f"raised in {whose} (the line is not shown)",
        }[self.origin]
        trace = {"Python": "traceback", "JavaScript": "stack"}.get(self.language, "panic")
        return f"a {self.language} {trace}: {self.exception[:200]!r} {what}, at {self.where}"


# The SDKs' dispatch and the frameworks under it: frames of these packages are the way in,
# never the tool. Their exceptions around a tool's (UnexpectedToolError, ToolError raised
# "from" it) are wrappers.
_SDK_PACKAGES: Final = frozenset(
    {
        "mcp",
        "mcp_types",
        "fastmcp",
        "anyio",
        "starlette",
        "uvicorn",
        "sse_starlette",
        "exceptiongroup",
        "opentelemetry",
        "logfire",
        "typer",
        "click",
    }
)
_VALIDATION_PACKAGES: Final = frozenset({"pydantic", "pydantic_core", "jsonschema", "zod"})
_INSTALLED: Final = re.compile(r"/(?:site|dist)-packages/([^/]+)|/node_modules/((?:@[^/]+/)?[^/]+)")
_STDLIB: Final = re.compile(r"/lib/python\d\.\d+/|^<frozen |^<string>|^node:|^internal/")
# The engine's own errors in JavaScript; a `throw new Error("...")` is none of them.
_JS_RUNTIME_TYPES: Final = frozenset(
    {"TypeError", "ReferenceError", "RangeError", "SyntaxError", "EvalError", "URIError"}
)

# What a language runtime says about its own errors: never a deliberate refusal.
RUNTIME_WORDS: Final = re.compile(
    "|".join(
        (
            # JavaScript (V8, JavaScriptCore)
            r"Cannot read propert(?:y|ies) of (?:undefined|null)",
            r"Cannot set propert(?:y|ies) of (?:undefined|null)",
            r"Cannot destructure property",
            r"\b[\w$.\[\]()]+ is not a (?:function|constructor)\b",
            r"\b[\w$.\[\]()]+ is not iterable\b",
            r"\bis not defined$",
            r"Cannot access '[^']*' before initialization",
            r"Assignment to constant variable",
            r"Cannot convert undefined or null to object",
            r"Reduce of empty array with no initial value",
            r"Maximum call stack size exceeded",
            r"Invalid array length",
            r"Invalid time value",
            r"Converting circular structure to JSON",
            r"Do not know how to serialize a BigInt",
            r"(?:undefined|null) is not an object \(evaluating",
            r"\b(?:TypeError|ReferenceError|RangeError|SyntaxError): ",
            r"Unexpected token .* in JSON at position \d+|Unexpected end of JSON input",
            r"is not valid JSON\b",
            r"^\[object Object\]$",
            # Python
            r"'[\w.]+' object (?:has no attribute|is not (?:subscriptable|callable|iterable))",
            r"object of type '[\w.]+' has no len\(\)",
            r"\b(?:list|string|tuple|bytes|range object) index out of range",
            r"\bdivision by zero\b|\bdivision or modulo by zero\b",
            r"unsupported operand type\(s\) for",
            r"can only concatenate \w+ \(not \"\w+\"\) to \w+",
            r"not supported between instances of",
            r"\bmissing \d+ required (?:positional|keyword-only) arguments?",
            r"takes \d+ positional arguments? but \d+ (?:were|was) given",
            r"got an unexpected keyword argument",
            r"\bname '\w+' is not defined",
            r"cannot access local variable '\w+'",
            r"local variable '\w+' referenced before assignment",
            r"maximum recursion depth exceeded",
            r"not enough values to unpack|too many values to unpack",
            r"unhashable type: '",
            r"argument of type '\w+' is not iterable",
            r"Object of type \w+ is not JSON serializable",
            r"No module named '",
            r"\b(?:KeyError|IndexError|AttributeError|TypeError|ZeroDivisionError|NameError|"
            r"UnboundLocalError|RecursionError|AssertionError|NotImplementedError): ",
            # Go
            r"runtime error: (?:index out of range|invalid memory address|"
            r"integer divide by zero|slice bounds out of range)",
            r"nil pointer dereference",
            r"assignment to entry in nil map",
            r"interface conversion: .+ is .+, not",
            # Java / Kotlin
            r"java\.lang\.\w+(?:Exception|Error)\b",
            r"\b(?:NullPointerException|ArrayIndexOutOfBoundsException|IndexOutOfBoundsException|"
            r"StringIndexOutOfBoundsException|ClassCastException|"
            r"ConcurrentModificationException|StackOverflowError|ArithmeticException)\b",
            r'Cannot invoke "[^"]+" because "[^"]+" is null',
            r"Index -?\d+ out of bounds for length \d+",
            r"lateinit property \w+ has not been initialized",
            # C# / .NET
            r"Object reference not set to an instance of an object",
            r"Index was outside the bounds of the array",
            r"Index was out of range\. Must be non-negative",
            r"Sequence contains no (?:matching )?elements?",
            r"The given key '.*' was not present in the dictionary",
            r"Unable to cast object of type '.+' to type '.+'",
            r"Nullable object must have a value",
            # Rust
            r"called `(?:Option|Result)::(?:unwrap|expect)\(\)` on an? `(?:None|Err)",
            r"index out of bounds: the len is \d+ but the index is \d+",
            r"attempt to (?:add|subtract|multiply|divide|negate) with overflow",
            # Ruby / PHP
            r"undefined method [`'][^']+' for (?:nil|an instance of)",
            r"undefined local variable or method",
            r"Call to a member function \w+\(\) on null",
            r'Attempt to read property "\w+" on (?:null|bool|int|string)',
        )
    ),
    re.M,
)

_GO_PANIC: Final = re.compile(r"^goroutine \d+ \[", re.M)
_RUST_PANIC: Final = re.compile(r"thread '.*' panicked at")
# How each language starts a trace: what says that a text holds one (error_results looks
# for these outside any quote of the input before a trace is read).
TRACE_MARKERS: Final = (
    (re.compile(r"Traceback \(most recent call last"), "a Python traceback"),
    (re.compile(r"^\s+at (?:async )?[\w$.<>\[\] ]*\(?\S+:\d+:\d+\)?$", re.M), "a JavaScript stack"),
    (_GO_PANIC, "a Go panic trace"),
    (re.compile(r"^\s+at [\w$.]+\([\w$]+\.(?:java|kt):\d+\)$", re.M), "a Java stack trace"),
    (_RUST_PANIC, "a Rust panic"),
)

# -- Python ---------------------------------------------------------------------------------
# Rich cuts the heading short in a narrow box ("Traceback (most recent call last─╮").
_PY_START: Final = re.compile(r"Traceback \(most recent call last")
_PY_FRAME: Final = re.compile(r'^\s*File "([^"]+)", line (\d+)(?:, in (\S+))?')
_CHAIN: Final = re.compile(
    r"The above exception was the direct|During handling of the above"  # Rich wraps them
)
_EXCEPTION_LINE: Final = re.compile(
    r"^(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|Group)|"
    r"[A-Z]\w*)(?::\s*(.*))?$"
)
# An explicit raise of something ("raise ValueError(...)", "raise error"), not a bare
# re-raise; rich cuts long code lines short ("raise ValueErro").
_RAISE: Final = re.compile(r"^raise\s+(?!from\b)[A-Za-z_]")
_CARETS: Final = re.compile(r"[~^\s]+")
_GROUP_MARGIN: Final = re.compile(r"^\s*(?:\| |\+-[-+ \d.]*$)")


@dataclass
class _Block:
    """One exception of a chain: its frames, outermost first, and its exception line."""

    frames: list[Frame]
    exception: str = ""


def raise_site(text: str) -> RaiseSite | None:
    """The raise site of the last exception traced in ``text`` (a Python traceback, plain or
    drawn by Rich, or a JavaScript stack), or None when it holds none."""
    text = text[-_MAX_TEXT:]
    python = _last_python_chain(text)
    if python:
        return _python_site(python)
    script = _javascript_site(text)
    if script is not None:
        return script
    # A panic is how the Go and Rust runtimes report a crash, whoever started it; a Java
    # stack's top frame says nothing the exception's own words do not (the message decides).
    for pattern, language in ((_GO_PANIC, "Go"), (_RUST_PANIC, "Rust")):
        panic = pattern.search(text)
        if panic is not None:
            line = text[_line_start(text, panic.start()) :].split("\n", 1)[0].strip()
            return RaiseSite(line[:300], None, Origin.RUNTIME, language)
    return None


def _last_python_chain(text: str) -> list[_Block]:
    """The exceptions of the last chain of tracebacks in ``text``, the first raised first."""
    first = _PY_START.search(text)
    if first is None:
        return []
    chain: list[_Block] = []
    block: _Block | None = None
    chained = False  # a chain message came: the next traceback belongs to this chain
    source_next = False  # a plain traceback's frame line: its source line follows
    for line in _unframed(text[_line_start(text, first.start()) :]):
        stripped = line.strip()
        if _PY_START.search(stripped):
            chain = chain if chained else []
            block, chained, source_next = _Block([]), False, False
            chain.append(block)
            continue
        if _CHAIN.search(stripped):
            chained, block = True, None
            continue
        if block is None or block.exception:
            continue
        plain = _PY_FRAME.match(line)
        if plain is not None:
            _add_frame(block, plain)
            source_next = True
            continue
        if source_next and line[:1].isspace() and stripped and not _CARETS.fullmatch(stripped):
            _set_source(block, stripped)
            source_next = False
            continue
        source_next = False
        if _EXCEPTION_LINE.match(stripped):
            block.exception = stripped
    return [block for block in chain if block.exception]


def _add_frame(block: _Block, match: re.Match[str]) -> None:
    if len(block.frames) < _MAX_FRAMES:
        block.frames.append(Frame(match[1], int(match[2]), match[3] or ""))


def _set_source(block: _Block, source: str) -> None:
    last = block.frames[-1]
    block.frames[-1] = Frame(last.path, last.line, last.function, source)


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _unframed(text: str) -> list[str]:
    """The lines of a traceback without the columns a log handler puts before each (Rich's
    time and level: as wide as the indentation of the line that starts the traceback) and
    without the "|" margins of an exception group."""
    lines = text.splitlines()[:20_000]
    width = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    out = []
    for line in lines:
        if width and not line[:width].strip():
            line = line[width:]
        margin = _GROUP_MARGIN.match(line)
        if margin is not None:
            line = line[margin.end() :]
        out.append(line)
    return out


def _python_site(chain: list[_Block]) -> RaiseSite | None:
    tool_package = _tool_package(chain)
    # Outermost first: the SDK's wrapper around the tool's exception is skipped.
    for block in reversed(chain):
        if not block.frames:
            continue
        frame = block.frames[-1]
        owner = _owner(frame.path, tool_package)
        if owner == "sdk" and block is not chain[0]:
            continue
        name = _exception_name(block.exception)
        if name.endswith("ValidationError"):
            origin = Origin.VALIDATION
        elif owner == "library":
            origin = Origin.LIBRARY
        elif _RAISE.match(frame.source) or not _builtin(name):
            # Only an explicit raise puts an exception of a class of its own (a ToolError,
            # a server's NotFound) at a frame: the runtime raises the built-in ones.
            origin = Origin.DELIBERATE if _has_message(block.exception) else Origin.UNKNOWN
        elif frame.source and not frame.source.startswith(("raise", "assert")):
            origin = Origin.RUNTIME
        else:
            origin = Origin.UNKNOWN
        # An SDK's exception with nothing around it is the SDK's own doing (a prompt's
        # arguments it refused, a bug of its own), judged like the tool's code.
        return RaiseSite(block.exception, frame, origin, "Python", sdk=owner == "sdk")
    return None


def _tool_package(chain: list[_Block]) -> str | None:
    """The installed package the tool's code lives in: that of the first frame, from the
    outside in, that is neither the SDK's nor the standard library's (None: the tool's code is
    not an installed package, or no frame says). The outermost exception's frames start at
    the SDK's dispatch; the root one's may start inside a library the tool called."""
    for block in reversed(chain):
        for frame in block.frames:
            installed = _INSTALLED.search(frame.path)
            if installed is None and _STDLIB.search(frame.path):
                continue
            if installed is None:
                return None
            package = installed[1] or installed[2]
            if _top(package) in _SDK_PACKAGES | _VALIDATION_PACKAGES:
                continue
            return package
    return None


def _owner(path: str, tool_package: str | None) -> str:
    path = path.replace("\\", "/")
    installed = _INSTALLED.search(path)
    if installed is not None:
        package = installed[1] or installed[2]
        if tool_package is not None and package == tool_package:
            return "tool"
        return "sdk" if _top(package) in _SDK_PACKAGES else "library"
    if _STDLIB.search(path):
        return "library"
    return "tool"


def _top(package: str) -> str:
    name = package.split("/")[-1]
    return re.sub(r"(?:-[\d.]+.*)?(?:\.py|\.dist-info)?$", "", name).replace("-", "_")


def _exception_name(line: str) -> str:
    match = _EXCEPTION_LINE.match(line)
    return match[1] if match else ""


def _builtin(name: str) -> bool:
    """Whether ``name`` is one of Python's built-in exception classes (the ones the runtime
    raises); an unparsed name counts as built-in, so that it decides nothing."""
    found = getattr(builtins, name, None) if name else BaseException
    return isinstance(found, type) and issubclass(found, BaseException)


def _has_message(line: str) -> bool:
    match = _EXCEPTION_LINE.match(line)
    return bool(match and match[2] and match[2].strip())


# -- JavaScript -----------------------------------------------------------------------------
_JS_AT: Final = re.compile(
    r"^\s+at (?:async )?(?:(.*?) \()?((?:file://)?[^()\s]+?):(\d+):(\d+)\)?$"
)
_JS_HEAD: Final = re.compile(r"^(?:Uncaught )?([A-Z]\w*(?:Error|Exception)?)(?::\s*(.*))?$")


def _javascript_site(text: str) -> RaiseSite | None:
    lines = text.splitlines()[-20_000:]
    for index in range(len(lines) - 1, -1, -1):
        if not _JS_AT.match(lines[index]) or (index and _JS_AT.match(lines[index - 1])):
            continue
        # lines[index] is the first frame of a stack; the line above names the error.
        head = lines[index - 1].strip() if index else ""
        named = _JS_HEAD.match(head)
        if named is None:
            return None
        at = _JS_AT.match(lines[index])
        assert at is not None
        path = at[2].removeprefix("file://")
        frame = Frame(path, int(at[3]), at[1] or "")
        name = named[1]
        installed = _INSTALLED.search(path)
        if name == "ZodError" or (installed and _top(installed[2] or "") in _VALIDATION_PACKAGES):
            origin = Origin.VALIDATION
        elif installed is not None or _STDLIB.search(path):
            origin = Origin.LIBRARY
        elif name in _JS_RUNTIME_TYPES and RUNTIME_WORDS.search(head):
            origin = Origin.RUNTIME
        elif named[2]:
            origin = Origin.DELIBERATE
        else:
            origin = Origin.UNKNOWN
        return RaiseSite(head, frame, origin, "JavaScript")
    return None
