"""Python models of a tool's output: pydantic ``BaseModel``s or ``TypedDict``s that a
``MCPServer`` tool uses as its return annotation, so that the SDK declares their schema as
the tool's ``outputSchema`` and returns the value as ``structuredContent``.

What the generated code does, and why:

- **Nothing the tool returns is rewritten.** Every model is ``strict=True`` (pydantic's lax
  mode would turn ``"252.50"`` into ``252.5`` in ``structuredContent`` while the text block
  keeps the string: ground-truth.md); a JSON number is ``int | float`` (a ``float`` field
  turns ``7`` into ``7.0``); a field that may be absent is ``T | MISSING = MISSING`` in a
  model (``None`` would add ``"field": null`` to every result that lacked it) and
  ``NotRequired[T]`` in a TypedDict; a format is declared in the schema
  (``json_schema_extra``) and not parsed into ``datetime``/``UUID``/``AnyUrl``, whose
  serialisation differs from the string the tool returned. The run checks formats.
- **Keys that are no identifiers** (``first-name``, ``class``, ``json``, a name an annotation
  uses) get a field name and an ``alias`` in a model (the SDK validates and dumps by alias),
  and the functional ``TypedDict("Name", {...})`` form in a TypedDict.
- **Recursion**: models are defined dependencies first; an annotation that names a model
  defined further down is written as a string, which pydantic resolves when the tool is
  registered (``model_rebuild`` at the end of the tool's section, for models).
- An output that is no object is an alias (``XOutput = list[XItem]``): MCPServer declares
  it wrapped as ``{"result": ...}`` itself.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

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
)

#: The public attributes of pydantic's ``BaseModel`` (2.14) that do not start with
#: ``model_`` (no field name does): a field by one of these names would shadow it.
BASEMODEL_ATTRIBUTES: Final = frozenset(
    {
        "construct",
        "copy",
        "dict",
        "from_orm",
        "json",
        "parse_file",
        "parse_obj",
        "parse_raw",
        "schema",
        "schema_json",
        "update_forward_refs",
        "validate",
    }
)
#: Names the annotations of generated code use: a field assigned a default under one of them
#: (``str: str | MISSING = MISSING``) would rebind it for every field below it in the class.
ANNOTATION_NAMES: Final = frozenset(
    {
        "Annotated",
        "Any",
        "Field",
        "Literal",
        "MISSING",
        "NotRequired",
        "None",
        "Strict",
        "bool",
        "dict",
        "float",
        "int",
        "list",
        "str",
        "tuple",
    }
)
_WORDS: Final = re.compile(r"[A-Za-z0-9]+")
_PYTHON_TYPES: Final = {
    "string": "str",
    "integer": "int",
    "number": "int | float",  # a float field would turn 7 into 7.0
    "boolean": "bool",
    "null": "None",
}
_FIELD_ARGUMENTS: Final = {
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "multipleOf": "multiple_of",
    "minItems": "min_length",
    "maxItems": "max_length",
}
# MISSING on every pydantic mcp 2.3 accepts (2.12 and 2.13 keep it under pydantic.experimental).
_MISSING_IMPORT: Final = (
    "try:",
    "    from pydantic import MISSING",
    "except ImportError:  # pydantic 2.12 and 2.13",
    "    from pydantic.experimental.missing_sentinel import (  "
    "# type: ignore[no-redef, unused-ignore]",
    "        MISSING,",
    "    )",
)


def py(value: object) -> str:
    """A JSON scalar as a Python literal; a string double-quoted with every character that
    is not printable ASCII escaped (JSON's escapes are Python's), so that a server's text
    can neither end the literal nor the line."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=True)
    return repr(value)


def is_plain_identifier(key: str) -> bool:
    """A key that is an ASCII Python identifier and no keyword (non-ASCII identifiers are
    left out: NFKC folds some different keys into one name)."""
    return key.isascii() and key.isidentifier() and not keyword.iskeyword(key)


@dataclass
class _Module:
    """One generated module: its imports, and which models are defined so far."""

    model_names: frozenset[str]
    typing: set[str] = field(default_factory=set)
    typing_extensions: set[str] = field(default_factory=set)
    pydantic: set[str] = field(default_factory=set)
    missing: bool = False
    defined: set[str] = field(default_factory=set)
    rebuild: list[str] = field(default_factory=list)  # models with a forward reference
    rebuilt: set[str] = field(default_factory=set)

    def imports(self) -> list[str]:
        def names(module: str, used: set[str]) -> list[str]:
            return [f"from {module} import {', '.join(sorted(used))}"] if used else []

        groups = [
            names("typing", self.typing),
            names("pydantic", self.pydantic) + names("typing_extensions", self.typing_extensions),
            list(_MISSING_IMPORT) if self.missing else [],
        ]
        lines: list[str] = []
        for group in filter(None, groups):
            lines += [*([""] if lines else []), *group]
        return lines


@dataclass
class _Annotation:
    """A type written out, and whether it names a model defined further down."""

    text: str
    forward: bool


