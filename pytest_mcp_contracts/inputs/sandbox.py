"""The roots sandbox: a folder of real files offered as the client's root, and the path-like
input values drawn from it.

A filesystem server that adopts the client's roots as its allowed folders (the reference
``@modelcontextprotocol/server-filesystem`` does) refuses every path outside them, and a
tool that reads a document needs one that exists: generated strings never get past either,
so a run of hundreds of refusals would pass having exercised nothing. So the root the client
offers is laid with small sample files of common kinds (or a bounded copy of the user's own
``--mcp-roots`` folder), and string properties that take a path, a file, a folder or a URI
draw many of their values from it: absolute and relative paths of its files and folders,
``file://`` URIs, the root itself, and paths inside it that do not exist.

The sandbox keeps one root path for the run (no ``roots/list_changed`` is needed) and is
laid anew before each tool's calls, so that one tool's writes never become another tool's
inputs. Its values are fixed once laid, so strategies built from them are fixed for a seed.

Pure Python: nothing here imports pytest, and hypothesis only inside the functions that
build strategies.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import re
import shutil
import stat
import struct
import time
import wave
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from pytest_mcp_contracts.transport.discover import Entry

__all__ = [
    "MAX_COPY_BYTES",
    "MAX_COPY_ENTRIES",
    "PathSlot",
    "Sandbox",
    "SandboxError",
    "SandboxPaths",
    "path_slots",
    "sample_files",
    "uses_sandbox",
    "with_sandbox_values",
]

#: A user's ``--mcp-roots`` folder is copied before each tool: bigger ones are refused.
MAX_COPY_BYTES: Final = 16 * 1024 * 1024
MAX_COPY_ENTRIES: Final = 2_000
#: Files of a user's folder offered as values (the first ones, in sorted order).
MAX_VALUE_FILES: Final = 200
#: Files a coverage phase visits one by one (then folders, a relative path, a URI, a miss).
MAX_CORNER_FILES: Final = 12


class SandboxError(Exception):
    """The user's folder cannot be used as the sandbox (the message says why and what to do)."""


# --------------------------------------------------------------------------- the sample files


def _png() -> bytes:
    """A valid 2x2 RGB PNG: one red, one green, one blue and one white pixel."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"\x00\xff\x00\x00\x00\xff\x00" + b"\x00\x00\x00\xff\xff\xff\xff"
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def _wav() -> bytes:
    """A valid WAV: 10 ms of a quiet square wave, 8 kHz mono 16-bit."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        square = (1000 if i % 8 < 4 else -1000 for i in range(80))
        out.writeframes(b"".join(struct.pack("<h", sample) for sample in square))
    return buffer.getvalue()


def _docx_table() -> str:
    """A 2x2 table with a header row, for the tools that format or fill a document's tables."""

    def cell(text: str) -> str:
        return f"<w:tc><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"

    rows = "".join(
        f"<w:tr>{cell(a)}{cell(b)}</w:tr>" for a, b in (("name", "price"), ("pear", "0.75"))
    )
    grid = '<w:tblGrid><w:gridCol w:w="2400"/><w:gridCol w:w="2400"/></w:tblGrid>'
    return f"<w:tbl><w:tblPr/>{grid}{rows}</w:tbl>"


def _docx() -> bytes:
    """A valid Word document (a heading, a paragraph, a table): the three parts a reader needs,
    zipped with fixed dates so the bytes are the same in every run."""
    parts = {
        "[Content_Types].xml": (
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/word/document.xml" ContentType="application/vnd.'
            'openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
        ),
        "_rels/.rels": (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
            'officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
            "</Relationships>"
        ),
        "word/document.xml": (
            '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/'
            'main"><w:body><w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Sample'
            "</w:t></w:r></w:p><w:p><w:r><w:t>A paragraph of the sandbox's Word document."
            "</w:t></w:r></w:p>" + _docx_table() + "</w:body></w:document>"
        ),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, xml in parts.items():
            header = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            archive.writestr(zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0)), header + xml)
    return buffer.getvalue()


def _pdf() -> bytes:
    """A valid one-page PDF saying "Sample PDF", its cross-reference table computed."""
    text = b"BT /F1 12 Tf 20 50 Td (Sample PDF) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        table,
    )
    return bytes(out)


