"""`weather` mirrors its `region` and `units` arguments into `Mcp-Param-Region` and
`Mcp-Param-Units` headers (`x-mcp-header`, 2026-07-28): over HTTP the SDK refuses a call
whose headers are missing or disagree with the body."""

from typing import Annotated, Literal

from mcp.server import MCPServer
from pydantic import BaseModel, Field

app = MCPServer("param-headers")


class Forecast(BaseModel):
    region: str
    units: str
    degrees: int


@app.tool()
def weather(
    # Bounded, as a mirrored argument must be: the coverage phase's 64 KiB value for an
    # unbounded string makes a 64 KiB header, which uvicorn refuses (HTTP 400).
    region: Annotated[str, Field(max_length=200, json_schema_extra={"x-mcp-header": "Region"})],
    units: Annotated[
        Literal["metric", "imperial"], Field(json_schema_extra={"x-mcp-header": "Units"})
    ] = "metric",
) -> Forecast:
    """Forecast for a region."""
    return Forecast(region=region, units=units, degrees=len(region) % 40)


if __name__ == "__main__":
    app.run()
