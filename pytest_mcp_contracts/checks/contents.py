"""Check: what ``resources/read`` and ``prompts/get`` answer, and the resources a prompt or a
tool result embeds or links, as plain data.

The rules and their sources are in docs/prompts-resources.md ("What reads and gets
answer"): the members each protocol version's schema defines for ``ReadResourceResult``,
``TextResourceContents``/``BlobResourceContents``, ``GetPromptResult``, ``PromptMessage``,
the content blocks and ``Annotations``; base64 as RFC 4648 section 4 (what the TypeScript
SDK's clients accept through ``atob``); and a ``mimeType`` that the content does not
contradict where that can be told cheaply (JSON that parses, a binary format's magic bytes).

Every rule is bounded: at most ``MAX_ENTRIES_JUDGED`` contents entries or messages,
``MAX_BASE64_CHARS`` characters of one base64 string, ``MAX_JSON_CHARS`` of one JSON text.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from pytest_mcp_contracts.checks.failures import FailureKind, Finding
from pytest_mcp_contracts.checks.listed_entries import is_mime_type, resource_findings
from pytest_mcp_contracts.text import abridge, json_text, shown
from pytest_mcp_contracts.vocabulary import HANDSHAKE_VERSIONS, MODERN_VERSION, ClientProfile, Level

# The items' check names (the calls engineer adds them to vocabulary.Check as READ and GET).
READ: Final = "read"  # mcp:<server>::resource:<uri>::read, ::template:<t>::read
GET: Final = "get"  # mcp:<server>::prompt:<name>::get

MAX_ENTRIES_JUDGED: Final = 200  # contents entries of one read, messages of one prompt
MAX_FINDINGS_SHOWN: Final = 20  # of one result; the rest are counted
# Of one blob or image: the alphabet is checked over this many characters (the length and
# the padding over the whole string), and only the first SNIFF_CHARS are ever decoded.
MAX_BASE64_CHARS: Final = 1 << 20
SNIFF_CHARS: Final = 64  # 48 bytes: enough for every signature below
MAX_JSON_CHARS: Final = 4 << 20  # a longer JSON text is not parsed

_VERSIONS: Final = (*HANDSHAKE_VERSIONS, MODERN_VERSION)
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
_META_SINCE: Final = "2025-06-18"  # _meta on contents entries and content blocks
_LAST_MODIFIED_SINCE: Final = "2025-06-18"  # Annotations.lastModified

_BASE64_BAD: Final = re.compile(r"[^A-Za-z0-9+/]")
_SPACE: Final = re.compile(r"[\t\n\f\r ]")  # what atob strips (WHATWG forgiving-base64)


def _riff(form: bytes) -> Callable[[bytes], bool]:
    return lambda data: data[:4] == b"RIFF" and data[8:12] == form


def _starts(*prefixes: bytes) -> Callable[[bytes], bool]:
    return lambda data: data.startswith(prefixes)


# Magic bytes of the formats whose label is checked (each format's own specification: PNG
# section 5.2, JFIF/EXIF SOI marker, GIF87a/89a header, RIFF WEBP/WAVE, PDF 1.7 section 7.5.2,
# Ogg page "OggS", FLAC "fLaC", ZIP local file header, gzip RFC 1952), and the names the
# same format goes by.
_SIGNATURES: Final[dict[str, Callable[[bytes], bool]]] = {
    "image/png": _starts(b"\x89PNG\r\n\x1a\n"),
    "image/jpeg": _starts(b"\xff\xd8\xff"),
    "image/gif": _starts(b"GIF87a", b"GIF89a"),
    "image/webp": _riff(b"WEBP"),
    "application/pdf": _starts(b"%PDF-"),
    "audio/wav": _riff(b"WAVE"),
    "audio/ogg": _starts(b"OggS"),
    "audio/flac": _starts(b"fLaC"),
    "application/zip": _starts(b"PK\x03\x04", b"PK\x05\x06"),
    "application/gzip": _starts(b"\x1f\x8b"),
}
_ALIASES: Final = {
    "image/jpg": "image/jpeg",
    "image/pjpeg": "image/jpeg",
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "application/ogg": "audio/ogg",
    "audio/x-flac": "audio/flac",
    "application/x-pdf": "application/pdf",
    "application/x-zip-compressed": "application/zip",
    "application/x-gzip": "application/gzip",
}
# Types whose content is never text: text under one of them was mislabelled or mangled.
_BINARY_TOPS: Final = ("image", "audio", "video", "font")
_TEXT_IMAGES: Final = ("image/svg+xml",)  # XML: text under an image type
_BINARY_TYPES: Final = frozenset(
    {"application/octet-stream", "application/pdf", "application/zip", "application/gzip"}
)


def _defined(since: str, protocol_version: str | None) -> bool:
    """Whether a member introduced in ``since`` is defined at ``protocol_version`` (unknown
    or not given: the newest)."""
    if protocol_version not in _VERSIONS:
        return True
    return _VERSIONS.index(since) <= _VERSIONS.index(protocol_version)


def _quote(value: Any, limit: int = 80) -> str:
    """A value a server sent, quoted short without serializing a huge one whole."""
    if isinstance(value, str):
        return repr(shown(value[: limit * 2], limit))
    if isinstance(value, (list, dict)) and len(value) > 50:
        return f"<a JSON {'array' if isinstance(value, list) else 'object'} of {len(value)}>"
    return json_text(abridge(value, limit), limit)


def media_type(mime: str) -> str:
    """``mime`` without parameters, lower-cased, a known alias made its usual name."""
    bare = mime.split(";", 1)[0].strip().lower()
    return _ALIASES.get(bare, bare)


def is_json_type(mime: str) -> bool:
    """``application/json`` or a ``+json`` structured syntax suffix (RFC 6839 section 3.1)."""
    bare = media_type(mime)
    return bare == "application/json" or bare.endswith("+json")


def _is_binary_type(mime: str) -> bool:
    bare = media_type(mime)
    top = bare.split("/", 1)[0]
    return (top in _BINARY_TOPS and bare not in _TEXT_IMAGES) or bare in _BINARY_TYPES


def sniff(data: bytes) -> str | None:
    """The format ``data`` opens with, by its magic bytes, or None."""
    return next((name for name, test in _SIGNATURES.items() if test(data)), None)


@dataclass(frozen=True)
class Base64Problem:
    """What is wrong with a string that should be base64: an error a client refuses, or a
    warning for a form some clients accept and others do not."""

    level: Level
    message: str
    fix: str


def base64_problem(value: str) -> Base64Problem | None:
    """Whether ``value`` is base64 as RFC 4648 section 4 spells it (the standard alphabet,
    '=' padding). The TypeScript SDK's client checks blobs and image data with ``atob``
    (forgiving-base64: it strips whitespace, accepts missing padding, refuses anything else
    outside the alphabet, so the URL-safe '-' and '_' too); the Python SDK's client takes any
    string, but ``base64.b64decode`` refuses missing padding. The alphabet is checked over
    the first ``MAX_BASE64_CHARS`` characters only; the length and padding over all."""
    head = value[:MAX_BASE64_CHARS]
    spaced = _SPACE.search(head) is not None
    length = len(value)
    if spaced:
        length -= sum(value.count(c) for c in "\t\n\f\r ")
    tail = _SPACE.sub("", value[-8:])
    padding = len(tail) - len(tail.rstrip("="))
    body = _SPACE.sub("", head) if spaced else head
    if len(value) <= MAX_BASE64_CHARS:
        body = body[: len(body) - padding] if padding else body
    bad = _BASE64_BAD.search(body)
    standard = "encode it with the standard alphabet and '=' padding (Python: base64.b64encode)"
    if bad is not None:
        char = bad.group()
        if char in "-_":
            what = f"uses the URL-safe alphabet ({char!r} at offset {bad.start()})"
        elif char == "=":
            what = f"has '=' padding inside the data (offset {bad.start()})"
        else:
            what = f"has {shown(char)!r} at offset {bad.start()}, outside the base64 alphabet"
        return Base64Problem(Level.ERROR, what, standard)
    if padding > 2 or (padding and length % 4) or length % 4 == 1:
        return Base64Problem(
            Level.ERROR, f"has a length ({length} characters) no base64 string has", standard
        )
    if length % 4:
        return Base64Problem(
            Level.WARNING,
            "has no '=' padding: atob (TypeScript) accepts it, Python's base64.b64decode "
            "refuses it",
            standard,
        )
    if spaced:
        return Base64Problem(
            Level.WARNING,
            "is broken into lines (MIME style, RFC 2045): RFC 4648 base64 has no line breaks",
            "encode it without line breaks (Python: base64.b64encode, not encodebytes)",
        )
    return None


def _first_bytes(value: str) -> bytes:
    """The bytes the first ``SNIFF_CHARS`` characters of a valid base64 string decode to."""
    chunk = _SPACE.sub("", value[: SNIFF_CHARS * 2])[:SNIFF_CHARS]
    chunk = chunk.rstrip("=")
    chunk = chunk[: len(chunk) - len(chunk) % 4] if len(chunk) % 4 == 1 else chunk
    try:
        return base64.b64decode(chunk + "=" * (-len(chunk) % 4))
    except (binascii.Error, ValueError):
        return b""


def _binary_head(data: bytes) -> str | None:
    """What makes the first bytes of a blob binary rather than text, or None."""
    actual = sniff(data)
    if actual is not None:
        return f"its bytes are {actual}"
    if b"\0" in data:
        return "its bytes hold NUL"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        return "its bytes are not UTF-8"
    return None


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
class _Judge:
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
        """A finding of the listing checks (listed_entries), made this check's."""
        return replace(found, check=self.check, kind=FailureKind.MALFORMED_RESULT)

    def member_type(self, member: str, value: Any, json_type: str, at: str) -> Finding:
        return self.finding(
            f"{member!r} must be a JSON {json_type}: it is {_quote(value)}",
            rule="member-type",
            where=f"{at}.{member}",
            fix=f"send {member!r} as a JSON {json_type}, or leave it out",
        )

    def meta(self, holder: Mapping[str, Any], at: str) -> Iterator[Finding]:
        if (
            "_meta" in holder
            and _defined(_META_SINCE, self.protocol_version)
            and not isinstance(holder["_meta"], dict)
        ):
            yield self.member_type("_meta", holder["_meta"], "object", at)

    # -- resource contents ---------------------------------------------------------------

    def contents_entry(self, entry: Any, at: str, requested: str | None) -> Iterator[Finding]:
        """One ``TextResourceContents`` or ``BlobResourceContents``: of a read of
        ``requested``, or embedded in a content block (``requested`` None)."""
        if not isinstance(entry, dict):
            yield self.finding(
                f"the resource contents entry is not an object: {_quote(entry)}",
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
                f"the contents entry's URI {_quote(uri, 120)} is not an absolute URI (RFC 3986)",
                rule="resource-uri",
                where=f"{at}.uri",
                fix="send the resource's absolute URI, with a scheme, percent-encoded",
            )
            return
        if requested is not None and not is_sub_uri(uri, requested):
            yield self.finding(
                f"the contents entry's URI {_quote(uri, 120)} is neither the URI read, "
                f"{_quote(requested, 120)}, nor a sub-resource of it",
                rule="read-uri",
                where=f"{at}.uri",
                fix="give each entry the URI it was read by (for a template, the expanded "
                "URI, not the template), or the URI of a resource under it",
            )

    def _mime_form(self, mime: str, where: str) -> Iterator[Finding]:
        if not is_mime_type(mime):
            yield self.finding(
                f"the mimeType {_quote(mime, 60)} is not a MIME type of the form "
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
                details=(f"data: {_quote(value, 60)} ({len(value)} characters)",),
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
            binary = _binary_head(_first_bytes(value))
            if binary is not None:
                yield self.finding(
                    f"binary data ({binary}) is labelled {_quote(mime, 60)}, a text type",
                    rule="mime-content",
                    where=where,
                    fix="label the data with its own type (application/octet-stream when "
                    "unknown; in the Python SDK, mime_type= on the resource)",
                    level=Level.WARNING,
                )
            return
        test = _SIGNATURES.get(declared)
        if test is None:
            return
        data = _first_bytes(value)
        if test(data):
            return
        actual = sniff(data)
        if actual is not None:
            yield self.finding(
                f"the data is labelled {_quote(mime, 60)} but its bytes are {actual}",
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
                f"the data is labelled {_quote(mime, 60)} but does not start with the "
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
            problem = _json_problem(text)
            if problem is not None:
                yield self.finding(
                    f"the text is labelled {_quote(mime, 60)} but is not JSON: {problem}",
                    rule="mime-mismatch",
                    where=f"{at}.text",
                    fix="serialize the value with a JSON encoder (json.dumps, "
                    "JSON.stringify), or label the text text/plain",
                    details=(f"text: {_quote(text, 120)}",),
                )
        elif _is_binary_type(mime):
            yield self.finding(
                f"text is labelled {_quote(mime, 60)}, a binary type",
                rule="mime-content",
                where=f"{at}.text",
                fix="send binary data base64-encoded as 'blob'; if this is text, label it "
                "with a text type",
                level=Level.WARNING,
                details=(f"text: {_quote(text, 120)}",),
            )

    # -- content blocks ------------------------------------------------------------------

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
                f"{_quote(audience)}",
                rule="annotations",
                where=f"{at}.audience",
                fix="list the roles the content is for: 'user', 'assistant' or both",
            )
        priority = notes.get("priority", 0)
        number = isinstance(priority, (int, float)) and not isinstance(priority, bool)
        if not number or not 0 <= priority <= 1:
            yield self.finding(
                f"annotations.priority must be a number from 0 to 1: it is {_quote(priority)}",
                rule="annotations",
                where=f"{at}.priority",
                fix="send a number from 0 (entirely optional) to 1 (effectively required)",
            )
        if "lastModified" in notes and _defined(_LAST_MODIFIED_SINCE, self.protocol_version):
            yield from self._last_modified(notes["lastModified"], at)

    def _last_modified(self, value: Any, at: str) -> Iterator[Finding]:
        if not isinstance(value, str):
            yield self.finding(
                f"annotations.lastModified must be a string: it is {_quote(value)}",
                rule="annotations",
                where=f"{at}.lastModified",
                fix="send an ISO 8601 timestamp such as 2025-01-12T15:00:58Z",
            )
            return
        try:
            datetime.fromisoformat(value[:64])
        except ValueError:
            yield self.finding(
                f"annotations.lastModified {_quote(value, 60)} is not an ISO 8601 timestamp",
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
                f"the content is not a content block (an object): {_quote(block)}",
                rule="content-block",
                where=at,
                fix="send content as an object such as {'type': 'text', 'text': ...}",
            )
            return
        kind = block.get("type")
        if not isinstance(kind, str):
            yield self.finding(
                f"the content block has no string 'type': {_quote(block)}",
                rule="content-block",
                where=f"{at}.type",
                fix="give the block its type: 'text', 'image', 'audio', 'resource' or "
                "'resource_link'",
            )
            return
        since = _BLOCK_SINCE.get(kind)
        if since is None:
            return  # a type of a newer revision, or an extension: tool results leave them too
        if not _defined(since, self.protocol_version):
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
                f"the {kind} block's mimeType {_quote(mime, 60)} is not an {kind}/* type",
                rule="mime-type",
                where=where,
                fix=f"label the data with its {kind} type, e.g. "
                + ("image/png" if kind == "image" else "audio/wav"),
                level=Level.WARNING,
            )


