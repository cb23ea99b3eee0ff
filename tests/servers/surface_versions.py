"""Prompts, resources and a template in two versions chosen by MCP_FIXTURE_VARIANT (v1, v2),
for their drift gate (tests/e2e/test_listed_drift.py). v2 renames a prompt argument (style ->
tone), makes an optional one required (summarize's length), adds a prompt (translate),
removes a resource (settings), changes a resource's description (guide) and the template's
variables (profile gains {org}), and the JSON of a resource whose listing stays the same
(status) loses a member: content drift, found by reading it."""

import json
import os

from mcp.server import MCPServer

V2 = os.environ.get("MCP_FIXTURE_VARIANT", "v1") == "v2"

app = MCPServer("surface-versions")


@app.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@app.resource("status://app", name="status", mime_type="application/json")
def status() -> str:
    """The application's status."""
    state = {"state": "ok"} if V2 else {"state": "ok", "uptime": 42}
    return json.dumps(state)


if V2:

    @app.prompt()
    def review(code: str, tone: str = "concise") -> str:
        """Ask for a review of a piece of code."""
        return f"Review this code ({tone}):\n{code}"

    @app.prompt()
    def summarize(text: str, length: str) -> str:
        """Summarize a text."""
        return f"Summarize in {length} words:\n{text}"

    @app.prompt()
    def translate(text: str) -> str:
        """Translate a text into English."""
        return f"Translate into English:\n{text}"

    @app.resource("file:///docs/guide.md", name="guide", mime_type="text/markdown")
    def guide() -> str:
        """The user guide, and the API key it needs."""
        return "# Guide\n"

    @app.resource("users://{org}/{user_id}/profile", name="profile", mime_type="application/json")
    def profile(org: str, user_id: str) -> str:
        """A user's profile."""
        return json.dumps({"org": org, "id": user_id})

else:

    @app.prompt()
    def review(code: str, style: str = "concise") -> str:
        """Ask for a review of a piece of code."""
        return f"Review this code ({style}):\n{code}"

    @app.prompt()
    def summarize(text: str, length: str = "50") -> str:
        """Summarize a text."""
        return f"Summarize in {length} words:\n{text}"

    @app.resource("file:///docs/guide.md", name="guide", mime_type="text/markdown")
    def guide() -> str:
        """The user guide."""
        return "# Guide\n"

    @app.resource("config://app/settings", name="settings", mime_type="application/json")
    def settings() -> str:
        """The application's settings as JSON."""
        return json.dumps({"theme": "dark"})

    @app.resource("users://{user_id}/profile", name="profile", mime_type="application/json")
    def profile(user_id: str) -> str:
        """A user's profile."""
        return json.dumps({"id": user_id})


if __name__ == "__main__":
    app.run()