class _Writer:
    """Writes types and models into one module."""

    def __init__(self, module: _Module, typed_dict: bool) -> None:
        self.module = module
        self.typed_dict = typed_dict
        self.notes: list[str] = []

    # -- types ----------------------------------------------------------------------------

    def annotation(self, kind: Type) -> _Annotation:
        later: list[str] = []
        text = self._type(kind, later)
        return _Annotation(text, bool(later))

    def _type(self, kind: Type, later: list[str]) -> str:
        if isinstance(kind, Unknown):
            self.module.typing.add("Any")
            return "Any"
        if isinstance(kind, Primitive):
            arguments = [f"{_FIELD_ARGUMENTS[k]}={py(v)}" for k, v in kind.checks]
            if kind.format is not None:
                arguments.append(f'json_schema_extra={{"format": {py(kind.format)}}}')
            return self._annotated(_PYTHON_TYPES[kind.kind], arguments)
        if isinstance(kind, Literals):
            self.module.typing.add("Literal")
            return f"Literal[{', '.join(py(v) for v in kind.values)}]"
        if isinstance(kind, ArrayOf):
            arguments = [f"{_FIELD_ARGUMENTS[k]}={py(v)}" for k, v in kind.checks]
            return self._annotated(f"list[{self._type(kind.items, later)}]", arguments)
        if isinstance(kind, TupleOf):
            if kind.rest is None:
                # Lax for the tuple alone: JSON hands it a list, which a strict tuple refuses
                # (its positions stay strict).
                self.module.typing.add("Annotated")
                self.module.pydantic.add("Strict")
                positions = ", ".join(self._type(p, later) for p in kind.positions)
                return f"Annotated[tuple[{positions}], Strict(False)]"
            # pydantic cannot validate tuple[A, *tuple[B, ...]]: a list of any of them.
            self.notes.append("a tuple with more items after its fixed ones is read as a list")
            return f"list[{self._type(OneOf((*kind.positions, kind.rest)), later)}]"
        if isinstance(kind, MapOf):
            return f"dict[str, {self._type(kind.values, later)}]"
        if isinstance(kind, OneOf):
            return " | ".join(self._type(m, later) for m in kind.members)
        if kind.name not in self.module.defined:
            later.append(kind.name)
        return kind.name

    def _annotated(self, base: str, arguments: Sequence[str]) -> str:
        if not arguments:
            return base
        self.module.typing.add("Annotated")
        self.module.pydantic.add("Field")
        return f"Annotated[{base}, Field({', '.join(arguments)})]"

    # -- models ---------------------------------------------------------------------------

    def model(self, model: Model) -> list[str]:
        lines = self._typed_dict(model) if self.typed_dict else self._base_model(model)
        self.module.defined.add(model.name)
        return lines

    def _config(self, model: Model, *more: str) -> str:
        self.module.pydantic.add("ConfigDict")
        policy = model.extra if isinstance(model.extra, str) else "allow"
        if self.typed_dict and not isinstance(model.extra, str):
            self.notes.append(f"{model.name}: extra keys allowed; a TypedDict cannot type them")
        options = [f"extra={py(policy)}", "strict=True", *more]
        if any(k == "pattern" for f in model.fields for k, _ in _checks_of(f.type)):
            options.append('regex_engine="python-re"')  # ECMA-262 patterns: re reads more
        return f"ConfigDict({', '.join(options)})"

    def _field_names(self, model: Model) -> list[str]:
        """A field name per key: the key itself where it can be one, else a spelling of it
        that no other key of the model, no annotation and no model of the module uses."""
        taken = set(self.module.model_names) | ANNOTATION_NAMES | BASEMODEL_ATTRIBUTES
        usable = [
            is_plain_identifier(f.key)
            and not f.key.startswith(("_", "model_"))
            and f.key not in taken
            for f in model.fields
        ]
        taken |= {f.key for f, ok in zip(model.fields, usable, strict=True) if ok}
        names = []
        for spec, ok in zip(model.fields, usable, strict=True):
            if ok:
                names.append(spec.key)
                continue
            wanted = "_".join(_WORDS.findall(spec.key)) or "field"
            if wanted[0].isdigit() or wanted.startswith("model_"):
                wanted = f"field_{wanted}"
            if keyword.iskeyword(wanted) or wanted in taken:
                wanted += "_"
            name, n = wanted, 1
            while name in taken:
                n += 1
                name = f"{wanted}{n}"
            taken.add(name)
            names.append(name)
        return names

    def _base_model(self, model: Model) -> list[str]:
        self.module.pydantic.add("BaseModel")
        names = self._field_names(model)
        aliased = names != [f.key for f in model.fields]
        # The SDK validates by alias and by name; code that builds the model by field name
        # needs validate_by_name (validate_by_alias is on by default).
        by_name = ("validate_by_name=True",) if aliased else ()
        lines = [f"class {model.name}(BaseModel):"]
        if model.description:
            lines.append(f"    {py(model.description)}")
        lines.append(f"    model_config = {self._config(model, *by_name)}")
        forward = False
        body = []
        for name, spec in zip(names, model.fields, strict=True):
            written = self.annotation(spec.type)
            text = written.text
            arguments = []
            if not spec.required:
                self.module.missing = True
                text += " | MISSING"
                arguments.append("default=MISSING")
            if name != spec.key:
                arguments.append(f"alias={py(spec.key)}")
            if spec.description:
                arguments.append(f"description={py(spec.description)}")
            # A forward reference is quoted whole: 'Node' | None would fail at class creation.
            annotation = py(text) if written.forward else text
            forward = forward or written.forward
            if arguments == ["default=MISSING"]:
                body.append(f"    {name}: {annotation} = MISSING")
            elif arguments:
                self.module.pydantic.add("Field")
                body.append(f"    {name}: {annotation} = Field({', '.join(arguments)})")
            else:
                body.append(f"    {name}: {annotation}")
        if not isinstance(model.extra, str):
            self.module.pydantic.add("Field")
            written = self.annotation(MapOf(model.extra))
            forward = forward or written.forward
            values = py(written.text) if written.forward else written.text
            body.append(f"    __pydantic_extra__: {values} = Field(init=False)")
        if forward:
            self.module.rebuild.append(model.name)
        return lines + ([""] if body else []) + body

    def _typed_dict(self, model: Model) -> list[str]:
        self.module.typing_extensions.add("TypedDict")
        self.module.pydantic.add("with_config")
        config = self._config(model)
        entries = []
        for spec in model.fields:
            written = self.annotation(spec.type)
            # Quoted inside its qualifiers: a TypedDict reads NotRequired from the annotation
            # itself, and has no model_rebuild (pydantic resolves the string at registration).
            text = py(written.text) if written.forward else written.text
            if spec.description:
                self.module.typing.add("Annotated")
                self.module.pydantic.add("Field")
                text = f"Annotated[{text}, Field(description={py(spec.description)})]"
            if not spec.required:
                self.module.typing_extensions.add("NotRequired")
                text = f"NotRequired[{text}]"
            entries.append((spec.key, text))
        if all(is_plain_identifier(k) and not k.startswith("__") for k, _ in entries):
            lines = [f"@with_config({config})", f"class {model.name}(TypedDict):"]
            if model.description:
                lines.append(f"    {py(model.description)}")
            lines += [f"    {k}: {a}" for k, a in entries]
            if not entries and not model.description:
                lines.append("    pass")
            return lines
        # Keys that are no identifiers (or keywords, or __names a class body would mangle).
        lines = [f"{model.name} = TypedDict(", f"    {py(model.name)},", "    {"]
        lines += [f"        {py(k)}: {a}," for k, a in entries]
        lines += ["    },", ")"]
        if model.description:
            lines.append(f"{model.name}.__doc__ = {py(model.description)}")
        lines.append(f"with_config({config})({model.name})")
        return lines