def _json_problem(text: str) -> str | None:
    """Why ``text`` is not JSON (RFC 8259: no NaN or Infinity), or None; a text over
    ``MAX_JSON_CHARS`` is not parsed."""
    if len(text) > MAX_JSON_CHARS:
        return None

    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    try:
        json.loads(text, parse_constant=refuse)
    except json.JSONDecodeError as exc:
        return f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    except ValueError as exc:
        return str(exc)
    except RecursionError:
        return None  # nested deeper than Python parses: not proof that it is not JSON
    return None


def _bounded(findings: list[Finding], total: int, noun: str) -> list[Finding]:
    """At most ``MAX_FINDINGS_SHOWN`` findings; the first says, once, how many entries
    were left unjudged and how many findings unshown."""
    more = []
    if total > MAX_ENTRIES_JUDGED:
        more.append(
            f"only the first {MAX_ENTRIES_JUDGED} of {total} {noun} were judged "
            f"({total - MAX_ENTRIES_JUDGED} more)"
        )
    if len(findings) > MAX_FINDINGS_SHOWN:
        more.append(f"{len(findings) - MAX_FINDINGS_SHOWN} more findings are not shown")
        findings = findings[:MAX_FINDINGS_SHOWN]
    if findings and more:
        first = findings[0]
        findings[0] = replace(first, details=(*first.details, *more))
    return findings


