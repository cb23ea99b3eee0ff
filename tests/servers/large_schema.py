"""`get_order` declares a very large nested outputSchema (130+ fields: customer, shipping,
items[] with variants[] of 15 fields, arrays of arrays, a free-form metadata map), to show
folding and drill-down. Results are valid for it."""

from _legacy import serve, text_result

STR, INT, NUM = {"type": "string"}, {"type": "integer"}, {"type": "number"}


def obj(props, required=None, **extra):
    return {
        "type": "object",
        "properties": props,
        "required": list(props) if required is None else required,
        **extra,
    }


ADDRESS = obj({f"line{i}": STR for i in range(1, 4)} | {"city": STR, "zip": STR, "country": STR})
VARIANT = obj(
    {
        "id": STR,
        "sku": STR,
        "price": NUM,
        "color": STR,
        "size": STR,
        "weight": NUM,
        "width": NUM,
        "height": NUM,
        "depth": NUM,
        "material": STR,
        "stock": INT,
        "barcode": STR,
        "created": {"type": "string", "format": "date-time"},
        "discontinued": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
    }
)
ITEM = obj(
    {
        "id": STR,
        "sku": STR,
        "name": STR,
        "quantity": INT,
        "price": NUM,
        "variants": {"type": "array", "items": VARIANT},
        "dimensions": {"type": "array", "items": {"type": "array", "items": NUM}},
        "tags": {"type": "array", "items": STR},
    }
)
OUTPUT = obj(
    {
        "id": STR,
        "status": {"type": "string", "enum": ["pending", "shipped", "delivered"]},
        "created": {"type": "string", "format": "date-time"},
        "total": NUM,
        "currency": STR,
        "customer": obj(
            {
                "id": STR,
                "name": STR,
                "email": {"type": "string", "format": "email"},
                "phone": STR,
                "address": ADDRESS,
                "preferences": obj({f"pref_{i}": {"type": "boolean"} for i in range(12)}),
            }
        ),
        "shipping": obj(
            {
                "method": STR,
                "tracking_id": STR,
                "address": ADDRESS,
                "events": {
                    "type": "array",
                    "items": obj({"at": STR, "where": STR, "what": STR, "code": INT}),
                },
            }
        ),
        "items": {"type": "array", "items": ITEM},
        "metadata": {"type": "object", "additionalProperties": STR},
        **{f"flag_{i}": {"type": "boolean"} for i in range(20)},
    }
)
TOOLS = [
    {
        "name": "get_order",
        "description": "A big order.",
        "inputSchema": obj({"order_id": STR}),
        "outputSchema": OUTPUT,
    }
]


def address():
    return {"line1": "1 Road", "line2": "", "line3": "", "city": "X", "zip": "1", "country": "NL"}


def call(name, args):
    variant = {
        "id": "v",
        "sku": "s",
        "price": 1.0,
        "color": "red",
        "size": "M",
        "weight": 1.0,
        "width": 1.0,
        "height": 1.0,
        "depth": 1.0,
        "material": "wood",
        "stock": 1,
        "barcode": "0",
        "created": "2026-11-21T10:00:00Z",
        "discontinued": False,
        "note": None,
    }
    order = {
        "id": args["order_id"],
        "status": "pending",
        "created": "2026-11-21T10:00:00Z",
        "total": 1.0,
        "currency": "EUR",
        "customer": {
            "id": "c",
            "name": "Ann",
            "email": "ann@example.com",
            "phone": "1",
            "address": address(),
            "preferences": {f"pref_{i}": True for i in range(12)},
        },
        "shipping": {
            "method": "post",
            "tracking_id": "t",
            "address": address(),
            "events": [{"at": "now", "where": "here", "what": "sent", "code": 1}],
        },
        "items": [
            {
                "id": "i",
                "sku": "s",
                "name": "n",
                "quantity": 1,
                "price": 1.0,
                "variants": [variant],
                "dimensions": [[1.0, 2.0]],
                "tags": ["a"],
            }
        ],
        "metadata": {"k": "v"},
        **{f"flag_{i}": False for i in range(20)},
    }
    return text_result("order", structured=order)


serve("large-schema", TOOLS, call)