def sample_files() -> dict[str, bytes]:
    """The built-in sandbox's files by path relative to the root, in the order their values
    are offered (a plain text file first: the simplest value of a path is a real file)."""
    return {
        "notes.txt": b"Hello from the pytest-mcp-contracts sandbox.\nA second line.\n",
        "README.md": b"# Sample\n\nA *Markdown* file with a [link](https://example.com/).\n\n"
        b"- one\n- two\n",
        "data.json": json.dumps(
            {"name": "sample", "items": [1, 2, 3], "nested": {"ok": True}}, indent=2
        ).encode()
        + b"\n",
        "table.csv": b"id,name,price\n1,apple,0.50\n2,pear,0.75\n",
        "image.png": _png(),
        "sound.wav": _wav(),
        "report.docx": _docx(),
        "paper.pdf": _pdf(),
        "blob.bin": bytes(range(256)),
        "empty.txt": b"",
        "nested/inner.txt": b"A file one folder down.\n",
        "name with spaces \u00fcn\u00efc\u00f8d\u00e9.txt": (
            b"A name with spaces and letters beyond ASCII.\n"
        ),
    }


# --------------------------------------------------------------------------- the values


@dataclass(frozen=True)
class SandboxPaths:
    """The values a laid sandbox offers path-like inputs. Hashable: generated strategies are
    cached by it."""

    root: str
    files: tuple[str, ...]  # absolute paths, in offer order
    folders: tuple[str, ...]  # absolute paths below the root
    relative: tuple[str, ...]  # files, then folders, relative to the root
    uris: tuple[str, ...]  # file:// URIs of the files, then of the root
    missing: tuple[str, ...]  # inside the root, not there
    # What a tool's name says its bare "path"s are ("folder" for list_directory), or None.
    tool_kind: str | None = None
    # The words of the tool's name and description: they may name the kind of file it
    # reads ("Extract all text from a Word document"; see _EXTENSIONS).
    tool_words: frozenset[str] = frozenset()
    # Folders named on the server's own command line (mcp-server-git's --repository, the
    # folders server-filesystem is given): a server that works on a folder of its own
    # refuses every other path.
    named: tuple[str, ...] = ()

    @classmethod
    def of(cls, root: Path, files: list[str], folders: list[str]) -> SandboxPaths:
        """Values for ``files`` and ``folders`` (paths relative to ``root``, "/"-separated)."""
        return cls(
            root=str(root),
            files=tuple(str(root / f) for f in files),
            folders=tuple(str(root / d) for d in folders),
            relative=(*files, *folders),
            uris=(*((root / f).as_uri() for f in files), root.as_uri()),
            missing=(str(root / "missing.txt"), str(root / "no-such-folder" / "file.txt")),
        )

    def for_tool(
        self, name: str, description: object = None, named: tuple[str, ...] = ()
    ) -> SandboxPaths:
        """These values for one tool: a property that only says "path" takes the sort of
        path the tool's name names (``list_directory``, ``read_file``), and the files of the
        kind its name or description names come first (``get_document_text``: the .docx)."""
        words = _words(name)
        kind = "folder" if words & _FOLDER_WORDS else "file" if words & _FILE_WORDS else None
        text = description if isinstance(description, str) else ""
        said = words | {w.lower() for w in _SPLIT.findall(text[:500])}
        return dataclasses.replace(self, tool_kind=kind, tool_words=frozenset(said), named=named)

    def preferred(self, words: set[str] | frozenset[str]) -> tuple[str, ...]:
        """The files whose kind ``words`` name (with the tool's own words), in offer order."""
        wanted = {ext for word in (words | self.tool_words) for ext in _EXTENSIONS.get(word, ())}
        return tuple(f for f in self.files if Path(f).suffix.lower() in wanted)

    @property
    def all(self) -> frozenset[str]:
        return frozenset(
            (self.root, *self.files, *self.folders, *self.relative, *self.uris, *self.missing)
        )

    def for_listed_tool(self, tool: Entry, argv: tuple[str, ...] = ()) -> SandboxPaths:
        """These values as a listed tool draws them: ``for_tool`` with its description, and
        the folders its server's command line (``argv``) names first. What every check and
        the fixture give a tool."""
        return self.for_tool(tool.name, tool.raw.get("description"), self.named_in(argv))

    @staticmethod
    def named_in(argv: tuple[str, ...]) -> tuple[str, ...]:
        """The existing folders a server's command line names after its executable (also
        as ``--flag=FOLDER``), absolute, in order."""
        found: list[str] = []
        for word in argv[1:]:
            if word.startswith("-"):
                if "=" not in word:
                    continue  # a flag; its value, if any, is the next word
                word = word.split("=", 1)[1]
            candidate = Path(word)
            with contextlib.suppress(OSError):
                if candidate.is_dir() and str(candidate.resolve()) not in found:
                    found.append(str(candidate.resolve()))
        return tuple(found)

    def groups(self, kind: str) -> tuple[tuple[str, ...], ...]:
        """The values by sort (files, folders with the root first, relative paths, URIs,
        missing paths), the sorts a ``kind`` of slot most likely wants first: a draw picks a
        sort, then a value, so that a folder of many files does not drown the rest."""
        by_sort = {
            "files": self.files,
            "folders": (self.root, *self.folders),
            "named": self.named,
            "relative": self.relative,
            "uris": self.uris,
            "missing": self.missing,
        }
        return tuple(by_sort[sort] for sort in _sorts(kind) if by_sort[sort])

    def ordered(self, kind: str) -> tuple[str, ...]:
        """Every value, in the order of ``groups`` (the first one is the value inputs of the
        slot shrink to)."""
        return tuple(value for group in self.groups(kind) for value in group)

    def corners(self, kind: str) -> list[tuple[str, str]]:
        """(label, value) for the coverage phase, in the order of ``groups``: each kind of
        file once, the root and a folder, a relative path, a URI (one per file for a URI
        slot), a missing path."""
        chosen = _one_per_suffix(self.files)
        uris = [("file:// URI", self.uris[0])]
        if kind == "uri":
            uris = [(f"file:// URI {Path(f).name}", Path(f).as_uri()) for f in chosen]
            uris.append(("file:// URI of the root", self.uris[-1]))
        by_sort = {
            "files": [(f"file {Path(f).name}", f) for f in chosen],
            "folders": [
                ("folder (the root)", self.root),
                *((f"folder {Path(d).name}", d) for d in self.folders[:1]),
            ],
            "named": [(f"the server's own folder {d}", d) for d in self.named[:2]],
            "relative": [("relative path", self.relative[0])] if self.relative else [],
            "uris": uris,
            "missing": [("missing path", self.missing[0])],
        }
        return [corner for sort in _sorts(kind) for corner in by_sort[sort]]


