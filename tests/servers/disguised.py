"""A Python-SDK (`MCPServer`) server whose errors look like successful results.

With MCP_FIXTURE_BUGS unset (or "1") it has two planted bugs; with MCP_FIXTURE_BUGS=0 it is
the same server, correct:

- `initials(name)`: catches its own exceptions and returns their message as an ordinary
  result (as dddabtc/winremote-mcp#82 did): a blank name gives
  "Error: 'NoneType' object has no attribute 'strip'" (correct variant: "(no name)");
- `quote(quantity)`: returns a dict for its `Quote` model; above 40 units the bug returns
  the total as a string, which the SDK coerces into a valid number in structuredContent
  while the text keeps the string (correct variant: a number). The dict leaves out the
  model's defaults, which structuredContent has and the text does not: that is no
  contradiction;
- `document_text(filename)`: answers "Document <name> does not exist" as ordinary text for
  every file but "notes.docx", as office-word-mcp-server does: a disguised refusal, warned
  about, never a failure (both variants);
- `troubleshoot(topic)`: a correct help article whose body quotes error messages and a
  traceback: content, never a refusal (both variants).
"""

import os

from mcp.server import MCPServer
from pydantic import BaseModel

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"

app = MCPServer("disguised")


@app.tool()
def initials(name: str) -> str:
    """The initials of a name ("Ada Lovelace" -> "A.L.")."""
    try:
        cleaned = name.strip() or (None if BUGS else "")
        if cleaned == "":
            return "(no name)"
        return "".join(f"{part[0].upper()}." for part in cleaned.strip().split())
    except Exception as exc:  # the bug's home: every exception becomes a "result"
        return f"Error: {exc}"


class Quote(BaseModel):
    quantity: int
    total: float
    currency: str = "EUR"  # left out of the dict: the SDK fills it in structuredContent only
    note: str | None = None


@app.tool()
def quote(quantity: int) -> Quote:
    """Price of `quantity` units at 2.50 each."""
    total: object = quantity * 2.5
    if BUGS and quantity > 40:
        total = f"{quantity * 2.5:.2f}"  # the bug: the SDK coerces it, the text keeps it
    return {"quantity": quantity, "total": total}  # type: ignore[return-value]


@app.tool(structured_output=False)
def document_text(filename: str) -> str:
    """The text of a Word document in the working folder."""
    if filename != "notes.docx":
        return f"Document {filename} does not exist"
    return "Meeting notes\nShip on Friday."


ARTICLE = """Troubleshooting {topic}

Most reports come from a missing configuration file. When the file does not exist, the
service starts with defaults and logs "Error: config not found"; this is expected.

Older releases crashed on blank names with:

    Traceback (most recent call last):
      File "service.py", line 12, in load
    AttributeError: 'NoneType' object has no attribute 'strip'

Version 2.1 fixed it. If you still see "Failed to connect", check the port.
"""


@app.tool()
def troubleshoot(topic: str) -> str:
    """A help article about a topic."""
    return ARTICLE.format(topic=topic)


if __name__ == "__main__":
    app.run()
