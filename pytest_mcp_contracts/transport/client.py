"""The client side of MCP: what a server may ask of the client mid-call, and its answers.

A tester has no user and no model, so every answer is deterministic and configurable:

* ``roots/list``: one folder, the run's roots sandbox (``inputs/sandbox``: sample files, or a
  copy of the user's ``--mcp-roots``; an empty folder under ``--mcp-roots=none``);
* ``sampling/createMessage``: a canned assistant text (per server or tool, or from the
  ``pytest_mcp_sampling_reply`` hook);
* ``elicitation/create``: form content valid for the requested schema, or, on some calls,
  decline and cancel, since a server must handle those too; URL mode is accepted (the
  user "consented") or declined and cancelled the same way. The content comes from the
  ``form_content`` its creator hands it (``inputs/elicitation.form_content``): making
  inputs is a layer above the transports, which only move messages.

The same answers serve both eras: handshake-era servers send JSON-RPC requests during the
call; 2026-07-28 servers return ``input_required`` results that the call answers by being
sent again (``transport/jsonrpc.RpcConnection.call_tool``). Everything asked, and every
logging and progress notification, is noted in the call's ``CallTranscript``.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.options import DEFAULT_SAMPLING_TEXT
from pytest_mcp_contracts.vocabulary import URL_ELICITATION_PROTOCOL, ElicitationAnswer

if TYPE_CHECKING:
    from pytest_mcp_contracts.schema.spec import Violation

# What the client declares: the same object in ``initialize`` and in a 2026-07-28 request's
# ``_meta``. Sub-objects a version does not know are ignored by its servers (capabilities
# are open objects in every schema). No ``sampling.tools``/``context``: declaring them
# obliges the client to run tool loops and include context it does not have.
CAPABILITIES: Final[dict[str, Any]] = {
    "roots": {},
    "sampling": {},
    "elicitation": {"form": {}, "url": {}},
}
SAMPLING_MODEL: Final = "pytest-mcp-contracts"
# Under "vary", the n-th elicitation of a tool is answered with the n-th of these (cycling):
# the first call of every tool is accepted, and decline and cancel come up within four.
_VARY: Final = ("accept", "decline", "accept", "cancel")
# The JSON-RPC error a 2025-11-25 server answers a request with when it cannot go on until
# the user completes URL-mode elicitations (``data.elicitations``): a client shows the URLs
# and may send the request again. Only that revision has it: URL elicitation is new in it,
# and 2026-07-28 retired the code for ``input_required`` results.
URL_ELICITATION_REQUIRED: Final = -32042
# How a call answered with it is counted among what the server asked of the client.
URL_REQUIRED_KEY: Final = "url elicitation required (-32042)"
# How many lines a call keeps of what the server asked (a loop must not fill memory).
_KEPT_LINES: Final = 20
_SHOWN_CHARS: Final = 160


def url_elicitation_problem(data: Any, protocol_version: str) -> str | None:
    """None when a -32042 error with this ``data`` is the spec's "URL elicitation required"
    answer on a connection of ``protocol_version``; otherwise what is wrong with it."""
    if protocol_version > URL_ELICITATION_PROTOCOL:
        return (
            f"protocol {protocol_version} retired it: there, a call that needs the user at a "
            "URL returns an input_required result asking for a url elicitation (in the "
            "Python SDK: await ctx.elicit_url(...))"
        )
    if protocol_version < URL_ELICITATION_PROTOCOL:
        return (
            f"it is defined from protocol {URL_ELICITATION_PROTOCOL}; this connection "
            f"negotiated {protocol_version}, which has no URL elicitation"
        )
    items = data.get("elicitations") if isinstance(data, Mapping) else None
    if not isinstance(items, list):
        return "its data has no elicitations list (data.elicitations: what the user must open)"
    for i, item in enumerate(items):
        if not isinstance(item, Mapping) or item.get("mode") != "url":
            return f'data.elicitations[{i}] is not a URL-mode elicitation (mode: "url")'
        for key in ("elicitationId", "url", "message"):
            if not isinstance(item.get(key), str):
                return f"data.elicitations[{i}] has no {key} string"
    return None


def url_elicitation_urls(data: Any) -> list[str]:
    """The URLs a -32042 error's data asks the user to open (for reports)."""
    items = data.get("elicitations") if isinstance(data, Mapping) else None
    if not isinstance(items, list):
        return []
    return [str(i.get("url")) for i in items if isinstance(i, Mapping) and "url" in i]