def _sorts(kind: str) -> tuple[str, ...]:
    """The sorts of sandbox value, those a ``kind`` of slot most likely wants first."""
    if kind == "uri":
        return ("uris", "files", "folders", "named", "relative", "missing")
    if kind == "folder":
        return ("folders", "named", "files", "relative", "uris", "missing")
    return ("files", "folders", "named", "relative", "uris", "missing")


def _one_per_suffix(files: tuple[str, ...]) -> list[str]:
    """Up to MAX_CORNER_FILES files, each kind (suffix) once before any kind twice."""
    first: list[str] = []
    later: list[str] = []
    seen: set[str] = set()
    for path in files:
        suffix = Path(path).suffix.lower()
        (later if suffix in seen else first).append(path)
        seen.add(suffix)
    return [*first, *later][:MAX_CORNER_FILES]


def uses_sandbox(arguments: Mapping[str, Any], values: frozenset[str]) -> bool:
    """Whether a call's arguments carry a sandbox value (at the top, or in a top-level list)."""
    for value in arguments.values():
        if isinstance(value, str) and value in values:
            return True
        if isinstance(value, list) and any(isinstance(v, str) and v in values for v in value):
            return True
    return False


# --------------------------------------------------------------------------- the folder


class Sandbox:
    """One root for the run, laid with the sample files or a copy of ``source``."""

    def __init__(self, root: Path, source: Path | None = None) -> None:
        self.root = root.resolve()
        self.source = source
        if source is not None:
            _check_source(source)
        self.layings = 0
        self.laid_at = 0.0  # time.monotonic() when the tree was last written
        self._paths: SandboxPaths | None = None
        self._laid: dict[str, tuple[int, bytes | None]] | None = None  # _laid_tree, once laid
        # A failure's input points into the root: the run leaves it (laid afresh) for the
        # replay, instead of removing it.
        self.kept = False

    def finish(self) -> None:
        """At the end of the run: the root removed, or laid afresh when a failure needs it."""
        if self.kept:
            with contextlib.suppress(SandboxError):
                self.lay()
                return
        shutil.rmtree(self.root, ignore_errors=True)

    @property
    def paths(self) -> SandboxPaths:
        """The values, read from the first laying's listing (fixed for the run)."""
        if self._paths is None:
            self.lay()
        assert self._paths is not None
        return self._paths

    def lay(self) -> None:
        """Empty the root, whatever a tool left there, and lay the files again; SandboxError
        when that fails. The built-in files are left as they are when the root still holds
        exactly them, byte for byte, with the modes they were laid with (reading them back is
        a tenth of laying them anew, before every tool)."""
        if self.source is None and self._laid is not None and _laid_tree(self.root) == self._laid:
            return
        try:
            _clear(self.root)
            if self.source is None:
                for relative, data in sample_files().items():
                    target = self.root / relative
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
            else:
                shutil.copytree(self.source, self.root, symlinks=True, dirs_exist_ok=True)
        except (OSError, shutil.Error) as exc:
            raise SandboxError(
                f"the roots sandbox {self.root} could not be laid anew (what an earlier tool "
                f"left there may be in the way): {exc}"
            ) from None
        self.layings += 1
        self.laid_at = time.monotonic()
        if self._paths is None:
            self._paths = self._listing()
        if self.source is None:
            self._laid = _laid_tree(self.root)

    def _listing(self) -> SandboxPaths:
        if self.source is None:
            names = list(sample_files())
            folders = sorted({str(Path(n).parent) for n in names} - {"."})
            return SandboxPaths.of(self.root, names, folders)
        files: list[str] = []
        folders = []
        for folder, dirnames, filenames in os.walk(self.root):
            dirnames.sort()
            base = Path(folder).relative_to(self.root)
            if folder != str(self.root):
                folders.append(base.as_posix())
            files += [(base / name).as_posix() for name in sorted(filenames)]
        return SandboxPaths.of(self.root, files[:MAX_VALUE_FILES], folders[:MAX_VALUE_FILES])


