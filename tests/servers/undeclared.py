"""Tools that declare no outputSchema (the common case): their contract is inferred.

`stock` returns JSON serialized into one text block; `motto` returns prose. With
UNDECLARED_VARIANT=2 in the environment, `stock` returns `count` as a string and takes a
new required argument: output drift and breaking input-schema drift for the same tool.
"""

import json
import os
import zlib

from mcp.server import MCPServer

app = MCPServer("undeclared")
VARIANT = os.environ.get("UNDECLARED_VARIANT", "1")

if VARIANT == "2":

    @app.tool(structured_output=False)
    def stock(sku: str, warehouse: str) -> str:
        """Stock level for a SKU, as JSON text."""
        return json.dumps({"sku": sku, "count": str(len(sku)), "warehouse": warehouse})

else:

    @app.tool(structured_output=False)
    def stock(sku: str) -> str:
        """Stock level for a SKU, as JSON text."""
        seed = zlib.crc32(sku.encode("utf-8", "surrogatepass"))
        return json.dumps({"sku": sku, "count": seed % 100, "tags": ["a", "b"][: seed % 3]})


@app.tool(structured_output=False)
def motto(topic: str) -> str:
    """A sentence about a topic."""
    return f"Everything about {topic!r} is better with tests."


if __name__ == "__main__":
    app.run()