class Refusal(Exception):
    """A server request the client answers with a JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# (requested schema) -> content valid for it; a ValueError (its message: why there is none)
# when none can be made. A stdlib exception, so that the transports import no inputs/ type.
FormContent = Callable[[Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class ClientSettings:
    """How the client answers, resolved once from the plugin's settings."""

    roots: tuple[str, ...] = ()  # file:// URIs
    sampling_text: str = DEFAULT_SAMPLING_TEXT
    # Canned texts by "server/tool" or "tool" ([tool.mcp-contracts.tools.<name>]).
    tool_sampling_texts: Mapping[str, str] = field(default_factory=dict)
    elicitation: str = "vary"
    # The conftest hook: (server, tool, params) -> text, a result object, or None.
    sampling_hook: Callable[[str, str, dict[str, Any]], Any] | None = None
    # Content for a form elicitation's requestedSchema; None declines every form.
    form_content: FormContent | None = None

    def text_for(self, server: str, tool: str) -> str:
        texts = self.tool_sampling_texts
        return texts.get(f"{server}/{tool}") or texts.get(tool) or self.sampling_text


@dataclass
class CallTranscript:
    """What happened between the client and the server during one tool call."""

    server: str = ""
    tool: str = ""
    progress: int = 0  # progress notifications for this call's token
    logs: int = 0  # notifications/message while the call ran
    asked: Counter[str] = field(default_factory=Counter)  # server requests, by method
    rounds: int = 0  # 2026-07-28: times the call was sent again with inputResponses
    lines: list[str] = field(default_factory=list)  # what was asked and answered
    # Notifications and requests during the call that break their schema definitions.
    violations: list[Violation] = field(default_factory=list)
    _lost: int = 0

    def note(self, line: str) -> None:
        if len(self.lines) < _KEPT_LINES:
            self.lines.append(line if len(line) <= _SHOWN_CHARS else line[:_SHOWN_CHARS] + "…")
        else:
            self._lost += 1

    def report_lines(self) -> list[str]:
        """For a failure report: each request and its answer, then the notification counts."""
        out = list(self.lines)
        if self._lost:
            out.append(f"… and {self._lost} more")
        if self.rounds:
            out.append(
                f"the call was sent again with inputResponses {self.rounds} time(s) "
                "(2026-07-28 input_required)"
            )
        if self.progress or self.logs:
            out.append(f"notifications: {self.progress} progress, {self.logs} log message(s)")
        return out


class CallClock:
    """A call's deadline: ``timeout`` seconds of silence, restarted by each progress
    notification for the call's token, and never more than ``max_total`` in all (the spec
    lets a client reset its timeout on progress, with a maximum total)."""

    def __init__(self, timeout: float, max_total: float | None = None) -> None:
        self.timeout = timeout
        self.max_total = max(max_total or timeout, timeout)
        self.started = self._last = time.monotonic()
        self.transcript: CallTranscript | None = None

    def progressed(self) -> None:
        self._last = time.monotonic()

    def _deadline(self) -> float:
        return min(self._last + self.timeout, self.started + self.max_total)

    def remaining(self) -> float:
        return max(0.0, self._deadline() - time.monotonic())

    def expired(self, method: str) -> str | None:
        """Why the call has run out of time, or None."""
        now = time.monotonic()
        if now < self._deadline():
            return None
        progress = self.transcript.progress if self.transcript is not None else 0
        if now >= self.started + self.max_total and self.max_total > self.timeout:
            return (
                f"no answer to {method} within the maximum of {self.max_total:g} s "
                f"(--mcp-max-call-time), though it sent {progress} progress notification(s)"
            )
        if progress:
            return (
                f"no answer to {method} within {self.timeout:g} s of its last progress "
                f"notification ({progress} received)"
            )
        return f"no answer to {method} within {self.timeout:g} s"