def _check_source(source: Path) -> None:
    """Refuse a folder too big to copy before every tool (or one that cannot be read)."""
    size = entries = 0
    try:
        for folder, dirnames, filenames in os.walk(source, onerror=_raise):
            entries += len(dirnames) + len(filenames)
            for name in filenames:
                path = Path(folder, name)
                if not path.is_symlink():
                    size += path.stat().st_size
            if entries > MAX_COPY_ENTRIES or size > MAX_COPY_BYTES:
                raise SandboxError(
                    f"--mcp-roots (ini mcp_roots): {source} holds more than "
                    f"{MAX_COPY_ENTRIES} files and folders or {MAX_COPY_BYTES // 2**20} MiB; it "
                    "is copied into a fresh sandbox before each tool, so it must stay small. "
                    "Point it at a folder of a few sample files (or --mcp-roots=none)."
                )
    except OSError as exc:
        raise SandboxError(f"--mcp-roots (ini mcp_roots): {source} cannot be read: {exc}") from None


def _raise(error: OSError) -> None:
    raise error


MAX_LAID_FILE = 1 << 20  # read back at most this much of a file (the built-in ones: < 1 KB)


def _laid_tree(root: Path) -> dict[str, tuple[int, bytes | None]] | None:
    """Everything under ``root`` (itself included, as ""): each entry's mode (its type and
    permissions, from lstat: a link is not followed) and a file's bytes. None when some of
    it cannot be read."""
    tree: dict[str, tuple[int, bytes | None]] = {}
    try:
        tree[""] = (os.lstat(root).st_mode, None)
        for folder, dirnames, filenames in os.walk(root, onerror=_raise):
            base = os.path.relpath(folder, root)
            for name in dirnames + filenames:
                path = os.path.join(folder, name)
                relative = os.path.normpath(os.path.join(base, name))
                mode = os.lstat(path).st_mode
                if stat.S_ISREG(mode):
                    with open(path, "rb") as handle:
                        tree[relative] = (mode, handle.read(MAX_LAID_FILE + 1))
                else:
                    tree[relative] = (mode, None)
    except OSError:
        return None
    return tree


