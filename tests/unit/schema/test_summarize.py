"""schema/summarize.py: folding a large schema into a line budget, drill-down by field path
(schema/field_paths.py), the notation for unions, refs and unknown keys, limits
(schema/limits.py), and the bounds that keep hostile schemas cheap (schema/field_walker.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH
from pytest_mcp_contracts.schema.field_paths import FieldPathError, field_paths
from pytest_mcp_contracts.schema.summarize import Summary, summarize

S = {"type": "string"}
I = {"type": "integer"}  # noqa: E741
N = {"type": "number"}
B = {"type": "boolean"}


def obj(**props: Any) -> dict[str, Any]:
    """A closed object requiring all its properties (so lines carry no ``?`` or note)."""
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def array(items: Any) -> dict[str, Any]:
    return {"type": "array", "items": items}


VARIANT_FIELDS = [
    "sku",
    "color",
    "size",
    "material",
    "weight",
    "price",
    "stock",
    "barcode",
    "image_url",
    "active",
    "position",
    "option1",
    "option2",
    "option3",
    "grams",
]
ORDER: dict[str, Any] = {
    "$defs": {
        "Address": obj(line1=S, line2=S, city=S, postal_code=S, country=S, region=S),
    },
    **obj(
        id=I,
        status={"type": "string", "enum": ["pending", "shipped", "delivered"]},
        currency=S,
        note={"type": ["string", "null"]},
        customer=obj(
            email={"type": "string", "format": "email"},
            phone=S,
            address={"$ref": "#/$defs/Address"},
            loyalty=obj(tier=S, points=I, since=S, referrals=I),
            preferences=obj(language=S, newsletter=B, sms=B, theme=S),
        ),
        items=array(
            obj(
                id=I,
                sku=S,
                quantity=I,
                discount=N,
                tax=N,
                variants=array(obj(**{k: N if k == "price" else S for k in VARIANT_FIELDS})),
                dimensions=obj(length=N, width=N, height=N, unit=S, volume=N),
                attributes=obj(fragile=B, gift=B, hazmat=B, returnable=B, origin=S),
            )
        ),
        shipping=obj(
            method=S,
            carrier=S,
            tracking_number=S,
            cost=N,
            address={"$ref": "#/$defs/Address"},
            window=obj(start=S, end=S, slot=S),
            options=obj(signature=B, insured=B, express=B, saturday=B, pickup=B),
        ),
        billing=obj(
            company=S,
            vat=S,
            address={"$ref": "#/$defs/Address"},
            contact=obj(phone=S, fax=S, department=S, mobile=S),
        ),
        payment=obj(
            method=S,
            provider=S,
            reference=S,
            card=obj(brand=S, last4=S, exp_month=I, exp_year=I, holder=S, country=S),
        ),
        totals=obj(subtotal=N, tax=N, shipping=N, discount=N, grand=N, refunded=N, paid=N),
        metadata={"type": "object", "additionalProperties": S},
        tags=array(S),
    ),
}
ORDER["required"].remove("note")
TOP_LEVEL = list(ORDER["properties"])
ORDER_TOTAL = (
    len(TOP_LEVEL)
    + (5 + 6 + 4 + 4)  # customer: its fields, address, loyalty, preferences
    + (8 + 15 + 5 + 5)  # items[]: its fields, variants[], dimensions, attributes
    + (7 + 6 + 3 + 5)  # shipping
    + (4 + 6 + 4)  # billing
    + (4 + 6)  # payment
    + 7  # totals
    + 1  # metadata{*}
)

ORDER_AT_30 = """\
id: integer
status: string (enum: pending, shipped, delivered)
currency: string
note?: string | null
customer: object
  email: string (format email)
  phone: string
  address: object (6 fields; --field-path 'customer.address')
  loyalty: object (4 fields; --field-path 'customer.loyalty')
  preferences: object (4 fields; --field-path 'customer.preferences')
