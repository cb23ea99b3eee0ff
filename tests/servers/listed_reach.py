"""Prompts and templates that serve only values a generated string never is, each shaped
after a real server (Python SDK), and none with a bug:

- `todo://status/{status}` serves "open" and "done", which only its description names
  (todo-mcp-server-kit 0.2.0's template of the same name; it offers no completions);
- the prompt `open_ticket` serves a numeric `ticketId` only (server-everything's
  resource-prompt takes a `resourceId` that must be a positive integer);
- `notes://{note_id}` answers every id but "1" with `{"error": "note <id> not found"}` as
  its content (fastmcp-sample-server's note template);
- the prompt `fetch_page` answers every URL with "Failed to fetch <url>: ..." as its text,
  as mcp-server-fetch's prompt does when the network is closed: it never serves anything.

Each refuses the rest with -32602.
"""

import json

from mcp.server import MCPServer
from mcp.shared.exceptions import MCPError

INVALID_PARAMS = -32602

app = MCPServer("listed-reach")


@app.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


@app.resource("todo://status/{status}", name="todos_by_status", mime_type="text/markdown")
def todos_by_status(status: str) -> str:
    """Todos filtered by status: open / done (URI-templated resource)."""
    if status not in ("open", "done"):
        raise MCPError(code=INVALID_PARAMS, message=f"status must be open or done, not {status!r}")
    return f"# {status.capitalize()} todos\n\n- [ ] #1 water the plants\n"


@app.resource("notes://{note_id}", name="note", mime_type="application/json")
def note(note_id: str) -> str:
    """One note, by its id."""
    if note_id != "1":
        return json.dumps({"error": f"note {note_id} not found"})
    return json.dumps({"id": 1, "text": "buy milk"})


@app.prompt()
def open_ticket(ticketId: str) -> str:
    """Open a support ticket for review."""
    if not ticketId.isdigit() or int(ticketId) < 1:
        raise MCPError(code=INVALID_PARAMS, message="ticketId must be a positive integer")
    return f"Review ticket #{int(ticketId)} and suggest a reply."


@app.prompt()
def fetch_page(url: str) -> str:
    """Fetch a URL and extract its contents as markdown."""
    return f"Failed to fetch {url}: ConnectError('[Errno 101] Network is unreachable')"


if __name__ == "__main__":
    app.run()
