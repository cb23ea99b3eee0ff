"""Correct prompts, resources and a resource template beside one tool (Python SDK).

Every listing entry follows the spec: absolute URIs, an RFC 6570 template, prompts with a
required and an optional argument, plain MIME types. completion/complete offers user ids
for the template and styles for the prompt review_code.
"""

import json

from mcp.server import MCPServer
from mcp.types import Completion, PromptReference, ResourceTemplateReference

app = MCPServer("library")


@app.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@app.resource("file:///docs/readme.md", name="readme", mime_type="text/markdown")
def readme() -> str:
    """The project's readme."""
    return "# Demo\n"


@app.resource("config://app/settings", name="settings", mime_type="application/json")
def settings() -> str:
    """The application's settings as JSON."""
    return json.dumps({"theme": "dark"})


@app.resource("users://{user_id}/profile", name="profile", mime_type="application/json")
def profile(user_id: str) -> str:
    """A user's profile."""
    return json.dumps({"id": user_id})


@app.prompt(title="Review code")
def review_code(code: str, style: str = "concise") -> str:
    """Ask for a review of a piece of code."""
    return f"Review this code ({style}):\n{code}"


@app.prompt()
def greeting(name: str) -> str:
    """Greet someone by name."""
    return f"Say hello to {name}."


OFFERED = {"user_id": ("alice", "bob"), "style": ("concise", "thorough")}


@app.completion()
async def complete(ref, argument, context):
    if isinstance(ref, (ResourceTemplateReference, PromptReference)):
        values = OFFERED.get(argument.name, ())
        return Completion(values=[v for v in values if v.startswith(argument.value)])
    return None


if __name__ == "__main__":
    app.run()