items[]: object
  id: integer
  sku: string
  quantity: integer
  discount: number
  tax: number
  variants[]: object (15 fields, 1 shown; --field-path 'items[].variants[]')
    price: number
  dimensions: object (5 fields; --field-path 'items[].dimensions')
  attributes: object (5 fields; --field-path 'items[].attributes')
shipping: object (21 fields, 2 shown; --field-path 'shipping')
  method: string
  carrier: string
billing: object (14 fields; --field-path 'billing')
payment: object (10 fields; --field-path 'payment')
totals: object (7 fields; --field-path 'totals')
metadata: object
  {*}: string
tags[]: string
(29 of 117 fields shown; open a folded container with --field-path PATH)"""

MARKER = re.compile(r"\((\d+) fields?(?:, (\d+) shown)?; --field-path '([^']*)'\)$")


def short(path: str) -> str:
    return path if path == "$" else path.removeprefix("$").removeprefix(".")


def field_lines(summary: Summary) -> list[str]:
    """The lines that show a field: not a drill-down's heading nor a "…" line."""
    lines = list(summary.lines[1:] if summary.path != "$" else summary.lines)
    return [line for line in lines if not line.lstrip().startswith("…")]


def check_markers(summary: Summary) -> None:
    """Every marker's counts are exact, and the outermost ones account for all that is
    hidden (nothing is hidden without a marker saying so)."""
    open_markers: list[int] = []  # indents of the marked lines enclosing the current one
    unaccounted = 0
    overflow = 0  # top-level fields left out, with all they hold
    for line in summary.lines:
        more = re.fullmatch(r" *… (\d+) more fields?", line)
        if more:
            overflow = int(more[1])
        indent = len(line) - len(line.lstrip())
        open_markers = [i for i in open_markers if i < indent]
        marker = MARKER.search(line)
        if marker is None:
            continue
        count, seen, path = int(marker[1]), int(marker[2] or 0), marker[3]
        assert summarize(ORDER, field_path=path, budget=500).total == count, line
        if not open_markers:
            unaccounted += count - seen
        open_markers.append(indent)
    if overflow and summary.path == "$":  # a drill-down's heading marker covers it
        assert unaccounted + overflow <= summary.hidden
    else:
        assert unaccounted == summary.hidden


# -- the large schema -----------------------------------------------------------------------


def test_a_large_schema_folds_into_the_default_budget() -> None:
    summary = summarize(ORDER)
    assert summary.render() == ORDER_AT_30
    assert len(summary.render().splitlines()) <= 30
    assert (summary.total, summary.hidden, summary.path) == (ORDER_TOTAL, ORDER_TOTAL - 29, "$")
    assert ORDER_TOTAL == 117


def test_top_level_and_identifying_fields_are_always_shown() -> None:
    lines = summarize(ORDER).lines
    top = [line.split(":")[0].rstrip("?[]") for line in lines if not line.startswith(" ")]
    assert top == TOP_LEVEL
    # customer.email, items[].id and items[].variants[].price: deep, but identifying
    assert lines[lines.index("customer: object") + 1] == "  email: string (format email)"
    assert lines[lines.index("items[]: object") + 1] == "  id: integer"
    variants = next(i for i, line in enumerate(lines) if line.startswith("  variants[]"))
    assert lines[variants + 1] == "    price: number"


def test_fold_markers_count_exactly_and_account_for_everything_hidden() -> None:
    summary = summarize(ORDER)
    assert "billing: object (14 fields; --field-path 'billing')" in summary.lines
    check_markers(summary)


def test_a_big_enough_budget_shows_everything_and_says_nothing_is_hidden() -> None:
    summary = summarize(ORDER, budget=ORDER_TOTAL)
    assert (summary.hidden, summary.total) == (0, ORDER_TOTAL)
    assert len(summary.lines) == ORDER_TOTAL
    assert not any(MARKER.search(line) for line in summary.lines)
    assert summary.render() == "\n".join(summary.lines)
    assert "    line1: string" in summary.lines  # a $ref resolved, under each address
    assert summarize(ORDER, budget=ORDER_TOTAL - 1).hidden > 0


