"""JSON Schema dialects and validators, shared by generation and checking.

One place decides which dialect a schema speaks and builds its validator: in that dialect,
with that dialect's format checker, and with a registry that refuses every remote URI (the
MCP spec: implementations MUST NOT dereference network ``$ref``s).

jsonschema is imported by the first validator asked for, not with this module: the modules
that only name a dialect (the recorder, drift, the listing's collection) load without it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import referencing
    from jsonschema.protocols import Validator

DEFAULT_DIALECT: Final = "2020-12"
DIALECT_URIS: Final = {
    "http://json-schema.org/draft-04/schema": "draft-04",
    "http://json-schema.org/draft-06/schema": "draft-06",
    "http://json-schema.org/draft-07/schema": "draft-07",
    "http://json-schema.org/draft/2019-09/schema": "2019-09",
    "http://json-schema.org/draft/2020-12/schema": "2020-12",
}
# The dialects we validate with, oldest first; each names its validator class in jsonschema.
_VALIDATOR_NAMES: Final = {
    "draft-04": "Draft4Validator",
    "draft-06": "Draft6Validator",
    "draft-07": "Draft7Validator",
    "2019-09": "Draft201909Validator",
    "2020-12": "Draft202012Validator",
}
DIALECTS: Final = tuple(_VALIDATOR_NAMES)


@cache
def validator_class(dialect: str) -> type[Validator]:
    """jsonschema's validator class for one of ``DIALECTS`` (KeyError for another)."""
    import jsonschema

    cls: type[Validator] = getattr(jsonschema, _VALIDATOR_NAMES[dialect])
    return cls


class UnsupportedDialect(ValueError):
    """The schema names a ``$schema`` we cannot validate with."""


def dialect_of(schema: Mapping[str, Any]) -> str:
    """The dialect a schema declares: "2020-12" (the default when ``$schema`` is absent),
    "2019-09", "draft-07", "draft-06" or "draft-04". http/https and a trailing '#' agree."""
    uri = schema.get("$schema")
    if uri is None:
        return DEFAULT_DIALECT
    if not isinstance(uri, str):
        raise UnsupportedDialect(
            f"$schema must be a URI string, not {uri!r}. Use e.g. "
            '"https://json-schema.org/draft/2020-12/schema", or leave it out.'
        )
    key = uri.strip().removesuffix("#")
    if key.startswith("https://"):
        key = "http://" + key.removeprefix("https://")
    if key in DIALECT_URIS:
        return DIALECT_URIS[key]
    supported = ", ".join(DIALECTS)
    raise UnsupportedDialect(
        f"unsupported JSON Schema dialect $schema={uri!r}; supported: {supported} "
        "(or leave $schema out: 2020-12 is assumed)"
    )


def _refuse_remote(uri: str) -> referencing.Resource[Any]:
    import referencing.exceptions

    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs


def offline(cls: type[Validator], schema: Mapping[str, Any], *, formats: bool = True) -> Validator:
    """``cls``'s validator for ``schema``, formats asserted (unless not ``formats``), whose
    ``$ref``s resolve within the schema or not at all. jsonschema's default registry fetches
    an http(s) ``$ref``: a schema a server sends would make the run request any URL it names.
    Every validator of a schema from a server, and of the protocol's own, is made here."""
    import referencing

    registry: referencing.Registry[Any] = referencing.Registry(
        retrieve=_refuse_remote,  # type: ignore[call-arg]  # an attrs alias mypy cannot see
    )
    return cls(schema, registry=registry, format_checker=cls.FORMAT_CHECKER if formats else None)


def make_validator(schema: Mapping[str, Any]) -> Validator:
    """A validator like a strict server's: own dialect, formats asserted, no network."""
    return offline(validator_class(dialect_of(schema)), schema)


_CACHED: Final = 256


@lru_cache(maxsize=_CACHED)
def _cached_validator(schema_json: str) -> Validator:
    return make_validator(json.loads(schema_json))


# The schema objects asked for last, each with its validator: a tool's outputSchema is the
# same object on every call, and encoding it to find its validator by content would cost
# more than validating a small result.
_BY_IDENTITY: dict[int, tuple[Mapping[str, Any], Validator]] = {}


def validator_for_schema(schema: Mapping[str, Any]) -> Validator:
    """Like make_validator, cached by content: a tool's schema is used for every call (and
    by identity: the same schema object is not encoded again)."""
    known = _BY_IDENTITY.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    validator = _cached_validator(json.dumps(schema, sort_keys=True))
    if len(_BY_IDENTITY) >= _CACHED:
        _BY_IDENTITY.clear()
    # The schema is kept with it: its id cannot be reused by another object meanwhile.
    _BY_IDENTITY[id(schema)] = (schema, validator)
    return validator