def _clear(root: Path) -> None:
    """Make ``root`` an empty folder. A tool may have left anything there: folders it made
    read-only or unreadable, symlinks, or the root itself removed or replaced by a file."""
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        root.unlink()
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(stat.S_IRWXU)
    for child in root.iterdir():
        if not child.is_dir() or child.is_symlink():
            child.unlink()
            continue
        try:
            shutil.rmtree(child)
        except OSError:
            _writable(child)
            shutil.rmtree(child)


def _writable(folder: Path) -> None:
    """Give every folder below ``folder`` back to its owner (symlinks are not followed)."""
    folder.chmod(stat.S_IRWXU)
    for current, names, _files in os.walk(folder):
        for name in names:
            path = os.path.join(current, name)
            if not os.path.islink(path):
                os.chmod(path, stat.S_IRWXU)


# --------------------------------------------------------------------------- the slots

_SPLIT = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_FILE_WORDS = frozenset({"file", "files", "filename", "filenames", "filepath", "filepaths"})
_FOLDER_WORDS = frozenset(
    {"dir", "dirs", "directory", "directories", "folder", "folders", "cwd", "workdir", "dirpath"}
)
_URI_WORDS = frozenset({"uri", "uris"})
_PATH_WORDS = frozenset({"path", "paths", "pathname", "filepath"})
_URI_FORMATS = frozenset({"uri", "iri"})
_REFERENCE_FORMATS = frozenset({"uri-reference", "iri-reference"})
# Descriptions that say the value is a path ("Path to the file", "The directory to list");
# "the file" alone is not enough: "Content to write to the file" is no path.
_DESCRIBED = re.compile(
    r"\b(?:(?:file|folder|directory)\s+)?(?:paths?|pathname)\b|\bdirector(?:y|ies)\b|"
    r"\bfolders?\b|\bfile\s?names?\b|\bfile:// uri\b",
    re.IGNORECASE,
)
_FOLDER_TEXT = re.compile(r"\b(?:director(?:y|ies)|folders?)\b", re.IGNORECASE)
_FILE_TEXT = re.compile(r"\bfiles?\b", re.IGNORECASE)


@dataclass(frozen=True)
class PathSlot:
    """A top-level property that takes paths, and the sandbox values its schema accepts."""

    name: str
    kind: str  # "file", "folder", "uri" or "path": which values come first
    groups: tuple[tuple[str, ...], ...]  # SandboxPaths.groups, what the schema accepts of them
    array: bool = False  # an array of paths
    min_items: int = 1
    max_items: int = 3
    preferred: tuple[str, ...] = ()  # the files of the kind the tool names: drawn most

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(value for group in self.groups for value in group)

    def strategy(self) -> SearchStrategy[Any]:
        """A sort, then a value of it; the sorts the slot's kind wants come up more often
        (files and folders for a bare path, else the first sort)."""
        from hypothesis import strategies as st

        favoured = 2 if self.kind == "path" else 1
        weighted = [g for i, g in enumerate(self.groups) for _ in range(3 if i < favoured else 1)]
        if self.preferred:  # a Word document for a tool that reads one, most of the time
            weighted = [self.preferred] * len(weighted) + weighted
        one = st.sampled_from(weighted).flatmap(st.sampled_from)
        if self.array:
            return st.lists(one, min_size=self.min_items, max_size=self.max_items)
        return one

    def corners(self, paths: SandboxPaths) -> list[tuple[str, Any]]:
        """(label, value) for the coverage phase: the sandbox's corners this slot accepts."""
        accepted = set(self.values)
        found = [(label, v) for label, v in paths.corners(self.kind) if v in accepted]
        # The base input starts at the first: a file of the kind the tool reads, if any.
        found.sort(key=lambda corner: corner[1] not in self.preferred)
        if self.array:
            return [(label, [v] * self.min_items) for label, v in found]
        return found


# Words of a tool's or a property's name or description that name a kind of file, and the
# sample files' extensions of that kind.
_EXTENSIONS: Final[dict[str, tuple[str, ...]]] = {
    **dict.fromkeys(("document", "documents", "docx", "word"), (".docx",)),
    **dict.fromkeys(("pdf", "pdfs"), (".pdf",)),
    **dict.fromkeys(("image", "images", "picture", "photo", "png"), (".png",)),
    **dict.fromkeys(("audio", "sound", "wav", "recording"), (".wav",)),
    **dict.fromkeys(("csv", "spreadsheet"), (".csv",)),
    "json": (".json",),
    **dict.fromkeys(("markdown", "md"), (".md",)),
}