@pytest.mark.parametrize("budget", range(5, 41))
def test_every_budget_is_respected(budget: int) -> None:
    summary = summarize(ORDER, budget=budget)
    assert len(summary.render().splitlines()) <= budget
    assert len(field_lines(summary)) == summary.total - summary.hidden
    check_markers(summary)
    for path in ("items[]", "items[].variants[]", "customer", "shipping"):
        sub = summarize(ORDER, field_path=path, budget=budget)
        assert len(sub.render().splitlines()) <= budget
        assert len(field_lines(sub)) == sub.total - sub.hidden
        check_markers(sub)


def test_top_level_fields_beyond_the_budget_are_counted_on_one_line() -> None:
    summary = summarize(ORDER, budget=6)
    assert summary.lines == (
        "id: integer",
        "status: string (enum: pending, shipped, delivered)",
        "currency: string",
        "note?: string | null",
        "… 8 more fields",
    )
    assert summary.render().endswith(
        "(4 of 117 fields shown; open a folded container with --field-path PATH)"
    )


def test_the_fold_hint_is_the_callers() -> None:
    summary = summarize(ORDER, hint="--mcp-show={path}")
    assert "billing: object (14 fields; --mcp-show=billing)" in summary.lines
    assert summary.render().endswith("open a folded container with --mcp-show=PATH)")


def test_a_budget_too_small_for_a_heading_and_a_field_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 3"):
        summarize(ORDER, budget=2)


# -- drill-down -----------------------------------------------------------------------------


def test_drill_down_shows_exactly_that_subtree() -> None:
    summary = summarize(ORDER, field_path="customer")
    assert summary.lines == (
        "customer: object",
        "  email: string (format email)",
        "  phone: string",
        "  address: object",
        "    line1: string",
        "    line2: string",
        "    city: string",
        "    postal_code: string",
        "    country: string",
        "    region: string",
        "  loyalty: object",
        "    tier: string",
        "    points: integer",
        "    since: string",
        "    referrals: integer",
        "  preferences: object",
        "    language: string",
        "    newsletter: boolean",
        "    sms: boolean",
        "    theme: string",
    )
    assert (summary.total, summary.hidden, summary.path) == (19, 0, "$.customer")


def test_drill_down_folds_within_its_budget() -> None:
    summary = summarize(ORDER, field_path="items[].variants[]", budget=8)
    assert summary.render() == (
        "items[].variants[]: object (15 fields, 5 shown; --field-path 'items[].variants[]')\n"
        "  sku: string\n"
        "  color: string\n"
        "  size: string\n"
        "  material: string\n"
        "  weight: string\n"
        "  … 10 more fields\n"
        "(5 of 15 fields shown; open a folded container with --field-path PATH)"
    )
    deep = summarize(ORDER, field_path="items", budget=6)
    assert deep.lines[0] == "items[]: object (33 fields, 3 shown; --field-path 'items[]')"
    assert deep.lines[1:] == (
        "  id: integer",
        "  sku: string",
        "  quantity: integer",
        "  … 5 more fields",
    )


def test_every_field_path_drills_down_to_its_own_line() -> None:
    paths = field_paths(ORDER)
    assert len(paths) == ORDER_TOTAL + 3  # items, items[].variants and tags, with their []
    everything = summarize(ORDER, budget=500).lines
    for path in paths:
        summary = summarize(ORDER, field_path=path, budget=500)
        heading = summary.lines[0]
        assert summary.path == path
        assert heading.startswith(short(path)), (path, heading)
        assert summary.hidden == 0 and len(summary.lines) == summary.total + 1
        # the heading names the field as its line in the whole summary does
        name = short(path).rsplit(".", 1)[-1]
        name = "{*}" if name.endswith("{*}") else name.removesuffix("[]")
        kind = heading.split(": ", 1)[1]
        assert any(line.strip().startswith(name) and line.endswith(kind) for line in everything)
    leaf = summarize(ORDER, field_path="items[].variants[].price")
    assert leaf.lines == ("items[].variants[].price: number",)
    assert (leaf.total, leaf.hidden) == (0, 0)