def check_read_result(
    result: Mapping[str, Any], uri: str, *, protocol_version: str
) -> list[Finding]:
    """What ``resources/read`` of ``uri`` answered (a ``ReadResourceResult``)."""
    judge = _Judge(READ, protocol_version)
    contents = result.get("contents") if isinstance(result, Mapping) else None
    if not isinstance(contents, list):
        return [
            judge.finding(
                "the result is not a ReadResourceResult: 'contents' must be an array, got "
                + _quote(contents),
                rule="read-result",
                where="contents",
                fix="answer resources/read with {'contents': [{'uri': ..., 'text' or "
                "'blob': ...}]}, or with a JSON-RPC error (-32002) when the resource is not "
                "found",
            )
        ]
    if not contents:
        return [
            judge.finding(
                "the read returned no contents: a client that reads the resource gets nothing",
                rule="empty-result",
                where="contents",
                fix="return the resource's contents (an empty text is {'uri': ..., 'text': "
                "''}), or a JSON-RPC error (-32002) when the resource is not found",
                level=Level.WARNING,
            )
        ]
    findings = list(judge.meta(result, "$"))
    for index, entry in enumerate(contents[:MAX_ENTRIES_JUDGED]):
        findings += judge.contents_entry(entry, f"contents[{index}]", uri)
    return _bounded(findings, len(contents), "contents entries")


