"""The outputSchema a tool could declare, as JSON Schema 2020-12, read with the strictness of
its quality (``export/model``) so that it says what the pydantic, TypedDict and zod models
say. A declared contract is exported as the server declares it: it is already exact.

An output that is no object is wrapped as ``{"result": ...}``, as the models wrap it.
"""

from __future__ import annotations

from typing import Any

from pytest_mcp_contracts.export.model import (
    SCALARS,
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
)


class _Writer:
    def __init__(self, tool: ToolModel) -> None:
        self.models = {m.name: m for m in tool.models}
        self.defs: dict[str, dict[str, Any]] = {}
        self.inline: list[str] = []  # models being written, innermost last

    def type(self, kind: Type) -> dict[str, Any]:
        if isinstance(kind, Unknown):
            return {}
        if isinstance(kind, Primitive):
            schema: dict[str, Any] = {"type": kind.kind}
            if kind.format is not None:
                schema["format"] = kind.format
            return {**schema, **dict(kind.checks)}
        if isinstance(kind, Literals):
            if len(kind.values) == 1:
                return {"const": kind.values[0]}
            return {"enum": list(kind.values)}
        if isinstance(kind, ArrayOf):
            return {"type": "array", "items": self.type(kind.items), **dict(kind.checks)}
        if isinstance(kind, TupleOf):
            rest: Any = False if kind.rest is None else self.type(kind.rest)
            positions = [self.type(p) for p in kind.positions]
            return {"type": "array", "prefixItems": positions, "items": rest}
        if isinstance(kind, MapOf):
            return {"type": "object", "additionalProperties": self.type(kind.values)}
        if isinstance(kind, OneOf):
            members = [self.type(m) for m in kind.members]
            if all(set(m) == {"type"} and m["type"] in SCALARS for m in members):
                return {"type": [m["type"] for m in members]}  # a plain union of types
            return {"anyOf": members}
        return self._model(kind)

    def _model(self, ref: ModelRef) -> dict[str, Any]:
        # Learned contracts are trees; a declared one is exported as declared. A model seen
        # again inside itself (none of those) would go to $defs rather than loop.
        if ref.name in self.inline:
            self.defs.setdefault(ref.name, {})
            return {"$ref": f"#/$defs/{ref.name}"}
        self.inline.append(ref.name)
        try:
            schema = self._object(self.models[ref.name])
        finally:
            self.inline.pop()
        if ref.name in self.defs:
            self.defs[ref.name] = schema
            return {"$ref": f"#/$defs/{ref.name}"}
        return schema

    def _object(self, model: Model) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object"}
        if model.fields:
            schema["properties"] = {f.key: self.type(f.type) for f in model.fields}
        required = [f.key for f in model.fields if f.required]
        if required:
            schema["required"] = required
        if model.extra == "forbid":
            schema["additionalProperties"] = False
        elif not isinstance(model.extra, str):
            schema["additionalProperties"] = self.type(model.extra)
        return schema


def render(tool: ToolModel) -> dict[str, Any]:
    """The outputSchema of ``tool``'s models (without ``$schema`` or a description)."""
    writer = _Writer(tool)
    schema = writer.type(tool.root)
    if tool.wrapped:
        schema = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    if writer.defs:
        schema["$defs"] = dict(sorted(writer.defs.items()))
    return schema
