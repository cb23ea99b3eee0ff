"""What data is, told cheaply: a MIME type's bare name and kind, the format bytes open with
(magic bytes), whether a string is base64 as RFC 4648 section 4 spells it, and whether a text
is JSON. The content judges (``judges/resource_contents``, ``judges/content_blocks``) hold a
label against its data with these.

Every test is bounded: ``MAX_BASE64_CHARS`` characters of one base64 string, ``SNIFF_CHARS``
decoded, ``MAX_JSON_CHARS`` of one JSON text.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contracts.text import shown
from pytest_mcp_contracts.vocabulary import Level

# Of one blob or image: the alphabet is checked over this many characters (the length and
# the padding over the whole string), and only the first SNIFF_CHARS are ever decoded.
MAX_BASE64_CHARS: Final = 1 << 20
SNIFF_CHARS: Final = 64  # 48 bytes: enough for every signature below
MAX_JSON_CHARS: Final = 4 << 20  # a longer JSON text is not parsed

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
SIGNATURES: Final[dict[str, Callable[[bytes], bool]]] = {
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


def media_type(mime: str) -> str:
    """``mime`` without parameters, lower-cased, a known alias made its usual name."""
    bare = mime.split(";", 1)[0].strip().lower()
    return _ALIASES.get(bare, bare)


def is_json_type(mime: str) -> bool:
    """``application/json`` or a ``+json`` structured syntax suffix (RFC 6839 section 3.1)."""
    bare = media_type(mime)
    return bare == "application/json" or bare.endswith("+json")


def is_binary_type(mime: str) -> bool:
    bare = media_type(mime)
    top = bare.split("/", 1)[0]
    return (top in _BINARY_TOPS and bare not in _TEXT_IMAGES) or bare in _BINARY_TYPES


def sniff(data: bytes) -> str | None:
    """The format ``data`` opens with, by its magic bytes, or None."""
    return next((name for name, test in SIGNATURES.items() if test(data)), None)


@dataclass(frozen=True)
class Base64Problem:
    """What is wrong with a string that should be base64: an ``error`` a client refuses, or
    a ``warning`` for a form some clients accept and others do not."""

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


def first_bytes(value: str) -> bytes:
    """The bytes the first ``SNIFF_CHARS`` characters of a valid base64 string decode to."""
    chunk = _SPACE.sub("", value[: SNIFF_CHARS * 2])[:SNIFF_CHARS]
    chunk = chunk.rstrip("=")
    chunk = chunk[: len(chunk) - len(chunk) % 4] if len(chunk) % 4 == 1 else chunk
    try:
        return base64.b64decode(chunk + "=" * (-len(chunk) % 4))
    except (binascii.Error, ValueError):
        return b""


def binary_head(data: bytes) -> str | None:
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


def json_problem(text: str) -> str | None:
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
