"""Tools that need the user at a URL before they can answer: JSON-RPC error -32042, "URL
elicitation required", defined by protocol 2025-11-25 only.

`open_drive` raises the Python SDK's `UrlElicitationRequiredError` for folder names of odd
length: on a 2025-11-25 connection (url_required_legacy.py) that is the spec's answer and
must pass; 2026-07-28 retired the code (its servers ask with an input_required result), yet
the SDK still sends it there, so on this file's own 2026 connection the tool must fail.
`open_mail` sends -32042 without the `data.elicitations` list the spec requires: wrong on
every connection.
"""

from mcp import MCPError, UrlElicitationRequiredError
from mcp.server import MCPServer
from mcp.types import ElicitRequestURLParams

app = MCPServer("url-required")


@app.tool()
def open_drive(folder: str) -> dict[str, list[str]]:
    """List a folder of the user's drive; most folders need the user to connect it first."""
    if len(folder) % 2:
        raise UrlElicitationRequiredError(
            [
                ElicitRequestURLParams(
                    mode="url",
                    message="Connect your drive to list this folder",
                    url="https://drive.example.com/connect",
                    elicitation_id="connect-drive",
                )
            ]
        )
    return {"files": [f"{folder}/notes.txt"]}


@app.tool()
def open_mail(box: str) -> dict[str, int]:
    """Count the messages in a mailbox; most boxes need the user to sign in first."""
    if len(box) % 2:
        raise MCPError(
            code=-32042, message="Sign in first", data={"url": "https://mail.example.com"}
        )
    return {"messages": len(box)}


if __name__ == "__main__":
    app.run()
