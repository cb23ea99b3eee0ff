"""zod (4) objects of a tool's output, for the ``outputSchema`` of a TypeScript ``McpServer``
tool (``@modelcontextprotocol/sdk`` 1.x converts them with zod's own ``toJSONSchema``).

- Objects are ``z.strictObject`` (closed) or ``z.looseObject`` (open, extra keys kept), never
  ``z.object``: it strips unknown keys when it parses, yet its JSON Schema says
  ``additionalProperties: false``, so the SDK would accept a result its own declared schema
  refuses. Typed extra keys are ``z.object({...}).catchall(T)``.
- An object used once is written in place; one used twice, one on a cycle and the output
  itself are named ``const``s, dependencies first, and a field that refers to a ``const``
  defined further down is a getter (zod's way to write recursive objects).
- Known formats are checked (``z.iso.datetime``, ``z.email``, ``z.guid``...; ``uuid`` as
  ``z.guid``, which accepts any 8-4-4-4-12 hex, as the plugin learns it); any other format is
  declared with ``.meta({ format })`` and checked by the run.
- An output that is no object is declared as ``{ result: ... }``: ``McpServer`` takes object
  schemas only (and MCP 2025-11-25 wants an object root).
- Text from the server (keys, descriptions, patterns) is written as JSON string literals
  (``ensure_ascii``: no line separator can end a comment or a string); ``__proto__`` as a
  computed key, which makes an own property rather than a prototype.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contracts.export.model import (
    ArrayOf,
    Literals,
    MapOf,
    Model,
    ModelRef,
    OneOf,
    Primitive,
    ToolModel,
    TupleOf,
    Type,
    Unknown,
    model_references,
    references,
)

_JS_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_FORMATS: Final = {
    "date-time": "z.iso.datetime({ offset: true })",
    "date": "z.iso.date()",
    "time": "z.iso.time()",
    "uuid": "z.guid()",
    "email": "z.email()",
    "uri": "z.url()",
    "ipv4": "z.ipv4()",
    "ipv6": "z.ipv6()",
}
_CHECKS: Final = {
    "minLength": "min",
    "maxLength": "max",
    "minimum": "gte",
    "maximum": "lte",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "multipleOf": "multipleOf",
    "minItems": "min",
    "maxItems": "max",
}
INDENT: Final = "  "


def js(value: Any) -> str:
    """A JSON value as a JavaScript literal (ASCII only)."""
    return json.dumps(value, ensure_ascii=True)


def js_key(key: str) -> str:
    if key == "__proto__":
        return '["__proto__"]'
    return key if _JS_IDENTIFIER.fullmatch(key) else js(key)


def _cycles(models: Sequence[Model]) -> set[str]:
    """The models on a reference cycle."""
    edges = {m.name: set(model_references(m)) for m in models}
    on_cycle = set()
    for start in edges:
        stack, seen = list(edges[start]), set()
        while stack:
            name = stack.pop()
            if name == start:
                on_cycle.add(start)
                break
            if name in seen or name not in edges:
                continue
            seen.add(name)
            stack += edges[name]
    return on_cycle


class _Writer:
    def __init__(self, tool: ToolModel) -> None:
        self.tool = tool
        self.models = {m.name: m for m in tool.models}
        uses = Counter(name for m in tool.models for name in model_references(m))
        uses.update(references(tool.root))
        cycles = _cycles(tool.models)
        self.named = [
            m.name
            for m in tool.models
            if uses[m.name] != 1 or m.name in cycles or m.name == tool.name
        ]
        self.defined: set[str] = set()

    def type(self, kind: Type, depth: int) -> tuple[str, bool]:
        """(the zod expression, whether it names a const defined further down)."""
        if isinstance(kind, Unknown):
            return "z.unknown()", False
        if isinstance(kind, Primitive):
            return self._primitive(kind), False
        if isinstance(kind, Literals):
            return _literals(kind.values), False
        if isinstance(kind, ArrayOf):
            items, later = self.type(kind.items, depth)
            return f"z.array({items}){_checks(kind.checks)}", later
        if isinstance(kind, TupleOf):
            parts = [self.type(p, depth) for p in kind.positions]
            listed = f"[{', '.join(p for p, _ in parts)}]"
            later = any(x for _, x in parts)
            if kind.rest is None:
                return f"z.tuple({listed})", later
            rest, rest_later = self.type(kind.rest, depth)
            return f"z.tuple({listed}, {rest})", later or rest_later
        if isinstance(kind, MapOf):
            values, later = self.type(kind.values, depth)
            return f"z.record(z.string(), {values})", later
        if isinstance(kind, OneOf):
            members = [m for m in kind.members if m != Primitive("null")]
            parts = [self.type(m, depth) for m in members]
            later = any(x for _, x in parts)
            text = (
                parts[0][0] if len(parts) == 1 else f"z.union([{', '.join(p for p, _ in parts)}])"
            )
            return (f"{text}.nullable()" if len(members) < len(kind.members) else text), later
        if kind.name in self.named:
            return kind.name, kind.name not in self.defined
        return self.object(self.models[kind.name], depth)

    def _primitive(self, kind: Primitive) -> str:
        if kind.kind == "string":
            base = _FORMATS.get(kind.format or "", "z.string()")
            if kind.format is not None and kind.format not in _FORMATS:
                base = f"z.string().meta({{ format: {js(kind.format)} }})"
            pattern = [f".regex(new RegExp({js(v)}))" for k, v in kind.checks if k == "pattern"]
            sized = [c for c in kind.checks if c[0] != "pattern"]
            return base + _checks(tuple(sized)) + "".join(pattern)
        base = {
            "integer": "z.number().int()",
            "number": "z.number()",
            "boolean": "z.boolean()",
            "null": "z.null()",
        }[kind.kind]
        return base + _checks(kind.checks)

    def object(self, model: Model, depth: int) -> tuple[str, bool]:
        pad = INDENT * (depth + 1)
        lines = []
        for spec in model.fields:
            text, later = self.type(spec.type, depth + 1)
            if not spec.required:
                text += ".optional()"
            if spec.description:
                text += f".describe({js(spec.description)})"
            if later:
                # Defined further down: a getter defers the reference until zod reads it.
                lines.append(f"{pad}get {js_key(spec.key)}() {{")
                lines.append(f"{pad}{INDENT}return {text};")
                lines.append(f"{pad}}},")
            else:
                lines.append(f"{pad}{js_key(spec.key)}: {text},")
        shape = "{}" if not lines else "{\n" + "\n".join(lines) + f"\n{INDENT * depth}}}"
        later = False
        if model.extra == "forbid":
            text = f"z.strictObject({shape})"
        elif model.extra == "allow":
            text = f"z.looseObject({shape})"
        else:
            extra, later = self.type(model.extra, depth)
            text = f"z.object({shape}).catchall({extra})"
        if model.description:
            text += f".describe({js(model.description)})"
        return text, later

    def consts(self) -> Iterator[str]:
        for name in self.named:
            text, _ = self.object(self.models[name], 0)
            exported = "export " if name == self.tool.name else ""
            yield f"{exported}const {name} = {text};"
            self.defined.add(name)
        if isinstance(self.tool.root, MapOf):
            values, _ = self.type(self.tool.root.values, 1)
            yield f"export const {self.tool.name} = z.object({{}}).catchall({values});"
        elif not isinstance(self.tool.root, ModelRef):
            root, _ = self.type(self.tool.root, 1)
            shape = f"{{\n{INDENT}result: {root},\n}}"
            yield f"export const {self.tool.name} = z.strictObject({shape});"


def _checks(checks: tuple[tuple[str, Any], ...]) -> str:
    return "".join(f".{_CHECKS[k]}({js(v)})" for k, v in checks if k in _CHECKS)


def _literals(values: tuple[Any, ...]) -> str:
    if len(values) == 1:
        return "z.null()" if values[0] is None else f"z.literal({js(values[0])})"
    if all(isinstance(v, str) for v in values):
        return f"z.enum({js(list(values))})"
    return f"z.literal({js(list(values))})"


@dataclass(frozen=True)
class ZodModule:
    imports: list[str]
    code: dict[str, list[str]]


def render(tools: Sequence[ToolModel]) -> ZodModule:
    """Each tool's consts (blank-line separated), and the module's one import."""
    code = {}
    for tool in tools:
        lines: list[str] = []
        for const in _Writer(tool).consts():
            lines += ["", *const.splitlines()]
        code[tool.tool] = lines
    return ZodModule(['import { z } from "zod";'], code)
