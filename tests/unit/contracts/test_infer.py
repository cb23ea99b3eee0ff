"""contracts/infer.py: the learned schema's merge rules, its snapshot record, drift, and its
bounds."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from pytest_mcp_contracts.contracts.change import Change
from pytest_mcp_contracts.contracts.infer import (
    ESTABLISHED,
    MAX_DEPTH,
    MAX_PROPERTIES,
    Shape,
)
from pytest_mcp_contracts.schema.paths import child_path, items_path

ALLOWED_KEYWORDS = {"type", "properties", "required", "items", "format", "additionalProperties"}

ORDERS: list[dict[str, Any]] = [
    {
        "id": 1,
        "placed": "2024-05-01T10:00:00Z",
        "customer": {"name": "Ann", "email": "ann@example.com"},
        "items": [
            {"sku": "A-1", "price": 10, "qty": 1},
            {"sku": "B-2", "price": 2.5, "qty": 3, "note": "gift"},
        ],
        "coupon": None,
        "tags": [],
    },
    {
        "id": 2,
        "placed": "2024-05-02T11:30:00+02:00",
        "customer": {"name": "Bo", "email": "bo@example.org", "phone": "555-0100"},
        "items": [{"sku": "C-3", "price": 4, "qty": 2}],
        "coupon": "SPRING",
        "tags": [],
        "receipt url": "https://shop.example.com/r/2",
    },
    {
        "id": 3,
        "placed": "2024-05-03T08:15:00Z",
        "customer": {"name": "Cy", "email": "cy@example.net"},
        "items": [],
        "coupon": None,
        "tags": [],
    },
]

ORDERS_SCHEMA = {
    "type": "object",
    "properties": {
        "coupon": {"type": ["string", "null"]},
        "customer": {
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email"},
                "name": {"type": "string"},
                "phone": {"type": "string"},
            },
            "required": ["email", "name"],
        },
        "id": {"type": "integer"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "note": {"type": "string"},
                    "price": {"type": "number"},
                    "qty": {"type": "integer"},
                    "sku": {"type": "string"},
                },
                "required": ["price", "qty", "sku"],
            },
        },
        "placed": {"type": "string", "format": "date-time"},
        "receipt url": {"type": "string", "format": "uri"},
        "tags": {"type": "array"},
    },
    "required": ["coupon", "customer", "id", "items", "placed", "tags"],
}

ORDERS_SEEN = {
    "$": 3,
    '$["receipt url"]': 1,
    "$.coupon": 1,  # non-null values: the evidence for its type
    "$.customer": 3,
    "$.customer.email": 3,
    "$.customer.name": 3,
    "$.customer.phone": 1,
    "$.id": 3,
    "$.items": 3,
    "$.items[]": 3,
    "$.items[].note": 1,
    "$.items[].price": 3,
    "$.items[].qty": 3,
    "$.items[].sku": 3,
    "$.placed": 3,
    "$.tags": 3,
}


def learned(*values: Any) -> Shape:
    shape = Shape()
    for value in values:
        shape.observe(value)
    return shape


def keywords(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        yield from schema
        for key, sub in schema.items():
            if key == "properties":
                for prop in sub.values():
                    yield from keywords(prop)
            elif key in ("items", "additionalProperties"):
                yield from keywords(sub)


# -- paths ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "expected"),
    [("name", "$.name"), ("odd key", '$["odd key"]'), ("1st", '$["1st"]'), ("", '$[""]')],
)
def test_child_path(key: str, expected: str) -> None:
    assert child_path("$", key) == expected


def test_items_path() -> None:
    assert items_path(child_path("$", "items")) == "$.items[]"


# -- merge rules ---------------------------------------------------------------------------


def test_orders_schema_and_counts() -> None:
    shape = learned(*ORDERS)
    assert shape.to_schema() == ORDERS_SCHEMA
    assert shape.seen() == ORDERS_SEEN
    assert list(shape.seen()) == sorted(ORDERS_SEEN)
    assert shape.count == 3


def test_required_only_if_present_in_every_object() -> None:
    schema = learned({"a": 1, "b": 1}, {"a": 2}, {"a": 3, "c": 1}).to_schema()
    assert schema["required"] == ["a"]
    assert set(schema["properties"]) == {"a", "b", "c"}


def test_required_ignores_values_that_are_not_objects() -> None:
    assert learned({"a": 1}, None, {"a": 2}).to_schema() == {
        "type": ["object", "null"],
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
    }


@pytest.mark.parametrize("values", [(1, 2.5), (2.5, 1), (1, 2.5, 3)])
def test_integer_and_number_merge_to_number(values: tuple[Any, ...]) -> None:
    assert learned(*values).to_schema() == {"type": "number"}


def test_bool_is_never_an_integer() -> None:
    assert learned(True, 1).to_schema() == {"type": ["boolean", "integer"]}


def test_null_makes_a_type_nullable() -> None:
    assert learned("a", None).to_schema() == {"type": ["string", "null"]}
    assert learned(None).to_schema() == {"type": "null"}


def test_arrays_of_objects_merge_their_items() -> None:
    schema = learned([{"a": 1, "b": "x"}], [{"a": 2}, {"a": 3.5, "c": None}]).to_schema()
    assert schema == {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "a": {"type": "number"},
                "b": {"type": "string"},
                "c": {"type": "null"},
            },
            "required": ["a"],
        },
    }


def test_an_array_never_seen_non_empty_has_no_items() -> None:
    assert learned([], []).to_schema() == {"type": "array"}
    assert learned([], [1]).to_schema() == {"type": "array", "items": {"type": "integer"}}


@pytest.mark.parametrize(
    ("values", "fmt"),
    [
        (["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.25+01:00"], "date-time"),
        (["2024-01-02", "1999-12-31"], "date"),
        (["0f8fad5b-d9cb-469f-a165-70867728950e"], "uuid"),
        (["a@b.co", "first.last+tag@mail.example.org"], "email"),
        (["https://example.com/x?y=1", "ftp://files.example.com"], "uri"),
        (["2024-01-02", "2024-01-02T03:04:05Z"], None),  # date and date-time: no format
        (["2024-01-02", "soon"], None),  # one string without the format drops it
        (["a@b.co", "", "c@d.io"], None),
        (["2024-02-30"], None),  # looks like a date, is not one
        (["mailto:a@b.co"], None),  # a URI, but uri needs "://"
        (["urn:isbn:0451450523"], None),
        (["example.com/x"], None),
        (["\uff12\uff10\uff12\uff14-01-02"], None),  # fullwidth digits
        (["plain"], None),
    ],
)
def test_formats_only_when_every_string_has_one(values: list[str], fmt: str | None) -> None:
    expected = {"type": "string"} if fmt is None else {"type": "string", "format": fmt}
    assert learned(*values).to_schema() == expected


def test_format_survives_values_of_other_types() -> None:
    assert learned("2024-01-02", None, 3).to_schema() == {
        "type": ["integer", "string", "null"],
        "format": "date",
    }


def test_no_value_constraints_are_ever_inferred() -> None:
    shape = learned(*[{"n": 5, "s": "same", "l": [1, 1], "e": "red"} for _ in range(20)])
    assert set(keywords(shape.to_schema())) <= ALLOWED_KEYWORDS


def test_merge_equals_observing_both() -> None:
    first, second = learned(*ORDERS[:1]), learned(*ORDERS[1:])
    first.merge(second)
    assert first == learned(*ORDERS)
    second.observe(ORDERS[0])  # merge copied, it did not alias
    assert first == learned(*ORDERS)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (["2024-01-02"], ["a@b.co"]),
        (["2024-01-02"], ["2024-01-03", "x"]),
        ([1], ["2024-01-02"]),
        (["2024-01-02"], [None]),
        ([[{"at": "2024-01-02"}]], [[{"at": "2024-01-02T03:04:05Z"}]]),
    ],
)
def test_merge_formats(first: list[Any], second: list[Any]) -> None:
    merged = learned(*first)
    merged.merge(learned(*second))
    assert merged == learned(*first, *second)
    assert merged.to_schema() == learned(*first, *second).to_schema()


def test_not_a_json_value() -> None:
    with pytest.raises(TypeError, match="not a JSON value: tuple"):
        Shape().observe((1, 2))


# -- the record ----------------------------------------------------------------------------


def test_record_round_trip_through_json() -> None:
    shape = learned(*ORDERS)
    schema = json.loads(json.dumps(shape.to_schema()))
    seen = json.loads(json.dumps(shape.seen()))
    restored = Shape.from_record(schema, seen)
    assert restored == shape
    assert restored.to_schema() == ORDERS_SCHEMA
    assert restored.seen() == ORDERS_SEEN
    extra = {"id": 4, "placed": "2024-06-01", "customer": None, "items": [{"sku": "D", "qty": 1}]}
    assert restored.diff(extra) == shape.diff(extra)
    for value in (restored, shape):
        value.observe(extra)
    assert restored == shape
    assert Shape.from_record(shape.to_schema(), shape.seen()) == shape


def test_record_keeps_required_of_nullable_objects() -> None:
    # Nothing in the record counts objects apart from nulls; required must come through.
    shape = learned({"a": 1}, {}, None)
    restored = Shape.from_record(shape.to_schema(), shape.seen())
    for value in (restored, shape):
        value.merge(learned({"a": 2}))
    assert restored == shape
    assert "required" not in restored.to_schema()


def test_empty_shape() -> None:
    shape = Shape()
    assert (shape.to_schema(), shape.seen(), shape.count) == ({}, {"$": 0}, 0)
    assert Shape.from_record({}, {"$": 0}) == shape
    assert shape.diff({"anything": 1}) == []


def _edit(change: Callable[[dict[str, Any], dict[str, Any]], None]) -> tuple[Any, Any]:
    schema, seen = copy.deepcopy(ORDERS_SCHEMA), dict(ORDERS_SEEN)
    change(schema, seen)
    return schema, seen


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda sch, seen: seen.pop("$.items[].sku"), r"\$\.items\[\]\.sku: seen has no count"),
        (lambda sch, seen: seen.update({"$.ghost": 1}), r"does not: \$\.ghost"),
        (lambda sch, seen: seen.update({"$.id": "3"}), "seen has no count"),
        (lambda sch, seen: seen.update({"$.id": 4}), "'id' seen more often than its object"),
        (lambda sch, seen: sch["properties"]["id"].update(enum=[1, 2]), "keyword.*'enum'"),
        (lambda sch, seen: sch.update(additionalProperties=False), "additionalProperties"),
        (lambda sch, seen: sch["properties"]["id"].update(type=5), "type must be"),
        (lambda sch, seen: sch["properties"]["id"].update(type=[]), "type must be"),
        (lambda sch, seen: sch["properties"]["id"].update(type="int"), "type must be"),
        (lambda sch, seen: sch["properties"]["id"].update(type=["integer", "number"]), "never"),
        (lambda sch, seen: sch["properties"]["id"].pop("type"), r"\$\.id: no type"),
        (lambda sch, seen: sch["properties"]["id"].update(format="date"), "format 'date'"),
        (lambda sch, seen: sch["properties"]["placed"].update(format="ipv4"), "format 'ipv4'"),
        (lambda sch, seen: sch["required"].append("nope"), "required must list"),
        (lambda sch, seen: seen.update({"$.id": 0}), "a count of 0 for a path that was not"),
        (
            lambda sch, seen: sch.update(additionalProperties={"type": "string"}),
            "additionalProperties and no properties",
        ),
        (
            lambda sch, seen: sch["properties"]["id"].update(additionalProperties={}),
            "not an object",
        ),
        (
            lambda sch, seen: (
                sch["properties"]["tags"].update(items={}) or seen.update({"$.tags[]": 1})
            ),
            r"\$\.tags\[\]: no type",
        ),
        (lambda sch, seen: sch["properties"]["id"].update(items={}), "not an array"),
        (lambda sch, seen: sch["properties"].update(id=[]), "not an object"),
        (lambda sch, seen: sch.update(properties=[]), "properties is not an object"),
    ],
)
def test_from_record_rejects_what_no_shape_produces(
    change: Callable[[dict[str, Any], dict[str, Any]], None], message: str
) -> None:
    schema, seen = _edit(change)
    with pytest.raises(ValueError, match=message):
        Shape.from_record(schema, seen)


def test_from_record_rejects_nesting_deeper_than_learned() -> None:
    schema: dict[str, Any] = {"type": "null"}
    seen = {}
    path = "$" + ".a" * (MAX_DEPTH + 5)
    for _ in range(MAX_DEPTH + 5):
        seen[path] = 1
        schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
        path = path.removesuffix(".a")
    seen["$"] = 1
    with pytest.raises(ValueError, match="deeper than 32 levels"):
        Shape.from_record(schema, seen)


# -- drift ---------------------------------------------------------------------------------


def order(**changes: Any) -> dict[str, Any]:
    value = copy.deepcopy(ORDERS[1])
    value.update(changes)
    return {k: v for k, v in value.items() if v != "DROP"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (order(id="DROP"), [Change("breaking", "$.id", "missing (was always present)")]),
        (
            order(items=[{"sku": "A", "price": "10", "qty": 1}]),
            [Change("breaking", "$.items[].price", "number -> string")],
        ),
        (
            order(items=[{"price": 1, "qty": 1}]),
            [Change("breaking", "$.items[].sku", "missing (was always present)")],
        ),
        (order(discount=5), [Change("additive", "$.discount", "new field: integer")]),
        (order(extra={"deep": {"x": 1}}), [Change("additive", "$.extra", "new field: object")]),
        (order(**{"receipt url": "DROP", "customer": {"name": "D", "email": "d@e.io"}}), []),
        (order(items=[{"sku": "A", "price": 7, "qty": 1}]), []),  # integer where number
        (
            order(items=[{"sku": "A", "price": 1, "qty": 1.5}]),
            [
                Change(
                    "additive",
                    "$.items[].qty",
                    "integer -> number (widened: only whole numbers were seen)",
                )
            ],
        ),
        (order(customer=None), [Change("breaking", "$.customer", "object -> null")]),
        (order(coupon=5), [Change("breaking", "$.coupon", "string | null -> integer")]),
        (order(tags=["x", 1]), [Change("additive", "$.tags[]", "new items: integer | string")]),
        (
            order(placed="yesterday"),
            [Change("breaking", "$.placed", "format date-time -> plain string")],
        ),
        ([ORDERS[0]], [Change("breaking", "$", "object -> array")]),
    ],
)
def test_diff(value: Any, expected: list[Change]) -> None:
    # Ten of each order: every path has the evidence to break (coupon is a string 10 times).
    assert learned(*ORDERS * 10).diff(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            order(id="DROP"),
            "$.id: missing (widened: was in all of only 3 object(s) seen)",
        ),
        (
            order(items=[{"sku": "A", "price": "10", "qty": 1}]),
            "$.items[].price: number -> string (widened: only 3 value(s) were seen)",
        ),
        (
            order(placed="yesterday"),
            "$.placed: format date-time -> plain string",
        ),
    ],
)
def test_differences_from_few_observations_widen(value: Any, expected: str) -> None:
    drifts = learned(*ORDERS).diff(value)
    assert [(d.impact, str(d)) for d in drifts] == [("additive", expected)]


def test_a_type_where_only_null_was_seen_widens_however_often() -> None:
    shape = learned(*[{"reason": None}] * 50)
    assert shape.seen() == {"$": ESTABLISHED, "$.reason": 0}
    assert shape.diff({"reason": "out of stock"}) == [
        Change("additive", "$.reason", "null -> string (widened: only null was seen)")
    ]
    # Once a string was seen often enough, a number there is a break.
    shape = learned(*[{"reason": "x"}] * ESTABLISHED, {"reason": None})
    assert shape.diff({"reason": 3}) == [Change("breaking", "$.reason", "string | null -> integer")]
    assert learned(*[{"reason": "x"}] * (ESTABLISHED - 1)).diff({"reason": 3})[0].impact == (
        "additive"
    )


def test_evidence_survives_the_record() -> None:
    shape = learned(*ORDERS * 10)
    restored = Shape.from_record(shape.to_schema(), shape.seen())
    assert max(restored.seen().values()) == ESTABLISHED
    for value in (order(id="DROP"), order(coupon=5), order(items=[{"sku": "A", "qty": 1.5}])):
        assert restored.diff(value) == shape.diff(value)


# -- maps ----------------------------------------------------------------------------------

ENV_A = {"HOME": "/root", "PATH": "/usr/bin", "OLDPWD": "/tmp", "SHELL": "/bin/sh", "_": "x"}
ENV_B = {"HOME": "/home/ci", "PATH": "/bin", "CI": "true", "GITHUB_SHA": "abc", "LANG": "C"}


@pytest.mark.parametrize(
    ("values", "value_schema"),
    [
        ([{"env": ENV_A}] * 5, {"type": "string"}),  # environment variable names
        (
            [{"env": {"17": {"n": 1}, "4": {"n": 2}}}],
            {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        ),  # numeric ids
        ([{"env": {"2026-11-01": 3, "2026-11-02": 4.5}}], {"type": "number"}),  # dates
        ([{"env": {f"user{i}": i for i in range(25)}}], {"type": "integer"}),  # many keys
        (
            [{"env": {"ann": 1, "bo": 2}}, {"env": {"cy": 3}}, {"env": {"di": 1, "ed": 2}}],
            {"type": "integer"},
        ),  # keys that come and go, none in every object
    ],
    ids=["env", "ids", "dates", "many", "varying"],
)
def test_objects_keyed_by_data_are_learned_as_maps(
    values: list[Any], value_schema: dict[str, Any]
) -> None:
    shape = learned(*values)
    env = shape.to_schema()["properties"]["env"]
    assert env == {"type": "object", "additionalProperties": value_schema}
    restored = Shape.from_record(shape.to_schema(), shape.seen())
    assert restored.to_schema() == shape.to_schema()
    assert "$.env{}" in restored.seen()


def test_a_map_accepts_other_keys_and_checks_every_value() -> None:
    shape = Shape.from_record(*_record(learned(*[{"env": ENV_A}] * 10)))
    assert shape.diff({"env": ENV_B}) == []
    assert shape.diff({"env": {}}) == []
    assert shape.diff({"env": {"HOME": 1}}) == [
        Change("breaking", "$.env.HOME", "string -> integer")
    ]


def _record(shape: Shape) -> tuple[Any, Any]:
    return json.loads(json.dumps([shape.to_schema(), shape.seen()]))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "values",
    [
        ORDERS,  # names, values of different types
        [{"ID": 1, "NAME": "x", "PRICE": 2.5, "TAGS": []}] * 3,  # upper case, mixed types
        [{"a": 1, "b": 2}, {"a": 3}],  # few keys, one in every object
    ],
    ids=["orders", "upper-case-record", "optional-field"],
)
def test_records_stay_records(values: list[Any]) -> None:
    schema = learned(*values).to_schema()
    assert "additionalProperties" not in json.dumps(schema)
    assert schema["properties"]


# -- types that vary -----------------------------------------------------------------------


def test_paths_with_more_than_one_non_null_type_are_unions() -> None:
    shape = learned(
        {"total": 1, "n": 1, "note": None, "items": [{"v": {"a": 1}}]},
        {"total": "1,000", "n": 2.5, "note": "x", "items": [{"v": "a"}]},
    )
    assert shape.unions() == [("$.items[].v", "object | string"), ("$.total", "integer | string")]
    assert learned({"a": 1}, {"a": 2.5}, {"a": None}).unions() == []


def test_diff_is_sorted_by_path_and_deduplicated() -> None:
    value = order(
        id="DROP",
        zeta=1,
        alpha=[],
        items=[{"sku": 1, "price": 1, "qty": 1}, {"sku": 2, "price": 1, "qty": 1}],
    )
    drifts = learned(*ORDERS * 10).diff(value)
    assert [str(d) for d in drifts] == [
        "$.alpha: new field: array",
        "$.id: missing (was always present)",
        "$.items[].sku: string -> integer",
        "$.zeta: new field: integer",
    ]
    assert [d.impact for d in drifts] == ["additive", "breaking", "breaking", "additive"]


def test_drift_str() -> None:
    assert str(Change("breaking", '$["odd key"]', "number -> string")) == (
        '$["odd key"]: number -> string'
    )


# -- the property: what was learned accepts what it was learned from -------------------------

FORMATTED = st.sampled_from(
    [
        "2024-01-02",
        "2024-01-02T03:04:05Z",
        "a@b.co",
        "https://x.example/z",
        "0f8fad5b-d9cb-469f-a165-70867728950e",
    ]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | FORMATTED
)
KEYS = st.sampled_from(["a", "b", "odd key", ""]) | st.text(max_size=3)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None, database=None)
@given(values=st.lists(JSON, min_size=1, max_size=6), split=st.integers(0, 6))
def test_learned_schema_accepts_every_observation(values: list[Any], split: int) -> None:
    shape = learned(*values)
    schema = shape.to_schema()
    Draft202012Validator.check_schema(schema)
    assert set(keywords(schema)) <= ALLOWED_KEYWORDS
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    for value in values:
        assert [e.message for e in validator.iter_errors(value)] == []
        assert shape.diff(value) == []
    merged = learned(*values[:split])
    merged.merge(learned(*values[split:]))
    assert merged.to_schema() == schema and merged.seen() == shape.seen()
    restored = Shape.from_record(*json.loads(json.dumps([schema, shape.seen()])))
    assert (restored.to_schema(), restored.seen()) == (schema, shape.seen())
    for value in values:
        assert restored.diff(value) == []


# -- bounds --------------------------------------------------------------------------------


def _timed(work: Callable[[], Any]) -> Any:
    # Bounded work, not a timing assertion (speed belongs in bench/): it must simply end.
    return work()


@pytest.mark.parametrize("wrap", [lambda v: [v], lambda v: {"a": v}], ids=["list", "dict"])
def test_very_deep_values_are_cut_at_max_depth(wrap: Callable[[Any], Any]) -> None:
    value: Any = None
    for _ in range(10_000):
        value = wrap(value)

    def work() -> Shape:
        shape = learned(value, value)
        assert shape.diff(value) == []
        assert Shape.from_record(shape.to_schema(), shape.seen()) == shape
        return shape

    shape = _timed(work)
    seen = shape.seen()
    assert len(seen) == MAX_DEPTH
    assert set(seen.values()) == {2}
    deepest = max(seen, key=len)
    assert deepest.count("[]") + deepest.count(".a") == MAX_DEPTH - 1
    json.dumps(shape.to_schema())


def test_huge_arrays_are_sampled() -> None:
    value: list[Any] = [*range(100_000), "never looked at"]

    def work() -> Shape:
        shape = learned(value)
        assert shape.diff(value) == []
        return shape

    shape = _timed(work)
    assert shape.to_schema() == {"type": "array", "items": {"type": "integer"}}
    assert shape.seen() == {"$": 1, "$[]": ESTABLISHED}  # counts are capped


def test_huge_objects_keep_the_first_keys_in_sorted_order() -> None:
    # Values of two types, so it is a record, not a map.
    value = {f"k{i:06d}": i if i % 2 else str(i) for i in reversed(range(100_000))}
    shape = _timed(lambda: learned(value))
    properties = shape.to_schema()["properties"]
    assert list(properties) == [f"k{i:06d}" for i in range(MAX_PROPERTIES)]
    assert shape.diff(value) == []


def test_huge_strings_get_no_format() -> None:
    value = "https://example.com/" + "a" * 10_000_000
    assert _timed(lambda: learned(value)).to_schema() == {"type": "string"}


# -- accepting: what a run without the evidence keeps from the record -----------------------


def _settled(recorded: list[Any], run: list[Any]) -> dict[str, Any]:
    shape = learned(*run)
    shape.settle(Shape.from_record(*_record(learned(*recorded))))
    return shape.to_schema()


def test_a_run_with_thin_evidence_keeps_what_the_record_knew() -> None:
    recorded = [{"reason": "x", "n": 1.5, "tags": ["a"], "opt": 1}] + [
        {"reason": None, "n": 2, "tags": []} for _ in range(30)
    ]
    # A short run: reason only null, whole numbers, arrays empty, `opt` never there.
    run = [{"reason": None, "n": 2, "tags": []} for _ in range(3)]
    assert _settled(recorded, run) == learned(*recorded).to_schema()


def test_a_run_with_the_evidence_decides() -> None:
    recorded = [{"id": n, "old": "x", "kind": "a"} for n in range(20)]
    run = [{"id": n, "new": "y", "kind": "b"} for n in range(ESTABLISHED)]
    assert _settled(recorded, run) == {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "kind": {"type": "string"},
            "new": {"type": "string"},
        },
        "required": ["id", "kind", "new"],
    }
    # Fewer objects than ESTABLISHED: `old` stays, as optional; `new` is new and required.
    thin = _settled(recorded, run[:3])
    assert sorted(thin["properties"]) == ["id", "kind", "new", "old"]
    assert thin["required"] == ["id", "kind", "new"]


def test_a_thin_run_that_saw_a_new_type_replaces_rather_than_blends() -> None:
    recorded = [{"total": n} for n in range(20)]
    assert _settled(recorded, [{"total": "1,000"}] * 3) == {
        "type": "object",
        "properties": {"total": {"type": "string"}},
        "required": ["total"],
    }


# -- keys that depend on the input ---------------------------------------------------------


def rows(*records: dict[str, Any]) -> dict[str, Any]:
    """A query tool's answer: its rows, every one with the columns the query asked for."""
    return {"row_count": len(records), "rows": list(records)}


