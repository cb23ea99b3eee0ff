"""The specification's own JSON Schemas, one per protocol version, and what a message must be.

The ``schema.json`` of each version the plugin speaks is vendored here as published
(modelcontextprotocol/modelcontextprotocol; SOURCE.json names the commit, LICENSE is the
repository's; ``refresh.py`` copies them again). ``Spec.of(version)`` compiles a version's
schema once per process, on first use, and judges each message a server sends by what it is:

- a result, by the method it answers (``tools/list`` → ``ListToolsResult``: the request's
  definition named ``...Request`` answers with ``...Result``; a method whose result is the
  empty ``Result`` accepts anything). On 2026-07-28 a result whose ``resultType`` is
  ``input_required`` is an ``InputRequiredResult`` whatever it answers;
- a notification or a server's request, by its ``method`` (``notifications/message`` →
  ``LoggingMessageNotification``); a method the version does not define is not judged
  (extensions may add them);
- an error, by the version's ``Error`` object.

Never a union such as ``ServerResult``: its members include the empty result, so anything
passes it. Members a definition does not name are never refused (the schemas allow them).
What the schema cannot say (pagination, codes, progress tokens) is checked by rule elsewhere.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.schema.dialects import dialect_of, offline, validator_class
from pytest_mcp_contracts.schema.paths import json_path
from pytest_mcp_contracts.text import json_text, shorten
from pytest_mcp_contracts.vocabulary import HANDSHAKE_VERSIONS, MODERN_VERSION

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

HERE: Final = Path(__file__).parent
SPEC_VERSIONS: Final = (*HANDSHAKE_VERSIONS, MODERN_VERSION)
INPUT_REQUIRED: Final = "input_required"  # 2026-07-28 resultType
MAX_SHOWN: Final = 5  # violations named per message
# The listings' entries: each is judged by its own entry's ``schema`` item, so a listing's
# result is judged here without them (its envelope: the array, nextCursor, ttlMs, ...).
ENTRY_DEFINITIONS: Final = frozenset({"Tool", "Prompt", "Resource", "ResourceTemplate"})


@dataclass(frozen=True)
class Violation:
    """One way a message breaks its definition in a version's schema."""

    what: str  # "the result of tools/list", "notification notifications/message"
    definition: str  # "ListToolsResult"
    path: str  # "$.tools[0].inputSchema"
    message: str  # jsonschema's words, shortened
    version: str

    def __str__(self) -> str:
        where = f"{self.definition} ({self.version} schema) at {self.path}"
        return f"{self.what} breaks {where}: {self.message}"


class Spec:
    """One protocol version's schema, its validators compiled once per definition."""

    def __init__(self, version: str, document: Mapping[str, Any]) -> None:
        self.version = version
        self._key = "$defs" if "$defs" in document else "definitions"
        self._document = document
        self._definitions: Mapping[str, Any] = document[self._key]
        self._validators: dict[str, Validator] = {}
        # Each method the version defines, by the definition of its request or notification.
        self._by_method: dict[str, str] = {}
        for name, definition in self._definitions.items():
            method = definition.get("properties", {}).get("method", {}).get("const")
            if isinstance(method, str) and (
                name.endswith(("Request", "Notification")) and method not in self._by_method
            ):
                self._by_method[method] = name

    @staticmethod
    @cache
    def of(version: str | None) -> Spec | None:
        """The schema of ``version``, or None for a version the plugin has none of."""
        if version not in SPEC_VERSIONS:
            return None
        document = json.loads((HERE / f"{version}.json").read_text(encoding="utf-8"))
        return Spec(str(version), document)

    def defines(self, name: str) -> bool:
        return name in self._definitions

    def result_definition(self, method: str) -> str | None:
        """The definition of a result answering ``method``, or None when any object does."""
        request = self._by_method.get(method, "")
        if not request.endswith("Request"):
            return None
        result = request.removesuffix("Request") + "Result"
        return result if result in self._definitions else None

    def check(self, definition: str, value: Any, what: str) -> list[Violation]:
        """How ``value`` breaks ``definition`` (none when it is valid or not defined)."""
        validator = self._validator(definition)
        if validator is None:
            return []
        errors = sorted(
            _precise(validator.iter_errors(value)),
            key=lambda e: (len(e.absolute_path), json_path(e.absolute_path)),
        )
        return [
            Violation(what, definition, json_path(e.absolute_path), _said(e), self.version)
            for e in errors[:MAX_SHOWN]
        ]

    def result(self, method: str, result: Any) -> list[Violation]:
        """How a result answering ``method`` breaks its definition."""
        definition = self.result_definition(method)
        if (
            isinstance(result, dict)
            and result.get("resultType") == INPUT_REQUIRED
            and self.defines("InputRequiredResult")
        ):
            definition = "InputRequiredResult"
        if definition is None:
            return []
        return self.check(definition, result, f"the result of {method}")

    def envelope(self, method: str, result: Mapping[str, Any]) -> list[Violation]:
        """How a result breaks its definition outside the listing entries it carries."""
        definition = self.result_definition(method)
        arrays = self._entry_arrays(definition) if definition else ()
        if not arrays:
            return self.result(method, result)
        bare = {k: ([] if k in arrays and isinstance(v, list) else v) for k, v in result.items()}
        return self.result(method, bare)

    def unsent_token(self, token: object) -> Violation:
        """A progress notification for a token the client never sent: the specification's
        rule (basic/utilities/progress, "Behavior Requirements"), not its schema's."""
        return Violation(
            "notification notifications/progress",
            "ProgressNotification",
            "$.params.progressToken",
            f"{json_text(token, 60)} is no token the client sent; progress notifications MUST "
            "only reference tokens provided in an active request (basic/utilities/progress)",
            self.version,
        )

    def _entry_arrays(self, definition: str) -> tuple[str, ...]:
        properties = self._definitions[definition].get("properties", {})
        prefix = f"#/{self._key}/"
        return tuple(
            name
            for name, member in properties.items()
            if isinstance(member, dict)
            and str(member.get("items", {}).get("$ref", "")).removeprefix(prefix)
            in ENTRY_DEFINITIONS
        )

    def message(self, message: Mapping[str, Any]) -> list[Violation]:
        """How a notification or a request from the server breaks its method's definition."""
        method = message.get("method")
        definition = self._by_method.get(method) if isinstance(method, str) else None
        if definition is None:
            return []
        kind = "notification" if definition.endswith("Notification") else "request"
        return self.check(definition, message, f"{kind} {method}")

    def error(self, error: Any, method: str) -> list[Violation]:
        """How the error object answering ``method`` breaks the version's ``Error``."""
        for name in ("Error", "JSONRPCError"):
            if self.defines(name):
                break
        definition = "Error" if name == "Error" else "JSONRPCError"
        value = error if definition == "Error" else {"jsonrpc": "2.0", "id": 0, "error": error}
        return self.check(definition, value, f"the error answering {method}")

    def _validator(self, definition: str) -> Validator | None:
        if definition not in self._definitions:
            return None
        validator = self._validators.get(definition)
        if validator is None:
            # The definition with its references written out: jsonschema resolves a $ref
            # on every visit, which costs several times the check itself. A definition
            # that refers to itself keeps that reference, resolved in the definitions.
            schema = {
                **_by_kind(self._expanded(definition, ())),
                "$schema": self._document.get("$schema"),
                self._key: self._definitions,
            }
            cls = validator_class(dialect_of(self._document))  # jsonschema, on first use
            validator = offline(cls, schema, formats=False)
            self._validators[definition] = validator
        return validator

    def _expanded(self, name: str, within: tuple[str, ...]) -> dict[str, Any]:
        prefix = f"#/{self._key}/"

        def expand(node: Any) -> Any:
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith(prefix) and len(node) == 1:
                    target = ref.removeprefix(prefix)
                    if target in within or target == name or target not in self._definitions:
                        return node
                    return self._expanded(target, (*within, name))
                return {key: expand(value) for key, value in node.items()}
            if isinstance(node, list):
                return [expand(value) for value in node]
            return node

        expanded: dict[str, Any] = expand(self._definitions[name])
        return expanded