def check_prompt_result(result: Mapping[str, Any], *, protocol_version: str) -> list[Finding]:
    """What ``prompts/get`` answered (a ``GetPromptResult``)."""
    judge = _Judge(GET, protocol_version)
    messages = result.get("messages") if isinstance(result, Mapping) else None
    if not isinstance(messages, list):
        return [
            judge.finding(
                "the result is not a GetPromptResult: 'messages' must be an array, got "
                + _quote(messages),
                rule="prompt-result",
                where="messages",
                fix="answer prompts/get with {'messages': [{'role': 'user', 'content': "
                "{'type': 'text', 'text': ...}}]}",
            )
        ]
    findings = []
    if "description" in result and not isinstance(result["description"], str):
        findings.append(judge.member_type("description", result["description"], "string", "$"))
    findings += judge.meta(result, "$")
    if not messages:
        findings.append(
            judge.finding(
                "the prompt has no messages: a client that uses it inserts nothing",
                rule="empty-result",
                where="messages",
                fix="return at least one message, or refuse the arguments with a JSON-RPC "
                "error (-32602)",
                level=Level.WARNING,
            )
        )
    for index, message in enumerate(messages[:MAX_ENTRIES_JUDGED]):
        findings += _message_findings(judge, message, f"messages[{index}]")
    return _bounded(findings, len(messages), "messages")


def _message_findings(judge: _Judge, message: Any, at: str) -> Iterator[Finding]:
    if not isinstance(message, dict):
        yield judge.finding(
            f"the message is not a PromptMessage (an object): {_quote(message)}",
            rule="prompt-message",
            where=at,
            fix="send each message as {'role': 'user' or 'assistant', 'content': {...}}",
        )
        return
    role = message.get("role")
    if role not in ROLES:
        yield judge.finding(
            f"the message's role is {_quote(role)}: a prompt message is from 'user' or "
            "'assistant'"
            + (
                " (the spec has no system role; put instructions in a user message)"
                if role == "system"
                else ""
            ),
            rule="prompt-role",
            where=f"{at}.role",
            fix="set role to 'user' or 'assistant'",
        )
    if "content" not in message:
        yield judge.finding(
            "the message has no 'content', which the spec requires",
            rule="required-member",
            where=f"{at}.content",
            fix="give each message one content block, e.g. {'type': 'text', 'text': ...}",
        )
    else:
        yield from judge.block(message["content"], f"{at}.content")


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
    return list(_Judge(check, protocol_version).embedded(block, where))