def _checks_of(kind: Type) -> tuple[tuple[str, object], ...]:
    """The checks of a field's type and of the types inside it (not inside other models)."""
    if isinstance(kind, Primitive):
        return kind.checks
    if isinstance(kind, ArrayOf):
        return kind.checks + _checks_of(kind.items)
    if isinstance(kind, MapOf):
        return _checks_of(kind.values)
    if isinstance(kind, (OneOf, TupleOf)):
        members = kind.members if isinstance(kind, OneOf) else (*kind.positions, kind.rest)
        return tuple(c for m in members if m is not None for c in _checks_of(m))
    return ()


@dataclass(frozen=True)
class PythonModule:
    """A module's parts: its imports, and each tool's code with what the target could not
    express (for the tool's notes)."""

    imports: list[str]
    code: dict[str, list[str]]
    notes: dict[str, list[str]]


def render(tools: Sequence[ToolModel], *, typed_dict: bool) -> PythonModule:
    """The models of ``tools`` (pydantic models, or TypedDicts) as one module's parts."""
    module = _Module(frozenset(m.name for t in tools for m in t.models))
    code: dict[str, list[str]] = {}
    notes: dict[str, list[str]] = {}
    for tool in tools:
        writer = _Writer(module, typed_dict)
        lines: list[str] = []
        for model in tool.models:
            lines += ["", "", *writer.model(model)]
        if not isinstance(tool.root, ModelRef):
            # No model at the root: an alias, which MCPServer declares (wrapped as
            # {"result": ...} unless it is a dict[str, ...]).
            lines += ["", "", f"{tool.name} = {writer.annotation(tool.root).text}"]
        # In the tool's own section, so that pasting the section pastes them too.
        rebuilt = [name for name in module.rebuild if name not in module.rebuilt]
        if rebuilt:
            lines += ["", "", *(f"{name}.model_rebuild()" for name in rebuilt)]
            module.rebuilt.update(rebuilt)
        code[tool.tool] = lines
        notes[tool.tool] = list(dict.fromkeys(writer.notes))
    return PythonModule(module.imports(), code, notes)