@pytest.mark.parametrize(
    "spelling",
    [
        "$.items[].variants[]",
        "items[].variants[]",
        "$items[].variants[]",
        "items[0].variants[*]",
        '$["items"][]["variants"][]',
        "  items[].variants[]  ",
    ],
)
def test_field_path_spellings(spelling: str) -> None:
    assert summarize(ORDER, field_path=spelling) == summarize(
        ORDER, field_path="items[].variants[]"
    )


def test_root_spellings() -> None:
    for spelling in ("$", "", "$.", " $ "):
        assert summarize(ORDER, field_path=spelling) == summarize(ORDER)


def test_an_unknown_path_names_where_it_stopped_and_what_was_there() -> None:
    with pytest.raises(FieldPathError) as caught:
        summarize(ORDER, field_path="customer.adress.city")
    error = caught.value
    assert (error.path, error.stopped_at) == ("customer.adress.city", "customer")
    assert error.children == [
        "customer.email",
        "customer.phone",
        "customer.address",
        "customer.loyalty",
        "customer.preferences",
    ]
    assert error.matches[0] == "customer.address.city"
    assert "customer.address" in error.matches
    message = str(error)
    assert message.startswith("no field path 'customer.adress.city': stopped at 'customer';")
    assert "fields there: customer.email, customer.phone" in message
    assert "did you mean 'customer.address.city'" in message


def test_an_unknown_top_level_field_lists_arrays_with_their_brackets() -> None:
    with pytest.raises(FieldPathError, match=r"stopped at '\$'") as caught:
        summarize(ORDER, field_path="itemz[].id")
    assert "items[]" in caught.value.children and "tags[]" in caught.value.children
    assert caught.value.matches[0] == "items[].id"


def test_an_element_of_what_is_not_an_array_is_unknown() -> None:
    with pytest.raises(FieldPathError) as caught:
        summarize(ORDER, field_path="customer[]")
    assert caught.value.stopped_at == "customer"
    with pytest.raises(FieldPathError) as leaf:
        summarize(ORDER, field_path="id.more")
    assert (leaf.value.children, "it has no fields") == ([], "it has no fields")
    assert "it has no fields" in str(leaf.value)


@pytest.mark.parametrize("bad", ["items[x]", "customer..email", 'x["\\q"]', "a{b}"])
def test_an_unreadable_path_is_a_field_path_error(bad: str) -> None:
    with pytest.raises(FieldPathError, match="cannot read"):
        summarize(ORDER, field_path=bad)


# -- notation -------------------------------------------------------------------------------

NODE = {
    "type": "object",
    "properties": {"name": S, "children": array({"$ref": "#/$defs/Node"})},
    "required": ["name", "children"],
    "additionalProperties": False,
}


def closed(**props: Any) -> dict[str, Any]:
    return {**obj(**props), "$defs": {"Node": NODE}}


def all_lines(schema: dict[str, Any], path: str | None = None) -> tuple[str, ...]:
    return summarize(schema, budget=200, field_path=path).lines


def test_arrays_of_arrays() -> None:
    schema = closed(
        matrix=array(array(N)), grid=array(array(obj(x=I, y=I))), cube=array(array(array(B)))
    )
    assert all_lines(schema) == (
        "matrix[][]: number",
        "grid[][]: object",
        "  x: integer",
        "  y: integer",
        "cube[][][]: boolean",
    )
    for path in ("grid", "grid[]", "grid[][]", "$.grid[0][]"):
        assert all_lines(schema, path) == ("grid[][]: object", "  x: integer", "  y: integer")
    assert all_lines(schema, "matrix[][]") == ("matrix[][]: number",)
    assert [p for p in field_paths(schema) if "cube" in p] == [
        "$.cube",
        "$.cube[]",
        "$.cube[][]",
        "$.cube[][][]",
    ]
    assert summarize(schema).total == 5


