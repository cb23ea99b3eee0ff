"""Inputs for prompts and resource templates: a template expanded with generated values
(RFC 6570, the ``uri-template`` library), values mined from listed resource URIs that a
template matches, and values a description names. Their arguments as a JSON Schema (so that
the coverage phase, the random strategies and the shrinker serve them as they serve a tool's
inputSchema) are ``schema/synthetic``'s, re-exported here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final
from urllib.parse import unquote

# Re-exported: the synthetic schemas' home is schema/synthetic (an Entry's input_schema).
from pytest_mcp_contracts.schema.synthetic import (
    prompt_schema as prompt_schema,
)
from pytest_mcp_contracts.schema.synthetic import (
    template_schema as template_schema,
)
from pytest_mcp_contracts.schema.synthetic import (
    template_variables as template_variables,
)

#: Listed resource URIs a template is matched against to mine values for its variables.
MAX_MINED_URIS: Final = 1000
#: Mined value sets kept per template (distinct; the first found).
MAX_MINED: Final = 5

# One RFC 6570 expression: its operator and its variable list.
_EXPRESSION: Final = re.compile(r"\{([+#./;?&]?)([^{}]*)\}")
_VARIABLE: Final = re.compile(r"^([A-Za-z0-9_.%]+)(?:\*|:\d{1,4})?$")


def required_arguments(arguments: Any) -> list[str]:
    """The names of a prompt's required arguments, in listing order."""
    return list(prompt_schema(arguments)["required"])


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
