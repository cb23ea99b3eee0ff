"""A 2025-11-25 server with tasks: `research` declares `execution.taskSupport: "required"`,
so a client must call it as a task, and it refuses any other call with -32601 as the spec
says; `echo` answers plain calls. A client that makes no task-augmented calls must leave
`research` uncalled, and say so, rather than count 50 refusals.
"""

from _legacy import RpcError, serve, text_result

OBJECT = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}
TOOLS = [
    {
        "name": "research",
        "description": "Research a topic (a long-running task).",
        "inputSchema": OBJECT,
        "execution": {"taskSupport": "required"},
    },
    {"name": "echo", "description": "Say the topic back.", "inputSchema": OBJECT},
]


def call(name, arguments):
    if name == "research":
        raise RpcError(-32601, "Tool research requires task augmentation")
    return text_result(arguments["topic"])


if __name__ == "__main__":
    serve(
        "task-only",
        TOOLS,
        call,
        capabilities={"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}},
    )
