"""jsonschema, imported without two of its format checkers' libraries until a value needs one.

jsonschema imports the library of every format checker it finds as it is itself imported.
Two of them cost more than the rest of jsonschema's formats together: rfc3986-validator
compiles its URI grammar (two regular expressions, of 2 and 5 kB) and isoduration imports
arrow and dateutil: a measurable share of a small server's whole run (bench/README.md,
figure 9), paid in every run that checks anything, for three formats (``uri``,
``uri-reference``, ``duration``) that most tools' schemas never name.

``import_jsonschema`` imports jsonschema with those two libraries hidden, then registers,
where jsonschema would have registered its own, checkers that import the library on their
first call and then check as jsonschema's do: the same formats on the same drafts, in each
draft's checker and in ``FormatChecker``'s class-wide table. jsonschema's registry is global,
so a user's own use of jsonschema in the same process sees the same formats and the same
verdicts either way; tests/unit/schema/test_formats.py compares the two in fresh processes,
format by format and draft by draft, so a jsonschema release that gives these libraries
more formats fails there rather than losing a check.

Where jsonschema or either library is already imported, or jsonschema found another library
for a format (rfc3987, where it is installed, checks ``uri`` first), it changes nothing. A
whole run calls it first thing as it imports its checks (``pytest/session._import_checks``);
a run that selects with ``-k`` imports jsonschema, and the libraries, where an item first
needs it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Final

# jsonschema's drafts, oldest first: the N of its DraftNValidator classes.
_ALL_DRAFTS: Final = ("3", "4", "6", "7", "201909", "202012")


def _is_uri(instance: object) -> bool:
    if not isinstance(instance, str):
        return True
    from rfc3986_validator import validate_rfc3986

    return bool(validate_rfc3986(instance, rule="URI"))


def _is_uri_reference(instance: object) -> bool:
    if not isinstance(instance, str):
        return True
    from rfc3986_validator import validate_rfc3986

    return bool(validate_rfc3986(instance, rule="URI_reference"))


def _is_duration(instance: object) -> bool:
    if not isinstance(instance, str):
        return True
    import isoduration

    isoduration.parse_duration(instance)
    # As jsonschema's own: isoduration accepts a few strings that end in no designator.
    return instance.endswith(tuple("DMYWHMS"))


# Each deferred library, and the formats jsonschema checks with it: the format's name, the
# drafts that name it (jsonschema/_format.py, `_checks_drafts`), the exceptions that mean
# "not this format", and the check.
Check = tuple[str, tuple[str, ...], type[Exception] | tuple[()], Callable[[object], bool]]
DEFERRED: Final[dict[str, tuple[Check, ...]]] = {
    "rfc3986_validator": (
        ("uri", _ALL_DRAFTS, (), _is_uri),
        ("uri-reference", _ALL_DRAFTS[2:], ValueError, _is_uri_reference),
    ),
    # isoduration raises DurationParsingException, a ValueError, for every string it refuses
    # (arrow's errors included): jsonschema names that class, which only importing it gives.
    "isoduration": (("duration", _ALL_DRAFTS[4:], ValueError, _is_duration),),
}


def import_jsonschema() -> None:
    """Import jsonschema, the deferred libraries left for the first value that needs them.
    Once per process; nothing changes where jsonschema is imported already."""
    if "jsonschema" in sys.modules:
        return
    import importlib.util

    hidden = [
        name
        for name in DEFERRED
        if name not in sys.modules and importlib.util.find_spec(name) is not None
    ]
    # None in sys.modules makes `import name` raise ImportError, which jsonschema takes for
    # "not installed".
    modules: dict[str, Any] = sys.modules
    modules.update(dict.fromkeys(hidden))
    try:
        import jsonschema
    finally:
        for name in hidden:
            if name in modules and modules[name] is None:
                del modules[name]
    for name in hidden:
        for check in DEFERRED[name]:
            _register(jsonschema, *check)


def _register(
    jsonschema: Any,
    format_name: str,
    drafts: tuple[str, ...],
    raises: type[Exception] | tuple[()],
    check: Callable[[object], bool],
) -> None:
    # Each draft's checker has its own table; FormatChecker's class-wide one holds every
    # format for `FormatChecker()`. A format another library already checks stays its.
    tables = [
        getattr(jsonschema, f"Draft{draft}Validator").FORMAT_CHECKER.checkers for draft in drafts
    ]
    for table in [*tables, jsonschema.FormatChecker.checkers]:
        table.setdefault(format_name, (check, raises))
