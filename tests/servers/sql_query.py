"""A generic SQL query tool on the real SDK (`MCPServer`, sqlite3 in memory): the keys of
the rows it returns are the columns the query selects, so `SELECT a, b FROM t` answers rows
`{a, b}` and `SELECT c FROM u` rows `{c}`. Random text is no SQL: only realistic inputs
(configured examples) reach a real result, every other call is refused.

- `query(sql)`: runs one SELECT and returns `{"columns", "rows", "row_count"}` as JSON text
  (no outputSchema: its contract is inferred); anything but a SELECT the database runs is
  refused with ToolError (isError).
"""

import json
import sqlite3

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

app = MCPServer("sql-query")
db = sqlite3.connect(":memory:", check_same_thread=False)
db.executescript(
    """
    CREATE TABLE t (a INTEGER, b TEXT);
    INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three');
    CREATE TABLE u (c TEXT);
    INSERT INTO u VALUES ('x'), ('y');
    """
)


@app.tool(structured_output=False)
def query(sql: str) -> str:
    """Run one read-only SQL SELECT against the database; its rows as JSON text."""
    if not sql.lstrip().lower().startswith("select"):
        raise ToolError("only SELECT statements are allowed")
    try:
        cursor = db.execute(sql)
    except sqlite3.Error as exc:
        raise ToolError(f"SQL error: {exc}") from None
    columns = [column[0] for column in cursor.description or ()]
    rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    return json.dumps({"columns": columns, "rows": rows, "row_count": len(rows)})


if __name__ == "__main__":
    app.run()
