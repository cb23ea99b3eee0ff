"""Prompts, resources and templates whose calls break, beside correct ones (Python SDK).

- `users://{user_id}/profile` raises on the empty user id (the coverage phase sends "");
- `orders://{order_id}` raises on "o-13", a value only completion/complete offers;
- the prompt `brief` raises when its optional argument `tone` is absent;
- the listed resource `file:///broken.txt` raises when read.

`file:///ok.txt` and the prompt `hello` are correct. The SDK itself refuses a prompts/get
that lacks a required argument (-32603 from its own check), so no prompt here can succeed
without one.
"""

import json

from mcp.server import MCPServer
from mcp.types import Completion, ResourceTemplateReference

app = MCPServer("surface-bugs")


@app.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


@app.resource("file:///ok.txt", name="ok", mime_type="text/plain")
def ok() -> str:
    """A readable file."""
    return "fine\n"


@app.resource("file:///broken.txt", name="broken", mime_type="text/plain")
def broken() -> str:
    """A file whose read raises."""
    with open("/nonexistent-disk/broken.txt") as file:  # the bug: a FileNotFoundError
        return file.read()


@app.resource("users://{user_id}/profile", name="profile", mime_type="application/json")
def profile(user_id: str) -> str:
    """A user's profile."""
    return json.dumps({"initial": user_id[0]})  # IndexError on ""


_SHIPPED: dict[str, str | None] = {"o-13": None}  # the bug: an order without a date


@app.resource("orders://{order_id}", name="order", mime_type="text/plain")
def order(order_id: str) -> str:
    """An order."""
    shipped = _SHIPPED.get(order_id, "not yet")
    return f"order {order_id}, shipped {shipped.lower()}"  # AttributeError on "o-13"


@app.completion()
async def complete(ref, argument, context):
    if isinstance(ref, ResourceTemplateReference) and argument.name == "order_id":
        return Completion(values=[v for v in ("o-12", "o-13") if v.startswith(argument.value)])
    return None


@app.prompt()
def brief(topic: str, tone: str | None = None) -> str:
    """Write a brief."""
    return f"Write a {tone.lower()} brief about {topic}."  # AttributeError without tone


@app.prompt()
def hello(name: str) -> str:
    """Say hello."""
    return f"Say hello to {name}."


if __name__ == "__main__":
    app.run()