# SELECT a, b FROM t; SELECT c FROM u; SELECT a FROM t WHERE a > 1
QUERIES = [
    rows({"a": 1, "b": "one"}, {"a": 2, "b": "two"}),
    rows({"c": "x"}, {"c": "y"}),
    rows({"a": 2}, {"a": 3}),
]
OPEN_ROWS = {"type": "object", "additionalProperties": True}


def test_rows_whose_keys_change_with_the_query_are_open_not_a_union_of_columns() -> None:
    shape = learned(*QUERIES)
    assert shape.to_schema()["properties"]["rows"]["items"] == OPEN_ROWS
    assert shape.open_paths() == ["$.rows[]"]
    assert shape.unions() == []  # a column's type in one table says nothing of another's
    # Other columns, of other types: no drift; the envelope still binds.
    for answer in QUERIES:
        assert shape.diff(answer) == []
    assert shape.diff(rows({"a": "text", "z": [1]})) == []
    assert [str(d) for d in learned(*QUERIES * 4).diff({"rows": []})] == [
        "$.row_count: missing (was always present)"
    ]


def test_rows_that_share_few_columns_keep_those_and_leave_the_rest_open() -> None:
    # SELECT id, name FROM users; SELECT id, total FROM orders; SELECT id, city, zip ...
    shape = learned(
        rows({"id": 1, "name": "Ann"}, {"id": 2, "name": "Bo"}),
        rows({"id": 7, "total": 9.5}, {"id": 8, "total": 3}),
        rows({"id": 3, "city": "Oslo", "zip": "0150"}, {"id": 4, "city": "Rome", "zip": "001"}),
    )
    items = shape.to_schema()["properties"]["rows"]["items"]
    assert items == {
        "type": "object",
        "properties": {"id": {"type": "integer"}},
        "required": ["id"],
        "additionalProperties": True,
    }
    restored = Shape.from_record(*_record(shape))
    assert restored.to_schema() == shape.to_schema() and restored.open_paths() == ["$.rows[]"]
    assert restored.diff(rows({"id": "x"}))[0].path == "$.rows[].id"