def test_unions() -> None:
    schema = closed(
        listed={"type": ["string", "null"]},
        any_of={"anyOf": [{"type": "integer"}, {"type": "string", "format": "date"}]},
        one_of={
            "oneOf": [
                {"type": "object", "properties": {"x": I, "y": S}, "required": ["x", "y"]},
                {"type": "object", "properties": {"x": N, "z": B}, "required": ["x"]},
            ]
        },
        maybe={"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
        nullable={"type": "string", "nullable": True},
        tags={"type": ["array", "null"], "items": S},
    )
    assert all_lines(schema) == (
        "listed: string | null",
        "any_of: integer | string (format date)",
        "one_of: object (other keys allowed)",
        "  x: integer | number",  # required in every branch
        "  y?: string",
        "  z?: boolean",
        "maybe: object | null",
        "  name: string",
        "  children[]: → Node (recursive)",
        "nullable: string | null",
        "tags: array | null",
        "  []: string",
    )
    assert all_lines(schema, "tags[]") == ("tags[]: string",)


def test_all_of_merges_its_parts() -> None:
    schema = closed(
        merged={
            "allOf": [
                {"$ref": "#/$defs/Node"},
                {"properties": {"extra": S}, "required": ["extra"]},
            ]
        },
        narrowed={"type": ["string", "null"], "allOf": [{"type": "string"}]},
    )
    assert all_lines(schema) == (
        "merged: object",
        "  name: string",
        "  children[]: → Node (recursive)",
        "  extra: string",
        "narrowed: string",
    )


def test_refs_local_recursive_remote_and_unresolved() -> None:
    schema = closed(
        tree={"$ref": "#/$defs/Node"},
        again={"$ref": "#"},
        remote={"$ref": "https://example.com/schemas/money.json"},
        relative={"$ref": "money.json#/amount"},
        missing={"$ref": "#/$defs/Gone"},
        anchor={"$ref": "#node"},
        escaped={"$ref": "#/$defs/a~1b%20c"},
    )
    schema["$defs"]["a/b c"] = {"type": "integer"}
    assert all_lines(schema) == (
        "tree: object",
        "  name: string",
        "  children[]: → Node (recursive)",
        "again: → root (recursive)",
        "remote: $ref https://example.com/schemas/money.json (not fetched)",
        "relative: $ref money.json#/amount (not fetched)",
        "missing: $ref #/$defs/Gone (unresolved)",
        "anchor: $ref #node (unresolved)",
        "escaped: integer",
    )


def test_a_schema_whose_root_is_a_ref_loop_is_recursive_at_once() -> None:
    schema = {
        "$ref": "#/$defs/a",
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
    }
    summary = summarize(schema)
    assert summary.lines == ("$: → a (recursive)",)
    assert (summary.total, summary.hidden) == (0, 0)


def test_a_recursive_schema_expands_once_per_path() -> None:
    schema = {"$ref": "#/$defs/Node", "$defs": {"Node": NODE}}
    assert all_lines(schema) == ("name: string", "children[]: → Node (recursive)")
    assert field_paths(schema) == ["$.name", "$.children", "$.children[]"]


def test_unknown_keys() -> None:
    schema = {
        "type": "object",
        "properties": {
            "metadata": {"type": "object", "additionalProperties": {"type": "integer"}},
            "labels": {"type": "object", "additionalProperties": obj(text=S, color=S)},
            "open": {"type": "object", "properties": {"a": S}, "required": ["a"]},
            "also_open": {"type": "object", "additionalProperties": True},
            "patterned": {
                "type": "object",
                "patternProperties": {"^x-": S},
                "additionalProperties": False,
            },
            "shut": {"type": "object", "properties": {"a": S}, "unevaluatedProperties": False},
        },
        "required": ["metadata", "labels", "open", "also_open", "patterned", "shut"],
    }
    assert all_lines(schema) == (
        "metadata: object",
        "  {*}: integer",
        "labels: object",
        "  {*}: object",
        "    text: string",
        "    color: string",
        "open: object (other keys allowed)",
        "  a: string",
        "also_open: object (other keys allowed)",
        "patterned: object (other keys allowed)",
        "shut: object",
        "  a?: string",
        "… other keys allowed",  # the root's own: it has no line
    )
    assert all_lines(schema, "labels{*}") == (
        "labels{*}: object",
        "  text: string",
        "  color: string",
    )
    assert all_lines(schema, "$.labels{*}.color") == ("labels{*}.color: string",)
    assert "$.labels{*}.text" in field_paths(schema)


def test_enums_formats_and_consts() -> None:
    schema = closed(
        few={"enum": ["a", "b"]},
        many={"type": "integer", "enum": list(range(100_000))},
        odd={"enum": ["", "x, y", "z" * 80, None, 1.5, {"k": 1}, [1]]},
        fixed={"const": "v1"},
        when={"type": "string", "format": "date-time"},
    )
    assert all_lines(schema) == (
        "few: string (enum: a, b)",
        "many: integer (enum of 100000: 0, 1, 2, 3, 4, …)",
        f'odd: string | null | number (enum of 7: "", "x, y", {"z" * 39}…, null, 1.5, …)',
        "fixed: string (enum: v1)",
        "when: string (format date-time)",
    )


def test_optional_fields_are_marked_after_the_name() -> None:
    schema = {
        "type": "object",
        "properties": {"id": I, "note": S, "odd key": S, "parts": array(S)},
        "required": ["id"],
        "additionalProperties": False,
    }
    assert all_lines(schema) == (
        "id: integer",
        "note?: string",
        '["odd key"]?: string',
        "parts[]?: string",
    )
    assert all_lines(schema, '["odd key"]') == ('["odd key"]?: string',)
    assert field_paths(schema) == ["$.id", "$.note", '$["odd key"]', "$.parts", "$.parts[]"]


def test_a_root_that_is_not_an_object_gets_a_heading() -> None:
    assert all_lines(array(obj(id=I))) == ("$[]: object", "  id: integer")
    assert all_lines({"type": "string"}) == ("$: string",)
    assert all_lines({}) == ("$: any",)
    assert all_lines({"type": "object"}) == ("… other keys allowed",)


def test_identifying_fields_anywhere_are_preferred() -> None:
    def filler(**props: Any) -> dict[str, Any]:
        return obj(**{f"f{i}": S for i in range(8)}, **props)

    schema = obj(
        a=filler(deep=filler(order_id=S, valid=S)),
        b=filler(deep=filler(createdAt=S, userId=S, format=S)),
        c=filler(deep=filler(updated_at=S, ID=S, Status=S)),
    )
    lines = summarize(schema, budget=20).lines
    for name in ("order_id", "createdAt", "userId", "updated_at", "ID", "Status"):
        assert f"    {name}: string" in lines
    for name in ("valid", "format"):
        assert f"    {name}: string" not in lines


# -- bounds -------------------------------------------------------------------------------


def nested(kind: str, depth: int) -> Any:
    schema: Any = S
    for _ in range(depth):
        if kind == "properties":
            schema = obj(a=schema)
        elif kind == "items":
            schema = array(schema)
        elif kind == "anyOf":
            schema = {"anyOf": [schema, {"type": "null"}]}
        else:
            schema = {"allOf": [schema]}
    return schema


@pytest.mark.parametrize("kind", ["properties", "items", "anyOf", "allOf"])
def test_deep_nesting_is_cut_at_max_depth(kind: str) -> None:
    schema = nested(kind, 10_000)
    summary = summarize(schema)
    assert len(summary.render().splitlines()) <= 30
    assert summary.total <= DOCUMENT_DEPTH
    assert len(field_paths(schema)) <= DOCUMENT_DEPTH


def test_deep_properties_say_where_they_stop() -> None:
    schema = nested("properties", 10_000)
    path = "a" + ".a" * (DOCUMENT_DEPTH - 1)
    assert "(deeper than 64 levels: not shown)" in summarize(schema, field_path=path).lines[0]
    with pytest.raises(FieldPathError, match="deeper than 64 levels are not followed"):
        summarize(schema, field_path=path + ".a")


def test_deep_combinators_and_ref_chains_say_not_all_is_shown() -> None:
    chain = {
        "$ref": "#/$defs/d0",
        "$defs": {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(10_000)},
    }
    for schema in (chain, nested("allOf", 10_000)):
        assert summarize(schema).lines == ("$: any (too deep or too large: not all shown)",)


def test_wide_objects_are_bounded() -> None:
    schema = {"type": "object", "properties": {f"p{i:05}": S for i in range(10_000)}}
    summary = summarize(schema)
    assert (summary.total, summary.hidden) == (10_000, 10_000 - 28)
    assert summary.lines[-1] == "… 9972 more fields"
    assert len(summary.render().splitlines()) == 30
    assert len(field_paths(schema)) == 10_000


def test_a_fan_out_of_refs_stops_at_the_visit_bound() -> None:
    def wide(prefix: str, target: Any) -> dict[str, Any]:
        return {"type": "object", "properties": {f"{prefix}{i}": target for i in range(300)}}

    schema = {
        **wide("p", {"$ref": "#/$defs/W"}),
        "$defs": {"W": wide("q", {"$ref": "#/$defs/V"}), "V": wide("r", S)},
    }
    summary = summarize(schema)
    assert len(summary.render().splitlines()) <= 30
    assert (
        summary.lines[0]
        == "p0?: object (other keys allowed) (too deep or too large: not all shown)"
    )
    assert 300 <= len(field_paths(schema)) <= 50_000


def test_a_ref_indexing_an_array_with_a_non_ascii_digit_is_shown_unresolved() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [S, I]},
            "n": {"$ref": "#/properties/pair/prefixItems/%C2%B2"},  # "²"
        },
    }
    assert "n?: $ref #/properties/pair/prefixItems/%C2%B2 (unresolved)" in (
        summarize(schema).render().splitlines()
    )


