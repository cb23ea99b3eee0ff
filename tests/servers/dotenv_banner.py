"""A Python SDK (MCPServer) server with dotenv 17's habit: a banner on stdout at start-up,
before the handshake (brave/brave-search-mcp-server#32). Claude Desktop drops such a server
with "Unexpected token 'd', "[dotenv@17."... is not valid JSON".

- `chatty` prints to stdout while it runs. The SDK (mcp 2.x) points the process's stdout at
  stderr while it serves, so that line never reaches the protocol channel: the call is clean.
- `echo` prints nothing.
"""

from mcp.server import MCPServer

# What dotenv 17's config() prints unless it is given quiet: true.
print("[dotenv@17.2.3] injecting env (0) from .env -- tip: ⚙️  load multiple .env files")

app = MCPServer("dotenv-banner")


@app.tool()
def chatty(text: str) -> str:
    """Echo the text, printing a debug line on the way."""
    print(f"DEBUG chatty: {text!r}")
    return text


@app.tool()
def echo(text: str) -> str:
    """Echo the text."""
    return text


if __name__ == "__main__":
    app.run()
