"""The judge of what a server sends as plain data, and of resource contents entries: a
``TextResourceContents`` or ``BlobResourceContents`` of a read, or embedded in a content block
(its ``uri``, the URI read or a sub-resource of it; ``text`` or ``blob``; a ``mimeType`` its
data does not contradict, told by ``judges/media``).

The members each protocol version's schema defines are in docs/prompts-resources.md ("What
reads and gets answer"); ``ContentsJudge`` makes the findings of one item's check at one
version, and ``judges/content_blocks`` extends it to content blocks.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from pytest_mcp_contracts.judges.content_listing import is_mime_type
from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.judges.media import (
    SIGNATURES,
    base64_problem,
    binary_head,
    first_bytes,
    is_binary_type,
    is_json_type,
    json_problem,
    media_type,
    sniff,
)
from pytest_mcp_contracts.text import abridge, json_text, shown
from pytest_mcp_contracts.vocabulary import HANDSHAKE_VERSIONS, MODERN_VERSION, ClientProfile, Level

_VERSIONS: Final = (*HANDSHAKE_VERSIONS, MODERN_VERSION)
_META_SINCE: Final = "2025-06-18"  # _meta on contents entries and content blocks


def is_defined(since: str, protocol_version: str | None) -> bool:
    """Whether a member introduced in ``since`` is defined at ``protocol_version`` (unknown
    or not given: the newest)."""
    if protocol_version not in _VERSIONS:
        return True
    return _VERSIONS.index(since) <= _VERSIONS.index(protocol_version)


def quoted(value: Any, limit: int = 80) -> str:
    """A value a server sent, quoted short without serializing a huge one whole."""
    if isinstance(value, str):
        return repr(shown(value[: limit * 2], limit))
    if isinstance(value, (list, dict)) and len(value) > 50:
        return f"<a JSON {'array' if isinstance(value, list) else 'object'} of {len(value)}>"
    return json_text(abridge(value, limit), limit)


def _is_uri(value: str) -> bool:
    from rfc3986_validator import validate_rfc3986

    return bool(validate_rfc3986(value, rule="URI"))


def _normal(uri: str) -> tuple[str, str, str, str]:
    """A URI compared as clients and SDKs rewrite it: scheme and host case, percent-escapes,
    and an empty path after an authority, which URL parsers (pydantic's ``AnyUrl``) turn
    into '/'."""
    parts = urlsplit(uri)
    path = unquote(parts.path)
    if parts.netloc and not path:
        path = "/"
    rest = unquote(parts.query) + ("#" + unquote(parts.fragment) if parts.fragment else "")
    return parts.scheme.lower(), parts.netloc.lower(), path, rest


def is_sub_uri(uri: str, requested: str) -> bool:
    """Whether a contents entry's ``uri`` is the requested one or a sub-resource of it.

    The schema says no more than "The contents of a specific resource or sub-resource" (the
    description of ``ResourceContents`` in every version); we read "sub-resource" as URIs
    do (RFC 3986 section 3.3, hierarchical paths): the same scheme and authority, and a path
    under the requested one at a segment boundary (``file:///dir`` holds
    ``file:///dir/a.txt``, not ``file:///dir2``), or the same path with a query or a
    fragment the request did not have (``doc://x#part``)."""
    if uri == requested:
        return True
    try:
        scheme, authority, path, rest = _normal(uri)
        want_scheme, want_authority, want_path, want_rest = _normal(requested)
    except ValueError:
        return False
    if (scheme, authority) != (want_scheme, want_authority):
        return False
    if path == want_path:
        return rest == want_rest or not want_rest
    under = want_path if want_path.endswith("/") else want_path + "/"
    return not want_rest and path.startswith(under)


@dataclass(frozen=True)
class ContentsJudge:
    """The findings of one item's check (``read``, ``get``, ``contract``) at one version."""

    check: str
    protocol_version: str | None

    def finding(
        self,
        message: str,
        *,
        rule: str,
        where: str,
        fix: str,
        level: Level = Level.ERROR,
        details: tuple[str, ...] = (),
    ) -> Finding:
        return Finding(
            self.check,
            message,
            level,
            details,
            kind=FailureKind.MALFORMED_RESULT,
            rule=f"{ClientProfile.MCP}/{rule}",
            client=str(ClientProfile.MCP),
            where=where,
            fix=fix,
        )

    def adopted(self, found: Finding) -> Finding:
        """A finding of the listing checks (judges/content_listing), made this check's."""
        return replace(found, check=self.check, kind=FailureKind.MALFORMED_RESULT)

    def member_type(self, member: str, value: Any, json_type: str, at: str) -> Finding:
        return self.finding(
            f"{member!r} must be a JSON {json_type}: it is {quoted(value)}",
            rule="member-type",
            where=f"{at}.{member}",
            fix=f"send {member!r} as a JSON {json_type}, or leave it out",
        )

    def meta(self, holder: Mapping[str, Any], at: str) -> Iterator[Finding]:
        if (
            "_meta" in holder
            and is_defined(_META_SINCE, self.protocol_version)
            and not isinstance(holder["_meta"], dict)
        ):
            yield self.member_type("_meta", holder["_meta"], "object", at)

    # -- resource contents ---------------------------------------------------------------

    def contents_entry(self, entry: Any, at: str, requested: str | None) -> Iterator[Finding]:
        """One ``TextResourceContents`` or ``BlobResourceContents``: of a read of
        ``requested``, or embedded in a content block (``requested`` None)."""
        if not isinstance(entry, dict):
            yield self.finding(
                f"the resource contents entry is not an object: {quoted(entry)}",
                rule="contents-entry",
                where=at,
                fix="send each entry as an object with 'uri' and either 'text' or 'blob'",
            )
            return
        yield from self._entry_uri(entry, at, requested)
        has_text, has_blob = "text" in entry, "blob" in entry
        if has_text == has_blob:
            yield self.finding(
                "the resource contents entry has "
                + ("both 'text' and 'blob'" if has_text else "neither 'text' nor 'blob'")
                + ": it must be a TextResourceContents or a BlobResourceContents",
                rule="contents-entry",
                where=at,
                fix="send text as 'text', binary data base64-encoded as 'blob', and only one",
            )
        for member in ("text", "blob", "mimeType"):
            if member in entry and not isinstance(entry[member], str):
                yield self.member_type(member, entry[member], "string", at)
        yield from self.meta(entry, at)
        if isinstance(entry.get("mimeType"), str):
            yield from self._mime_form(entry["mimeType"], f"{at}.mimeType")
        if has_text == has_blob:
            return
        if isinstance(entry.get("blob"), str):
            yield from self._base64(entry["blob"], f"{at}.blob", entry.get("mimeType"))
        if isinstance(entry.get("text"), str) and isinstance(entry.get("mimeType"), str):
            yield from self._text_under(entry["mimeType"], entry["text"], at)

    def _entry_uri(
        self, entry: dict[str, Any], at: str, requested: str | None
    ) -> Iterator[Finding]:
        uri = entry.get("uri")
        if "uri" not in entry:
            yield self.finding(
                "the resource contents entry has no 'uri', which the spec requires",
                rule="required-member",
                where=f"{at}.uri",
                fix="give every contents entry the URI of the resource it holds",
            )
            return
        if not isinstance(uri, str):
            yield self.member_type("uri", uri, "string", at)
            return
        if uri == requested:
            return  # a listed URI that is no URI fails its schema item, not its read as well
        if not _is_uri(uri):
            yield self.finding(
                f"the contents entry's URI {quoted(uri, 120)} is not an absolute URI (RFC 3986)",
                rule="resource-uri",
                where=f"{at}.uri",
                fix="send the resource's absolute URI, with a scheme, percent-encoded",
            )
            return
        if requested is not None and not is_sub_uri(uri, requested):
            yield self.finding(
                f"the contents entry's URI {quoted(uri, 120)} is neither the URI read, "
                f"{quoted(requested, 120)}, nor a sub-resource of it",
                rule="read-uri",
                where=f"{at}.uri",
                fix="give each entry the URI it was read by (for a template, the expanded "
                "URI, not the template), or the URI of a resource under it",
            )

    def _mime_form(self, mime: str, where: str) -> Iterator[Finding]:
        if not is_mime_type(mime):
            yield self.finding(
                f"the mimeType {quoted(mime, 60)} is not a MIME type of the form "
                "type/subtype (RFC 6838)",
                rule="mime-type",
                where=where,
                fix="use a registered type such as text/plain or application/json, or "
                "leave mimeType out when it is not known",
                level=Level.WARNING,
            )

    def _base64(self, value: str, where: str, mime: Any) -> Iterator[Finding]:
        """A blob or an image's or audio's data: base64, and bytes its mimeType allows."""
        problem = base64_problem(value)
        if problem is not None:
            yield self.finding(
                f"the base64 data {problem.message}",
                rule="blob-base64" if problem.level is Level.ERROR else "base64-form",
                where=where,
                fix=problem.fix,
                level=problem.level,
                details=(f"data: {quoted(value, 60)} ({len(value)} characters)",),
            )
            if problem.level is Level.ERROR:
                return
        if not isinstance(mime, str) or not is_mime_type(mime):
            return
        declared = media_type(mime)
        if declared.startswith("text/"):
            # Text may travel as a blob (server-everything's blob resources are UTF-8 text
            # labelled text/plain); bytes that are no text under a text type are mislabelled
            # (the Python SDK labels a resource that returns bytes text/plain by default).
            binary = binary_head(first_bytes(value))
            if binary is not None:
                yield self.finding(
                    f"binary data ({binary}) is labelled {quoted(mime, 60)}, a text type",
                    rule="mime-content",
                    where=where,
                    fix="label the data with its own type (application/octet-stream when "
                    "unknown; in the Python SDK, mime_type= on the resource)",
                    level=Level.WARNING,
                )
            return
        test = SIGNATURES.get(declared)
        if test is None:
            return
        data = first_bytes(value)
        if test(data):
            return
        actual = sniff(data)
        if actual is not None:
            yield self.finding(
                f"the data is labelled {quoted(mime, 60)} but its bytes are {actual}",
                rule="mime-mismatch",
                where=where,
                fix=f"label it {actual}, or send the {declared} the label promises",
                details=(
                    "a client hands the label on with the bytes; a model API that checks "
                    "them refuses the image or file (the Anthropic API: 'Image does not "
                    "match the provided media type')",
                ),
            )
        else:
            yield self.finding(
                f"the data is labelled {quoted(mime, 60)} but does not start with the "
                f"magic bytes of {declared} (its first bytes: "
                f"{data[:12]!r})",
                rule="mime-content",
                where=where,
                fix=f"send the whole {declared} file, base64-encoded, or label the data "
                "with its real type",
                level=Level.WARNING,
            )

    def _text_under(self, mime: str, text: str, at: str) -> Iterator[Finding]:
        if not is_mime_type(mime):
            return
        if is_json_type(mime):
            problem = json_problem(text)
            if problem is not None:
                yield self.finding(
                    f"the text is labelled {quoted(mime, 60)} but is not JSON: {problem}",
                    rule="mime-mismatch",
                    where=f"{at}.text",
                    fix="serialize the value with a JSON encoder (json.dumps, "
                    "JSON.stringify), or label the text text/plain",
                    details=(f"text: {quoted(text, 120)}",),
                )
        elif is_binary_type(mime):
            yield self.finding(
                f"text is labelled {quoted(mime, 60)}, a binary type",
                rule="mime-content",
                where=f"{at}.text",
                fix="send binary data base64-encoded as 'blob'; if this is text, label it "
                "with a text type",
                level=Level.WARNING,
                details=(f"text: {quoted(text, 120)}",),
            )
