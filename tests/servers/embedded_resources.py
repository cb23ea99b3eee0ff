"""Tools whose results embed or link resources (Python SDK): one correct, two broken.

- `embeds_readme`: an embedded text resource and a resource link, as the spec shows them.
- `embeds_bad_blob`: an embedded resource whose `blob` is not base64 (mcp/blob-base64).
- `links_relative`: a resource link whose `uri` has no scheme (mcp/resource-uri).
"""

from mcp.server import MCPServer
from mcp.types import BlobResourceContents, EmbeddedResource, ResourceLink, TextResourceContents

app = MCPServer("embedded")

README = TextResourceContents(
    uri="file:///docs/readme.md", text="# Demo\n", mime_type="text/markdown"
)


@app.tool(structured_output=False)
def embeds_readme() -> list[EmbeddedResource | ResourceLink]:
    """The readme, embedded, and a link to the changelog."""
    link = ResourceLink(type="resource_link", uri="file:///docs/changes.md", name="changes")
    return [EmbeddedResource(type="resource", resource=README), link]


@app.tool(structured_output=False)
def embeds_bad_blob() -> list[EmbeddedResource]:
    """A logo whose bytes were pasted as they are, not base64-encoded."""
    logo = BlobResourceContents(uri="file:///logo.png", blob="<PNG bytes>", mime_type="image/png")
    return [EmbeddedResource(type="resource", resource=logo)]


@app.tool(structured_output=False)
def links_relative() -> list[ResourceLink]:
    """A link to a file by a relative path."""
    return [ResourceLink(type="resource_link", uri="docs/changes.md", name="changes")]


if __name__ == "__main__":
    app.run()