@pytest.mark.parametrize(
    "values",
    [
        # A flag that adds a field to every row: most keys are there every time.
        [rows({"name": "a", "path": "/a"}), rows({"name": "b", "path": "/b", "size": 3})] * 2,
        # Rows whose keys differ within a call are items with optional fields.
        [rows({"sku": "A", "qty": 1}, {"sku": "B", "gift": True}), rows({"sku": "C", "qty": 2})],
        # One object per call that keeps some of its keys: a struct with optional fields.
        [{"id": 1, "notes": ["x"]}, {"id": 2, "customer": {"id": 3}}, {"id": 4}],
        # The same keys every time.
        QUERIES[:1] * 3,
    ],
    ids=["flag", "mixed-rows", "optional", "same"],
)
def test_objects_whose_keys_do_not_follow_the_call_stay_structs(values: list[Any]) -> None:
    shape = learned(*values)
    assert shape.open_paths() == []
    assert "additionalProperties" not in json.dumps(shape.to_schema())


def test_an_accepted_open_object_stays_open_on_thin_evidence() -> None:
    recorded = Shape.from_record(*_record(learned(*QUERIES)))
    update = learned(QUERIES[0])  # one query: too little to say the columns stopped varying
    update.settle(recorded)
    assert update.to_schema() == recorded.to_schema()
    assert update.open_paths() == ["$.rows[]"]
