"""Two prompts answered as the standalone fastmcp 4.2.3 answers them, bytes copied from its
stdio server (fastmcp is not a dependency here, so this is a raw server):

- `summarize_text` without its required `text`: fastmcp's own check refuses it with -32602
  "Missing required arguments: {'text'}" and logs that ValidationError's traceback, boxed
  by rich at 80 columns, at warning level (fastmcp/server/server.py, render_prompt). A
  refusal: the get item passes.
- `explain_error` without its required `error_message` crashes in the prompt's own code
  (a KeyError): -32603 "Error rendering prompt 'explain_error': 'error_message'", fastmcp's
  PromptError wording, with its traceback. A crash: the get item fails, and the replay on a
  fresh server fails the same way.

With every required argument present both answer one user message.
"""

import sys

from _legacy import RpcError, serve, text_result

PROMPTS = [
    {
        "name": "summarize_text",
        "description": "Ask the model to summarize a chunk of text in a chosen style.",
        "arguments": [{"name": "text", "required": True}, {"name": "style", "required": False}],
    },
    {
        "name": "explain_error",
        "description": "Ask the model to explain an error message and suggest fixes.",
        "arguments": [
            {"name": "error_message", "required": True},
            {"name": "context", "required": False},
        ],
    },
]
# {box} is the indent rich gives every line after the first (its time column).
TRACEBACK = (
    "[11/27/26 11:54:29] Error rendering prompt '{name}'\n"
    "{box}╭─────────── Traceback (most recent call last) ────────────╮\n"
    "{box}│ /srv/venv/lib/python3.11/site-packages/fastmcp/server/se │\n"
    "{box}│ rver.py:1917 in render_prompt                            │\n"
    "{box}│                                                          │\n"
    "{box}│ /srv/venv/lib/python3.11/site-packages/fastmcp/prompts/f │\n"
    "{box}│ unction_prompt.py:{line} in render                           │\n"
    "{box}╰──────────────────────────────────────────────────────────╯\n"
    "{box}{exception}\n"
)


def logged(name, line, exception):
    sys.stderr.write(TRACEBACK.format(box=" " * 20, name=name, line=line, exception=exception))
    sys.stderr.flush()


def get_prompt(params):
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name == "summarize_text":
        if "text" not in arguments:
            logged(name, 344, "ValidationError: Missing required arguments: {'text'}")
            raise RpcError(-32602, "Missing required arguments: {'text'}")
        text = f"Summarize this ({arguments.get('style', 'concise')}):\n{arguments['text']}"
    elif name == "explain_error":
        if "error_message" not in arguments:
            logged(name, 361, "KeyError: 'error_message'")
            raise RpcError(-32603, "Error rendering prompt 'explain_error': 'error_message'")
        text = f"Explain this error:\n{arguments['error_message']}"
    else:
        raise RpcError(-32602, f"Unknown prompt: {name!r}")
    message = text_result(text)["content"][0]
    return {"messages": [{"role": "user", "content": message}]}


serve(
    "fastmcp-prompts",
    [{"name": "ping", "inputSchema": {"type": "object", "properties": {}}}],
    lambda name, args: text_result("pong"),
    capabilities={"tools": {}, "prompts": {}},
    handlers={"prompts/list": lambda params: {"prompts": PROMPTS}, "prompts/get": get_prompt},
)
