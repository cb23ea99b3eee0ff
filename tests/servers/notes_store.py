"""A Python-SDK (`MCPServer`) notes store whose lookups and updates take ids only its create
tool makes, with one bug that only the sequence create -> update -> read reaches.

- `create_note(title, body)`: stores a note, returns it with its new `note_id` (a hash of a
  counter: deterministic from a fresh start, never guessed by a generator);
- `update_note(note_id, body)`: replaces the body; unknown ids are refused (ToolError);
- `read_note(note_id)`: the note with its word count; unknown ids are refused;
- `list_notes()`: the ids and titles of every note;
- `delete_note(note_id)`: declares destructiveHint: true, so the default call policy never
  calls it.

The bug (MCP_FIXTURE_BUGS unset or "1"): `update_note` drops the stored word count, so
`read_note` of an updated note raises KeyError, which the SDK wraps into isError. With
MCP_FIXTURE_BUGS=0 the update recounts the words.
"""

import hashlib
import itertools
import os

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"

app = MCPServer("notes-store")
notes: dict[str, dict[str, object]] = {}
counter = itertools.count(1)


class Note(BaseModel):
    note_id: str
    title: str
    body: str
    words: int


class Listing(BaseModel):
    notes: list[dict[str, str]]


def _found(note_id: str) -> dict[str, object]:
    if note_id not in notes:
        raise ToolError(f"note not found: {note_id!r}")
    return notes[note_id]


@app.tool(annotations=ToolAnnotations(destructiveHint=False))
def create_note(title: str, body: str) -> Note:
    """Store a new note; returns it with its id."""
    note_id = "n-" + hashlib.sha256(str(next(counter)).encode()).hexdigest()[:10]
    notes[note_id] = {"note_id": note_id, "title": title, "body": body, "words": len(body.split())}
    return Note.model_validate(notes[note_id])


@app.tool(annotations=ToolAnnotations(destructiveHint=False, idempotentHint=True))
def update_note(note_id: str, body: str) -> str:
    """Replace a note's body."""
    note = _found(note_id)
    note["body"] = body
    if BUGS:
        note.pop("words", None)  # the bug: the word count is dropped instead of recounted
    else:
        note["words"] = len(body.split())
    return "updated"


@app.tool(annotations=ToolAnnotations(readOnlyHint=True))
def read_note(note_id: str) -> Note:
    """One note, with its word count."""
    note = _found(note_id)
    return Note(
        note_id=note_id,
        title=str(note["title"]),
        body=str(note["body"]),
        words=int(note["words"]),  # type: ignore[call-overload]
    )


@app.tool(annotations=ToolAnnotations(readOnlyHint=True))
def list_notes() -> Listing:
    """The id and title of every note."""
    return Listing(notes=[{"note_id": k, "title": str(v["title"])} for k, v in notes.items()])


@app.tool(annotations=ToolAnnotations(destructiveHint=True))
def delete_note(note_id: str) -> str:
    """Delete a note for good."""
    _found(note_id)
    del notes[note_id]
    return "deleted"


if __name__ == "__main__":
    app.run()
