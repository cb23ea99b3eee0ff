"""A Python-SDK (`MCPServer`) server whose tools ask the client for things mid-call:
sampling, elicitation (form), roots, and progress and log notifications.

The tools use the SDK's resolvers (`Resolve(...)` returning `Sample`, `Elicit`,
`ListRoots`), which work in both protocol eras: on a handshake-era connection each becomes
a server-to-client request during the call; on 2026-07-28 the call answers
`input_required` and the client sends it again with `inputResponses`.

Each tool fails (raises, so the SDK answers "Error executing tool ...") when the client's
answer is missing or not what a client must send, so a client that does not answer makes
them fail:

- `summarize(topic)`: samples the client's model, returns the sampled text;
- `greet(greeting)`: asks for a name (form); accept, decline and cancel each give a text;
- `workspace()`: lists the client's roots, which must be file:// URIs;
- `count_steps(steps)`: sleeps 0.4 s per step (1-4) and reports progress after each, and
  logs one message: with a 1 s call timeout it passes only when progress restarts it.
"""

import asyncio
from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    ListRoots,
    Resolve,
    Sample,
)
from mcp.types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field

app = MCPServer("client-features")


class Name(BaseModel):
    name: str = Field(min_length=1)
    age: int = Field(default=30, ge=0, le=150)


def ask_model(topic: str) -> Sample:
    question = TextContent(type="text", text=f"Summarize {topic} in one line.")
    return Sample([SamplingMessage(role="user", content=question)], max_tokens=50)


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def get_roots() -> ListRoots:
    return ListRoots()


@app.tool()
async def summarize(topic: str, sampled: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    """A one-line summary of a topic, written by the client's model."""
    content = sampled.content
    text = content.text if isinstance(content, TextContent) else ""
    first = text.splitlines()[0]  # the bug: an IndexError when the model answered no text
    return f"summary of {topic!r}: {first}"


@app.tool()
async def greet(
    greeting: str, answer: Annotated[ElicitationResult[Name], Resolve(ask_name)]
) -> str:
    """Greet the user by the name they give."""
    if isinstance(answer, AcceptedElicitation):
        return f"{greeting}, {answer.data.name} ({answer.data.age})"
    return f"no name given ({answer.action})"


@app.tool()
async def workspace(roots: Annotated[ListRootsResult, Resolve(get_roots)]) -> list[str]:
    """The folders the client shares."""
    if not roots.roots:
        raise ValueError("the client shares no roots")
    uris = [str(root.uri) for root in roots.roots]
    if not all(uri.startswith("file://") for uri in uris):
        raise ValueError(f"roots must be file:// URIs: {uris}")
    return uris


@app.tool()
async def count_steps(steps: Annotated[int, Field(ge=1, le=4)], ctx: Context) -> str:
    """Count slowly, reporting progress after each step."""
    await ctx.info(f"counting {steps} steps")
    for step in range(1, steps + 1):
        await asyncio.sleep(0.4)
        await ctx.report_progress(step, steps, f"step {step}")
    return f"counted {steps} steps"


if __name__ == "__main__":
    app.run()