# Words of a property that ask for the folder a server works on: the folders its command
# line names come first (mcp-server-git's repo_path).
_OWN_FOLDER_WORDS: Final = frozenset({"repo", "repository", "project", "workspace", "workdir"})


def _words(name: str) -> set[str]:
    return {w.lower() for w in _SPLIT.findall(name)} | {name.lower()}


def path_kind(name: str, sub: Mapping[str, Any]) -> str | None:
    """What sort of path a property takes, judged by its name, format and description;
    None when it does not look like one."""
    words = _words(name)
    fmt = sub.get("format")
    text = " ".join(str(sub.get(key, "")) for key in ("description", "title"))
    if words & _URI_WORDS or fmt in _URI_FORMATS:
        return "uri"
    if words & _FOLDER_WORDS:
        return "folder"
    if words & _FILE_WORDS:
        return "file"
    if words & _PATH_WORDS or fmt in _REFERENCE_FORMATS or _DESCRIBED.search(text):
        if _FOLDER_TEXT.search(text) and not _FILE_TEXT.search(text):
            return "folder"
        return "path"
    return None


def path_slots(
    original: Mapping[str, Any], prepared: Mapping[str, Any], paths: SandboxPaths
) -> dict[str, PathSlot]:
    """The top-level properties of a tool's inputSchema that take paths, each with the
    sandbox values its (prepared, draft-07) sub-schema accepts. ``original`` is the schema as
    the server wrote it: the rewrite drops descriptions. A property whose schema refuses
    every sandbox value (a pattern, an enum, a format) is no slot: it stays generated."""
    import jsonschema

    from pytest_mcp_contracts.schema.dialects import offline

    declared = prepared.get("properties")
    if not isinstance(declared, Mapping):
        return {}
    described = original.get("properties")
    described = described if isinstance(described, Mapping) else {}
    slots: dict[str, PathSlot] = {}
    for name, sub in declared.items():
        if not isinstance(sub, Mapping):
            continue
        own = described.get(name)
        kind = path_kind(name, {**sub, **own} if isinstance(own, Mapping) else sub)
        if kind is None:
            continue
        if kind == "path" and paths.tool_kind is not None:
            kind = paths.tool_kind
        array = sub.get("type") == "array" and isinstance(sub.get("items"), Mapping)
        target = sub["items"] if array else sub
        validator = offline(jsonschema.Draft7Validator, dict(target))
        # Where the URI format is not checked (no rfc3987), a bare path would pass as one.
        uri_only = target.get("format") in _URI_FORMATS
        try:
            accepted = [
                tuple(v for v in group if validator.is_valid(v))
                for group in paths.groups(kind)
                if not uri_only or group[0].startswith("file://")
            ]
        except (jsonschema.exceptions.SchemaError, re.error, TypeError):  # left to generation
            continue
        groups = tuple(group for group in accepted if group)
        if not groups:
            continue
        low = sub.get("minItems", 1) if array else 1
        high = sub.get("maxItems", low + 2) if array else 1
        if not (isinstance(low, int) and isinstance(high, int)):
            continue
        low = max(low, 1)
        high = min(high, low + 2)
        if low > high:
            continue
        text = (
            " ".join(str(own.get(k, "")) for k in ("description", "title"))
            if isinstance(own, Mapping)
            else ""
        )
        said = _words(name) | {w.lower() for w in _SPLIT.findall(text)}
        accepted_files = {v for group in groups for v in group}
        wanted = paths.named if said & _OWN_FOLDER_WORDS else paths.preferred(said)
        first = tuple(f for f in wanted if f in accepted_files)
        slots[name] = PathSlot(name, kind, groups, array, low, high, first)
    return slots


def with_sandbox_values(
    generated: SearchStrategy[dict[str, Any]],
    slots: Mapping[str, PathSlot],
    is_valid: Callable[[Any], bool],
) -> SearchStrategy[dict[str, Any]]:
    """Inputs from ``generated`` whose path slots take a sandbox value about half the time
    they are present (``known.with_values``: an input the schema refuses with it keeps the
    generated value; inputs shrink to a real file)."""
    from pytest_mcp_contracts.inputs.known import with_values

    return with_values(generated, {name: slot.strategy() for name, slot in slots.items()}, is_valid)
