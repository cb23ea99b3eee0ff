"""Inputs for prompts and resource templates: their arguments as a JSON Schema, so that the
coverage phase, the random strategies and the shrinker serve them as they serve a tool's
inputSchema; a template expanded with those values (RFC 6570, the ``uri-template`` library);
and values mined from listed resource URIs that a template matches.

A prompt's arguments and a template's variables are strings by the spec (``prompts/get``
takes ``arguments: {[key: string]: string}``; a URI template substitutes strings), so each
becomes a ``{"type": "string"}`` property. A template's variables are all required: a client
that reads a template fills each of them in. An RFC 6570 variable with an explode (``*``) or
prefix (``:3``) modifier is still given one string.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final
from urllib.parse import unquote

#: Listed resource URIs a template is matched against to mine values for its variables.
MAX_MINED_URIS: Final = 1000
#: Mined value sets kept per template (distinct; the first found).
MAX_MINED: Final = 5

# One RFC 6570 expression: its operator and its variable list.
_EXPRESSION: Final = re.compile(r"\{([+#./;?&]?)([^{}]*)\}")
_VARIABLE: Final = re.compile(r"^([A-Za-z0-9_.%]+)(?:\*|:\d{1,4})?$")


def prompt_schema(arguments: Any) -> dict[str, Any]:
    """The JSON Schema of a prompt's ``arguments`` listing: a string property per named
    argument, required when it says ``required: true``. Entries without a string name are
    the schema check's finding and are left out here."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for entry in arguments if isinstance(arguments, list) else []:
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if not isinstance(name, str) or name in properties:
            continue
        properties[name] = {"type": "string"}
        if entry.get("required") is True:
            required.append(name)
    return _object(properties, required)


def required_arguments(arguments: Any) -> list[str]:
    """The names of a prompt's required arguments, in listing order."""
    return list(prompt_schema(arguments)["required"])


def template_variables(template: str) -> list[str]:
    """The variable names of a URI template, each once, in order ([] when it does not parse:
    the schema check reports that)."""
    import uri_template

    if not uri_template.validate(template):
        return []
    return list(dict.fromkeys(v.name for v in uri_template.URITemplate(template).variables))


def template_schema(template: str) -> dict[str, Any]:
    """The JSON Schema of a template's variables: all strings, all required."""
    names = template_variables(template)
    return _object({name: {"type": "string"} for name in names}, names)


def expand(template: str, values: Mapping[str, Any]) -> str:
    """The URI a template makes from ``values`` (RFC 6570: reserved characters are
    percent-encoded by the simple operator, kept by ``+`` and ``#``)."""
    import uri_template

    return str(uri_template.URITemplate(template).expand(**{k: str(v) for k, v in values.items()}))


def template_pattern(template: str) -> re.Pattern[str] | None:
    """A regex whose named groups take the variables out of a URI the template could have
    made, or None for a template beyond it. Only expressions of one variable under the
    simple, ``+`` or ``#`` operator are matched (a simple variable stops at ``/ ? # &``,
    the others at the next literal); that covers the templates servers list
    (``users://{id}/profile``, ``file:///{+path}``), and a template it cannot read yields
    no mined values rather than wrong ones."""
    parts: list[str] = []
    at = 0
    names: set[str] = set()
    for match in _EXPRESSION.finditer(template):
        operator, spec = match.groups()
        variable = _VARIABLE.match(spec)
        if variable is None or operator not in ("", "+", "#"):
            return None
        name = variable.group(1)
        if name in names or not name.isidentifier():
            return None  # a repeated or non-identifier name cannot be a regex group
        names.add(name)
        parts.append(re.escape(template[at : match.start()]))
        parts.append(re.escape(operator) if operator == "#" else "")
        value = r"[^/?#&]*" if operator == "" else r".*?"
        parts.append(f"(?P<{name}>{value})")
        at = match.end()
    if not names:
        return None
    parts.append(re.escape(template[at:]))
    return re.compile("".join(parts))


def mined_values(template: str, uris: Iterable[str]) -> list[dict[str, str]]:
    """Values for a template's variables taken from listed resource URIs it matches
    (``users://alice/profile`` gives ``{"user_id": "alice"}``), percent-decoded; at most
    MAX_MINED distinct sets, from the first MAX_MINED_URIS URIs."""
    pattern = template_pattern(template)
    if pattern is None:
        return []
    found: list[dict[str, str]] = []
    for n, uri in enumerate(uris):
        if n >= MAX_MINED_URIS or len(found) >= MAX_MINED:
            break
        match = pattern.fullmatch(uri)
        if match is None:
            continue
        values = {name: unquote(value) for name, value in match.groupdict().items()}
        if values not in found:
            found.append(values)
    return found


# Values a description names for a variable or an argument: quoted words, or a list after a
# cue ("status: open / done", "one of formal, casual", "must be asc or desc", "(json|csv)").
_DESCRIBED_WORD: Final = r"[A-Za-z0-9][\w.+-]{0,39}"
_DESCRIBED_SEPARATOR: Final = r"\s*(?:/|\||,\s*or\b|,|\bor\b)\s*"
_DESCRIBED_LIST: Final = re.compile(
    r"(?:^|[:=(]|\b(?:one of|either|must be|can be|is|are)\b)\s*"
    rf"({_DESCRIBED_WORD}(?:{_DESCRIBED_SEPARATOR}{_DESCRIBED_WORD})+)"
    # Examples may be a single word.
    rf"|\b(?:e\.g\.|for example|such as)[:,]?\s*({_DESCRIBED_WORD}(?:{_DESCRIBED_SEPARATOR}"
    rf"{_DESCRIBED_WORD})*)",
    re.I,
)
_DESCRIBED_QUOTED: Final = re.compile(r"[`'\"]([^`'\"\s]{1,40})[`'\"]")
# Where the words about one name end: a sentence, a clause, a closing bracket.
_DESCRIBED_END: Final = re.compile(r"[.;)\n](?:\s|$)|[;)\n]")
#: Values taken from one description, at most.
MAX_DESCRIBED: Final = 5


def described_values(description: Any, name: str | None = None) -> list[str]:
    """The values a description names: for ``name`` (a template's variable, in the
    template's description) only the words after the name, up to the end of its clause;
    without ``name`` (a prompt argument's own description) the whole text. Quoted words
    first (``'asc'``, `` `json` ``), else a list after a cue (``status: open / done``,
    ``one of formal, casual``). A wrong value costs one refused call; a right one reaches
    an entry no generated string would (todo-mcp-server's ``todo://status/{status}``
    refuses everything but "open", "done" and "all")."""
    if not isinstance(description, str) or not description.strip():
        return []
    text = description[:2000]
    if name is not None:
        found = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, re.I)
        if found is None:
            return []
        text = text[found.end() :]
        end = _DESCRIBED_END.search(text)
        text = text[: end.start()] if end else text
    values = _DESCRIBED_QUOTED.findall(text)
    if not values:
        listed = _DESCRIBED_LIST.search(text)
        words = (listed.group(1) or listed.group(2)) if listed else ""
        values = re.split(_DESCRIBED_SEPARATOR, words) if words else []
    values = [value.rstrip(".") for value in values]  # the sentence's full stop
    return list(dict.fromkeys(v for v in values if v))[:MAX_DESCRIBED]


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
