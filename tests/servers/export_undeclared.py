"""Tools that return JSON and declare no outputSchema (a bare ``dict`` return annotation:
MCPServer sends the JSON as text only), for the export round trip (tests/e2e/test_export.py).

A run records their contracts; `mcp-contracts export` turns them into models; the test writes
a second copy of this file with the models pasted in and each ``-> dict`` replaced by the
tool's model, and the next run finds every tool declared.

- ``lookup`` takes an argument that varies its output, so its contract is validated (a strict
  model): a nested object that is sometimes null, an array of objects, a field present only
  for some ids, a number with and without a fraction, a date-time, and keys that are no
  Python identifiers (``first-name``) or are keywords (``class``).
- ``status`` takes no arguments, so its contract stays inferred (a permissive model).
"""

from mcp.server import MCPServer

app = MCPServer("export-roundtrip")


@app.tool()
def lookup(user_id: int) -> dict:
    """A user and their team, as JSON."""
    user = abs(user_id) % 1000
    value = {
        "id": user,
        "first-name": f"user{user}",
        "class": ["admin", "member", "guest"][user % 3],
        "score": user / 2,
        "created": f"2026-11-{user % 28 + 1:02d}T10:00:00Z",
        "manager": None if user % 2 else {"id": user + 1, "name": f"boss{user + 1}"},
        "teams": [{"name": f"team{i}", "size": i + 1} for i in range(user % 3)],
    }
    if user % 4 == 0:
        value["nickname"] = f"u{user}"
    return value


@app.tool()
def status() -> dict:
    """The service's status, as JSON."""
    return {"ok": True, "version": "1.2.3", "uptime": 42, "regions": ["eu", "us"]}


if __name__ == "__main__":
    app.run()