def test_refs_by_anchor_and_relative_to_an_id_are_followed() -> None:
    schema = obj(
        anchored={"$ref": "#money"},
        relative={"$ref": "money.json"},
        other={"$ref": "other.json"},
    )
    schema["$id"] = "https://example.com/root.json"
    schema["$defs"] = {
        "money": {"$anchor": "money", "type": "number"},
        "m": {"$id": "money.json", "type": "string"},
    }
    assert all_lines(schema) == (
        "anchored: number",
        "relative: string",
        "other: $ref other.json (not fetched)",
    )


def test_a_draft_04_boolean_exclusive_bound_makes_its_bound_strict() -> None:
    from pytest_mcp_contracts.schema.limits import limit_notes, limits

    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        **obj(
            count=I | {"minimum": 0, "exclusiveMinimum": True, "maximum": 10},
            ratio=N | {"maximum": 1, "exclusiveMaximum": True},
            plain=I | {"minimum": 0, "exclusiveMinimum": False},
        ),
    }
    found = {entry.pop("path"): entry for entry in limits(schema)}
    assert found["$.count"] == {"exclusiveMinimum": 0, "maximum": 10}
    assert limit_notes(found["$.count"]) == ["> 0, ≤ 10"]  # not "0..10"
    assert found["$.ratio"] == {"exclusiveMaximum": 1}
    assert found["$.plain"] == {"minimum": 0}