def _by_kind(node: Any) -> Any:
    """An ``anyOf`` of objects told apart by a ``type`` constant (content blocks) as a
    choice by ``type``: the same values pass, but a block is validated against its own
    kind only, not against every kind in turn, and its errors are that kind's."""
    if isinstance(node, list):
        return [_by_kind(value) for value in node]
    if not isinstance(node, dict):
        return node
    node = {key: _by_kind(value) for key, value in node.items()}
    members = node.get("anyOf")
    kinds = [_kind_of(member) for member in members] if isinstance(members, list) else []
    if not kinds or None in kinds or len(set(kinds)) != len(kinds):
        return node
    rest = {key: value for key, value in node.items() if key != "anyOf"}
    choice = {
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": kinds}},
        "allOf": [
            {"if": {"properties": {"type": {"const": kind}}}, "then": member}
            for kind, member in zip(kinds, members, strict=True)
        ],
    }
    return {**rest, **choice} if not rest else {**rest, "allOf": [choice]}


def _kind_of(member: Any) -> str | None:
    """The ``type`` constant an object member requires, or None."""
    if not isinstance(member, dict) or "type" not in member.get("required", ()):
        return None
    kind = member.get("properties", {}).get("type", {}).get("const")
    return kind if isinstance(kind, str) else None


def _precise(errors: Iterator[ValidationError]) -> Iterator[ValidationError]:
    """Each error, or for an ``anyOf`` of objects told apart by ``type`` (content blocks,
    resource contents) the errors of the member the value names: "priority: 2 is greater
    than the maximum of 1" instead of "not valid under any of the given schemas"."""
    for error in errors:
        chosen = _member_errors(error)
        if chosen:
            yield from _precise(iter(chosen))
        else:
            yield error


def _member_errors(error: ValidationError) -> list[ValidationError]:
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return []
    instance = error.instance
    by_member: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        by_member.setdefault(sub.schema_path[0] if sub.schema_path else -1, []).append(sub)  # type: ignore[arg-type]
    if isinstance(instance, dict) and "type" in instance:
        # The member whose own errors do not include its "type": the one the value names.
        named = [
            subs
            for subs in by_member.values()
            if not any(list(sub.relative_path) == ["type"] for sub in subs)
        ]
        if len(named) == 1:
            return named[0]
    if len(by_member) == 1:
        return next(iter(by_member.values()))
    return []


def _said(error: ValidationError) -> str:
    if error.validator == "required":
        return shorten(error.message)
    if error.validator in ("anyOf", "oneOf") and isinstance(error.instance, dict):
        kinds = sorted(
            {
                str(sub.validator_value)
                for sub in error.context or ()
                if sub.validator == "const" and list(sub.relative_path) == ["type"]
            }
        )
        if kinds and "type" in error.instance:
            named = json_text(error.instance["type"], 40)
            return shorten(f"type {named} is none of the kinds defined here: {', '.join(kinds)}")
    return shorten(f"{error.message}" if len(json_text(error.instance)) < 80 else _brief(error))


def _brief(error: ValidationError) -> str:
    """jsonschema's message with a long instance shown short."""
    rule = f"{error.validator!s} {json_text(error.validator_value, 60)}"
    return f"{json_text(error.instance, 60)} does not match {rule}"
