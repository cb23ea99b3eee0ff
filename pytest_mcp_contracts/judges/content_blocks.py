"""The judge of content blocks: a prompt message's content (a type the protocol version
defines, its required members, base64 data with a plausible ``mimeType``), embedded resources
and resource links (in prompt messages and in tool results alike), and ``annotations``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any, Final

from pytest_mcp_contracts.judges.content_listing import is_mime_type, resource_findings
from pytest_mcp_contracts.judges.failures import Finding
from pytest_mcp_contracts.judges.media import media_type
from pytest_mcp_contracts.judges.resource_contents import ContentsJudge, is_defined, quoted
from pytest_mcp_contracts.vocabulary import MODERN_VERSION, Level

ROLES: Final = ("user", "assistant")

# The string members each content block type requires (TextContent, ImageContent,
# AudioContent in every version's schema that has them); result.py checks tool results'
# blocks with the same table. The resource blocks are judged by check_embedded_resource.
BLOCK_FIELDS: Final = {
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
}
# The first protocol version whose schema has each content block type (PromptMessage's
# content: TextContent | ImageContent | EmbeddedResource in 2024-11-05, AudioContent from
# 2025-03-26, ContentBlock with ResourceLink from 2025-06-18).
_BLOCK_SINCE: Final = {
    "text": "2024-11-05",
    "image": "2024-11-05",
    "resource": "2024-11-05",
    "audio": "2025-03-26",
    "resource_link": "2025-06-18",
}
_LAST_MODIFIED_SINCE: Final = "2025-06-18"  # Annotations.lastModified


class BlockJudge(ContentsJudge):
    """``ContentsJudge`` with the judging of content blocks and what they embed or link."""

    def annotations(self, block: Mapping[str, Any], at: str) -> Iterator[Finding]:
        """``annotations`` (Annotated in 2024-11-05, Annotations after): audience roles,
        priority 0..1, lastModified an ISO 8601 string (from 2025-06-18)."""
        if "annotations" not in block:
            return
        notes = block["annotations"]
        if not isinstance(notes, dict):
            yield self.member_type("annotations", notes, "object", at)
            return
        at = f"{at}.annotations"
        audience = notes.get("audience", [])
        if not isinstance(audience, list) or any(role not in ROLES for role in audience[:50]):
            yield self.finding(
                f"annotations.audience must be an array of 'user' and 'assistant': it is "
                f"{quoted(audience)}",
                rule="annotations",
                where=f"{at}.audience",
                fix="list the roles the content is for: 'user', 'assistant' or both",
            )
        priority = notes.get("priority", 0)
        number = isinstance(priority, (int, float)) and not isinstance(priority, bool)
        if not number or not 0 <= priority <= 1:
            yield self.finding(
                f"annotations.priority must be a number from 0 to 1: it is {quoted(priority)}",
                rule="annotations",
                where=f"{at}.priority",
                fix="send a number from 0 (entirely optional) to 1 (effectively required)",
            )
        if "lastModified" in notes and is_defined(_LAST_MODIFIED_SINCE, self.protocol_version):
            yield from self._last_modified(notes["lastModified"], at)

    def _last_modified(self, value: Any, at: str) -> Iterator[Finding]:
        if not isinstance(value, str):
            yield self.finding(
                f"annotations.lastModified must be a string: it is {quoted(value)}",
                rule="annotations",
                where=f"{at}.lastModified",
                fix="send an ISO 8601 timestamp such as 2025-01-12T15:00:58Z",
            )
            return
        try:
            datetime.fromisoformat(value[:64])
        except ValueError:
            yield self.finding(
                f"annotations.lastModified {quoted(value, 60)} is not an ISO 8601 timestamp",
                rule="last-modified",
                where=f"{at}.lastModified",
                fix="send an ISO 8601 timestamp such as 2025-01-12T15:00:58Z",
                level=Level.WARNING,
            )

    def embedded(self, block: Mapping[str, Any], at: str) -> Iterator[Finding]:
        """A ``resource`` block's resource (an embedded ``ResourceContents``) or a
        ``resource_link`` block (a ``Resource``), with its annotations and ``_meta``."""
        kind = block.get("type")
        if kind == "resource_link":
            version = self.protocol_version or MODERN_VERSION
            for found in resource_findings(block, protocol_version=version, at=at):
                yield self.adopted(found)
        elif kind == "resource":
            resource = block.get("resource")
            if resource is None:
                yield self.finding(
                    "the 'resource' block has no 'resource', which the spec requires",
                    rule="required-member",
                    where=f"{at}.resource",
                    fix="embed the resource's contents: {'uri': ..., 'mimeType': ..., "
                    "'text' or 'blob': ...}",
                )
            else:
                yield from self.contents_entry(resource, f"{at}.resource", None)
                if isinstance(resource, dict) and "mimeType" not in resource:
                    yield self.finding(
                        "the embedded resource has no mimeType",
                        rule="embedded-mime",
                        where=f"{at}.resource",
                        fix="say the resource's MIME type, e.g. text/plain",
                        level=Level.WARNING,
                        details=(
                            "spec, Prompts: embedded resources MUST include the appropriate "
                            "MIME type (the schema leaves it optional)",
                        ),
                    )
        else:
            return
        yield from self.annotations(block, at)
        yield from self.meta(block, at)

    def block(self, block: Any, at: str) -> Iterator[Finding]:
        """One content block of a prompt message: a type the version defines, its required
        members, base64 data with a plausible mimeType, embedded or linked resources."""
        if not isinstance(block, dict):
            yield self.finding(
                f"the content is not a content block (an object): {quoted(block)}",
                rule="content-block",
                where=at,
                fix="send content as an object such as {'type': 'text', 'text': ...}",
            )
            return
        kind = block.get("type")
        if not isinstance(kind, str):
            yield self.finding(
                f"the content block has no string 'type': {quoted(block)}",
                rule="content-block",
                where=f"{at}.type",
                fix="give the block its type: 'text', 'image', 'audio', 'resource' or "
                "'resource_link'",
            )
            return
        since = _BLOCK_SINCE.get(kind)
        if since is None:
            return  # a type of a newer revision, or an extension: tool results leave them too
        if not is_defined(since, self.protocol_version):
            yield self.finding(
                f"a {kind!r} content block under protocol {self.protocol_version}, which "
                f"has none (its schema has them from {since})",
                rule="content-block",
                where=f"{at}.type",
                fix=f"send {kind} content only to clients that negotiated {since} or later",
            )
            return
        if kind in ("resource", "resource_link"):
            yield from self.embedded(block, at)
            return
        for member in BLOCK_FIELDS[kind]:
            if not isinstance(block.get(member), str):
                yield self.finding(
                    f"the {kind!r} block has no string {member!r}, which the spec requires",
                    rule="content-block",
                    where=f"{at}.{member}",
                    fix=f"give every {kind} block a string {member!r}",
                )
        if kind != "text" and isinstance(block.get("data"), str):
            mime = block.get("mimeType")
            fits = isinstance(mime, str) and media_type(mime).split("/", 1)[0] == kind
            if isinstance(mime, str) and not fits:
                yield from self._media_mime(kind, mime, f"{at}.mimeType")
            # A label of another kind is said once, above: its bytes are not judged by it.
            yield from self._base64(block["data"], f"{at}.data", mime if fits else None)
        yield from self.annotations(block, at)
        yield from self.meta(block, at)

    def _media_mime(self, kind: str, mime: str, where: str) -> Iterator[Finding]:
        """An image's or audio's mimeType that is not of its kind: "a valid MIME type"
        (spec, Prompts) it is not."""
        if not is_mime_type(mime):
            yield from self._mime_form(mime, where)
        else:
            yield self.finding(
                f"the {kind} block's mimeType {quoted(mime, 60)} is not an {kind}/* type",
                rule="mime-type",
                where=where,
                fix=f"label the data with its {kind} type, e.g. "
                + ("image/png" if kind == "image" else "audio/wav"),
                level=Level.WARNING,
            )


def check_embedded_resource(
    block: Mapping[str, Any],
    where: str,
    *,
    check: str = "contract",
    protocol_version: str | None = None,
) -> list[Finding]:
    """A ``resource`` content block (an embedded resource: its ``resource`` a valid
    contents entry, judged as a read's entries are) or a ``resource_link`` block (a
    ``Resource``: uri absolute, name present) at ``where`` of a prompt message or a tool
    result; any other block: nothing. ``check`` names the item (``contract`` for a tool
    result); without ``protocol_version``, the newest schema."""
    return list(BlockJudge(check, protocol_version).embedded(block, where))