class Client:
    """Answers a server's requests, for every transport, and counts per tool how often it
    was asked to elicit (the decline/cancel cycle is per tool, so it is deterministic)."""

    def __init__(self, settings: ClientSettings | None = None) -> None:
        self.settings = settings or ClientSettings()
        self._elicitations: Counter[str] = Counter()
        self._lock = threading.Lock()
        # Whether the server ever asked for the client's roots: it adopts them as its
        # boundary (judges/writes.Boundary).
        self.roots_asked = False

    def rewind(self, tool: str, elicitations: int) -> None:
        """Forget ``elicitations`` answers given to ``tool``'s calls whose answers were thrown
        away (calls sent ahead, then sent again alone: transport/inflight), so that the calls
        sent again meet the decline/cancel cycle where one at a time would have."""
        with self._lock:
            self._elicitations[tool] = max(0, self._elicitations[tool] - elicitations)

    def answer(
        self, method: str, params: Mapping[str, Any], call: CallTranscript | None
    ) -> dict[str, Any]:
        """The result for a server request; Refusal for an error answer."""
        transcript = call if call is not None else CallTranscript()
        transcript.asked[method] += 1
        if method == "roots/list":
            self.roots_asked = True
            return self._roots(transcript)
        if method == "sampling/createMessage":
            return self._sample(params, transcript)
        if method == "elicitation/create":
            return self._elicit(params, transcript)
        transcript.note(f"{method}: refused, not a client method (-32601)")
        raise Refusal(-32601, f"{method} is not supported by pytest-mcp-contracts")

    def _roots(self, transcript: CallTranscript) -> dict[str, Any]:
        roots = [
            {"uri": uri, "name": uri.rstrip("/").rsplit("/", 1)[-1]} for uri in self.settings.roots
        ]
        transcript.note(f"roots/list: answered {', '.join(self.settings.roots) or 'no roots'}")
        return {"roots": roots}

    def _sample(self, params: Mapping[str, Any], transcript: CallTranscript) -> dict[str, Any]:
        text: Any = None
        hook = self.settings.sampling_hook
        if hook is not None:
            text = hook(transcript.server, transcript.tool, dict(params))
        if text is None:
            text = self.settings.text_for(transcript.server, transcript.tool)
        if isinstance(text, dict):  # the hook supplied a whole CreateMessageResult
            transcript.note(f"sampling/createMessage: answered the hook's result {_brief(text)}")
            return text
        transcript.note(
            f"sampling/createMessage ({_brief(_last_text(params))}): answered {_brief(str(text))}"
        )
        return {
            "role": "assistant",
            "content": {"type": "text", "text": str(text)},
            "model": SAMPLING_MODEL,
            "stopReason": "endTurn",
        }

    def _elicit(self, params: Mapping[str, Any], transcript: CallTranscript) -> dict[str, Any]:
        policy = self.settings.elicitation
        with self._lock:
            nth = self._elicitations[transcript.tool]
            self._elicitations[transcript.tool] += 1
        action = _VARY[nth % len(_VARY)] if policy == ElicitationAnswer.VARY else policy
        mode = params.get("mode", "form")
        message = _brief(str(params.get("message", "")))
        if mode == "url":
            transcript.note(
                f"elicitation/create url {_brief(str(params.get('url')))} ({message}): {action}"
            )
            return {"action": action}
        if action != "accept":
            transcript.note(f"elicitation/create form ({message}): {action}")
            return {"action": action}
        form_content = self.settings.form_content
        if form_content is None:
            transcript.note(f"elicitation/create form ({message}): declined, no form answerer")
            return {"action": "decline"}
        schema = params.get("requestedSchema")
        try:
            content = form_content(schema if isinstance(schema, dict) else {})
        except ValueError as exc:
            transcript.note(f"elicitation/create form ({message}): declined, {exc}")
            return {"action": "decline"}
        transcript.note(f"elicitation/create form ({message}): accept {_brief(_json(content))}")
        return {"action": "accept", "content": content}


def _last_text(params: Mapping[str, Any]) -> str:
    messages = params.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        content = messages[-1].get("content")
        if isinstance(content, dict) and isinstance(content.get("text"), str):
            return str(content["text"])
    return "no text"


def _json(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)


def _brief(text: Any, limit: int = 60) -> str:
    shown = text if isinstance(text, str) else _json(text)
    shown = " ".join(shown.split())
    return repr(shown if len(shown) <= limit else shown[:limit] + "…")
