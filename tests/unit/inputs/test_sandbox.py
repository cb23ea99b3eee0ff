"""The roots sandbox (inputs/sandbox.py): its sample files are real files of their kinds, it
is laid anew whatever a tool left in it, a user's folder is copied within bounds, and the
properties that take paths draw many of their values from it, in the coverage phase and the
random one, without ever sending an input the schema refuses."""

from __future__ import annotations

import json
import os
import stat
import struct
import time
import wave
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mcp_contracts.inputs import sandbox as sandbox_module
from pytest_mcp_contracts.inputs.examples import simplest_example
from pytest_mcp_contracts.inputs.generate import coverage_plan, input_strategy
from pytest_mcp_contracts.inputs.sandbox import (
    Sandbox,
    SandboxError,
    SandboxPaths,
    path_slots,
    sample_files,
    uses_sandbox,
)
from pytest_mcp_contracts.schema.dialects import make_validator


@pytest.fixture
def laid(tmp_path: Path) -> Sandbox:
    sandbox = Sandbox(tmp_path / "root")
    sandbox.lay()
    return sandbox


def _tree(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


# --------------------------------------------------------------------------- the files


def test_the_sample_files_are_real_files_of_their_kinds(laid: Sandbox) -> None:
    root = laid.root
    assert sample_files() == sample_files()  # deterministic
    png = (root / "image.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    chunks = []
    at = 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + data)
        chunks.append((kind, data))
        at += 12 + length
    assert [k for k, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    assert struct.unpack(">II", chunks[0][1][:8]) == (2, 2)
    assert len(zlib.decompress(chunks[1][1])) == 2 * (1 + 2 * 3)  # filter byte + RGB per row
    with wave.open(str(root / "sound.wav")) as sound:
        assert (sound.getnchannels(), sound.getframerate(), sound.getnframes()) == (1, 8000, 80)
    assert json.loads((root / "data.json").read_text())["items"] == [1, 2, 3]
    assert (root / "table.csv").read_text().splitlines()[0] == "id,name,price"
    assert (root / "empty.txt").read_bytes() == b""
    assert (root / "nested" / "inner.txt").is_file()
    assert (root / "name with spaces \u00fcn\u00efc\u00f8d\u00e9.txt").is_file()
    assert (root / "blob.bin").read_bytes() == bytes(range(256))
    # A Word document: the parts a reader opens (python-docx read it: 'Sample' and a
    # paragraph), and a PDF whose cross-reference table points at each of its objects.
    with zipfile.ZipFile(root / "report.docx") as docx:
        assert docx.testzip() is None
        assert {"[Content_Types].xml", "_rels/.rels", "word/document.xml"} <= set(docx.namelist())
        assert b"<w:t>Sample</w:t>" in docx.read("word/document.xml")
        assert b"<w:tbl>" in docx.read("word/document.xml")  # a table for the table tools
    pdf = (root / "paper.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4\n") and pdf.endswith(b"%%EOF\n")
    start = int(pdf.rsplit(b"startxref\n", 1)[1].split(b"\n", 1)[0])
    assert pdf[start:].startswith(b"xref\n0 6\n")
    rows = pdf[start:].split(b"\n")[3:8]
    for number, row in enumerate(rows, 1):
        offset = int(row.split()[0])
        assert pdf[offset:].startswith(b"%d 0 obj" % number), (number, offset)
    assert b"(Sample PDF) Tj" in pdf


def test_laying_again_undoes_whatever_a_tool_did(laid: Sandbox) -> None:
    root = laid.root
    before = _tree(root)
    (root / "notes.txt").write_text("overwritten")
    (root / "data.json").unlink()
    (root / "new folder").mkdir()
    (root / "new folder" / "made.txt").write_text("made by a tool")
    locked = root / "nested"
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)  # read-only: its file cannot be deleted as is
    (root / "new folder" / "sealed").mkdir()
    (root / "new folder" / "sealed" / "inside.txt").write_text("x")
    (root / "new folder" / "sealed").chmod(0)  # not even readable
    os.symlink("/", root / "escape")
    root.chmod(stat.S_IRUSR | stat.S_IXUSR)
    laid.lay()
    assert _tree(root) == before
    # Even the root itself replaced by a file.
    import shutil

    shutil.rmtree(root)
    root.write_text("not a folder")
    laid.lay()
    assert _tree(root) == before
    assert laid.layings == 3


def _nothing(root: Path) -> None:
    (root / "notes.txt").read_bytes()  # a tool that only reads


@pytest.mark.parametrize(
    ("change", "layings"),
    [
        pytest.param(_nothing, 1, id="read-only"),
        pytest.param(lambda root: (root / "notes.txt").write_bytes(b"x" * 60), 2, id="same-size"),
        pytest.param(lambda root: (root / "blob.bin").chmod(0o600), 2, id="mode"),
        pytest.param(lambda root: (root / "nested" / "new.txt").write_bytes(b""), 2, id="new"),
        pytest.param(lambda root: (root / "empty.txt").unlink(), 2, id="removed"),
        pytest.param(lambda root: os.symlink("/", root / "nested" / "up"), 2, id="link"),
    ],
)
def test_a_root_that_still_holds_the_laid_files_is_left_as_it_is(
    laid: Sandbox, change: Callable[[Path], object], layings: int
) -> None:
    """Laid again only when a tool changed something, down to one byte or one mode bit;
    ``laid_at`` says when it last was (a server started after it needs no restart to see
    the files as laid: runs/context.RunContext.fresh)."""
    root = laid.root
    before = _tree(root)
    assert len((root / "notes.txt").read_bytes()) == 60  # "same-size" writes as many bytes
    laid_at, started = laid.laid_at, time.monotonic()
    change(root)
    laid.lay()
    assert _tree(root) == before
    assert laid.layings == layings
    assert (laid.laid_at > started) if layings > 1 else (laid.laid_at == laid_at < started)
    assert {p.name for p in root.rglob("*")} >= {"notes.txt", "inner.txt"}


def test_the_values_are_fixed_once_laid_and_cover_every_kind_of_path(laid: Sandbox) -> None:
    paths = laid.paths
    root = laid.root
    assert paths.files[0] == str(root / "notes.txt")
    assert paths.root == str(root) and str(root / "nested") in paths.folders
    assert "nested/inner.txt" in paths.relative
    assert (root / "name with spaces \u00fcn\u00efc\u00f8d\u00e9.txt").as_uri() in paths.uris
    assert root.as_uri() in paths.uris
    assert all(not Path(m).exists() and m.startswith(str(root)) for m in paths.missing)
    laid.lay()
    assert laid.paths is paths
    assert uses_sandbox({"p": paths.files[3], "n": 1}, paths.all)
    assert uses_sandbox({"ps": ["x", paths.uris[0]]}, paths.all)
    assert not uses_sandbox({"p": "notes"}, paths.all)


def test_a_users_folder_is_copied_and_its_files_become_the_values(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    (mine / "docs").mkdir(parents=True)
    (mine / "docs" / "report.pdf").write_bytes(b"%PDF-1.4\n")
    (mine / "a.txt").write_text("a")
    sandbox = Sandbox(tmp_path / "root", mine)
    sandbox.lay()
    root = sandbox.root
    assert sandbox.paths.files == (str(root / "a.txt"), str(root / "docs/report.pdf"))
    assert sandbox.paths.relative == ("a.txt", "docs/report.pdf", "docs")
    (sandbox.root / "a.txt").unlink()
    sandbox.lay()
    assert (sandbox.root / "a.txt").read_text() == "a"
    assert (mine / "a.txt").read_text() == "a" and sorted(os.listdir(mine)) == ["a.txt", "docs"]


def test_a_users_folder_too_big_to_copy_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    for i in range(4):
        (mine / f"{i}.txt").write_text("x" * 10)
    monkeypatch.setattr(sandbox_module, "MAX_COPY_ENTRIES", 3)
    with pytest.raises(SandboxError, match=r"--mcp-roots .*holds more than 3 files and folders"):
        Sandbox(tmp_path / "root", mine)
    monkeypatch.setattr(sandbox_module, "MAX_COPY_ENTRIES", 100)
    monkeypatch.setattr(sandbox_module, "MAX_COPY_BYTES", 30)
    with pytest.raises(SandboxError, match="or 0 MiB"):
        Sandbox(tmp_path / "root", mine)


# --------------------------------------------------------------------------- the slots

PATHS = SandboxPaths.of(Path("/sbx"), ["notes.txt", "d/in.csv"], ["d"])


def _slots(properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {name: (s.kind, s.values) for name, s in path_slots(schema, schema, PATHS).items()}


def test_path_properties_are_told_by_name_format_and_description() -> None:
    text = {"type": "string"}
    found = _slots(
        {
            "path": text,
            "filePath": text,
            "source_file": text,
            "outputDirectory": text,
            "resource_uri": text,
            "link": {"type": "string", "format": "uri"},
            "src": {"type": "string", "description": "Path of the document to convert"},
            "target": {"type": "string", "description": "The folder to write into"},
            "content": {"type": "string", "description": "Text to write to the file"},
            "query": text,
            "count": {"type": "integer", "description": "how many paths"},
        }
    )
    kinds = {name: kind for name, (kind, _) in found.items()}
    assert kinds == {
        "path": "path",
        "filePath": "file",
        "source_file": "file",
        "outputDirectory": "folder",
        "resource_uri": "uri",
        "link": "uri",
        "src": "path",
        "target": "folder",
    }
    # Each kind's likeliest values first: what its inputs shrink to.
    assert found["path"][1][0] == "/sbx/notes.txt"
    assert found["outputDirectory"][1][0] == "/sbx"
    assert found["resource_uri"][1][0] == "file:///sbx/notes.txt"
    assert all(v.startswith("file://") for v in found["link"][1])  # the format wants URIs


def test_a_path_property_whose_schema_refuses_the_sandbox_stays_generated() -> None:
    found = _slots(
        {
            "slug_path": {"type": "string", "pattern": "^[A-Z]+$"},
            "mode_path": {"type": "string", "enum": ["r", "w"]},
            "short_path": {"type": "string", "maxLength": 5},
            "csv_path": {"type": "string", "pattern": r"\.csv$"},
            "paths": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        }
    )
    assert set(found) == {"short_path", "csv_path", "paths"}
    assert set(found["short_path"][1]) == {"/sbx", "d"}  # only what fits
    assert found["csv_path"][1] == ("/sbx/d/in.csv", "d/in.csv", "file:///sbx/d/in.csv")


# --------------------------------------------------------------------------- the inputs

FILES_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "The file to read"},
        "paths": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
        "head": {"type": "integer", "minimum": 0},
        "name": {"type": "string", "pattern": "^[a-z]{1,8}$"},
    },
    "required": ["path"],
    "additionalProperties": False,
}


def _draw(schema: dict[str, Any], paths: SandboxPaths | None, n: int = 150) -> list[Any]:
    drawn: list[Any] = []

    @settings(
        max_examples=n, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(input_strategy(schema, sandbox=paths))
    def collect(value: Any) -> None:
        drawn.append(value)

    collect()
    return drawn


def test_random_inputs_draw_many_paths_from_the_sandbox_and_stay_valid() -> None:
    validator = make_validator(FILES_SCHEMA)
    drawn = _draw(FILES_SCHEMA, PATHS)
    assert all(validator.is_valid(v) for v in drawn)
    values = PATHS.all
    from_sandbox = [v for v in drawn if v["path"] in values]
    lists = [v for v in drawn if v.get("paths") and set(v["paths"]) <= values]
    assert len(from_sandbox) >= len(drawn) // 4, len(from_sandbox)
    assert lists
    kinds = {v["path"] for v in from_sandbox}
    assert {"/sbx/notes.txt", "/sbx", "file:///sbx/notes.txt", "/sbx/missing.txt"} & kinds
    assert len(kinds) >= 6
    assert all(not str(v.get("name", "a")).startswith("/") for v in drawn)  # not a slot
    # Without a sandbox, nothing comes from it; the simplest input is a real file with it.
    assert not any(v["path"] in values for v in _draw(FILES_SCHEMA, None, 50))
    assert simplest_example(input_strategy(FILES_SCHEMA, sandbox=PATHS)) == {
        "path": "/sbx/notes.txt"
    }


def test_a_sandbox_value_the_whole_schema_refuses_falls_back_to_the_generated_one() -> None:
    # The slot check sees the property alone; the "not" makes a sandbox path invalid
    # beside "force", so such draws keep the generated input.
    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "force": {"type": "boolean"}},
        "required": ["path"],
        "not": {"required": ["force"], "properties": {"path": {"pattern": "^/sbx"}}},
    }
    validator = make_validator(schema)
    drawn = _draw(schema, PATHS, 100)
    assert all(validator.is_valid(v) for v in drawn)
    assert any(v["path"] in PATHS.all for v in drawn)  # without "force", it is used
    assert any("force" in v for v in drawn)


def test_the_coverage_phase_starts_at_a_real_file_and_visits_each_kind_of_path() -> None:
    plan = coverage_plan(FILES_SCHEMA, 40, sandbox=PATHS)
    validator = make_validator(FILES_SCHEMA)
    assert plan.inputs[0].arguments == {"path": "/sbx/notes.txt"}
    assert all(validator.is_valid(i.arguments) for i in plan.inputs)
    labels = {str(c) for c in plan.corners if c.kind == "sandbox"}
    assert {
        "path: sandbox file notes.txt",
        "path: sandbox file in.csv",
        "path: sandbox folder (the root)",
        "path: sandbox relative path",
        "path: sandbox file:// URI",
        "path: sandbox missing path",
        "paths: sandbox file notes.txt",
    } <= labels
    sent = {json.dumps(i.arguments, sort_keys=True) for i in plan.inputs}
    assert json.dumps({"path": "/sbx/d/in.csv"}) in sent
    assert json.dumps({"path": "/sbx/notes.txt", "paths": ["/sbx/notes.txt"]}) in sent
    # Without a sandbox: the old simplest string.
    assert coverage_plan(FILES_SCHEMA, 40).inputs[0].arguments == {"path": ""}


@given(st.sampled_from(["path", "dir", "uri", "fileName"]))
def test_every_coverage_input_is_valid_whatever_the_property(name: str) -> None:
    schema = {"type": "object", "properties": {name: {"type": "string", "minLength": 8}}}
    plan = coverage_plan(schema, 40, sandbox=PATHS)
    assert plan.inputs and all(make_validator(schema).is_valid(i.arguments) for i in plan.inputs)
    assert any(i.arguments.get(name, "").startswith(("/sbx", "file:")) for i in plan.inputs)


def test_a_bare_path_takes_the_sort_of_path_the_tools_name_names() -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    named = {"file": {"type": "string"}, "path": {"type": "string"}}
    own = {"type": "object", "properties": named, "required": ["file", "path"]}

    def kinds(tool: str, of: dict[str, Any] = schema) -> dict[str, str]:
        return {n: s.kind for n, s in path_slots(of, of, PATHS.for_tool(tool)).items()}

    assert kinds("list_directory") == {"path": "folder"}
    assert kinds("read_file") == {"path": "file"}
    assert kinds("search") == {"path": "path"}
    assert kinds("list_directory", own) == {"file": "file", "path": "folder"}

    # A folder tool's draws favour folders (the root and the one folder), a file tool's files
    # (3 in 7 sandbox draws against 1 in 7; measured here: about 40 and 21 of 200 draws).
    def folders(tool: str) -> int:
        drawn = [v["path"] for v in _draw(schema, PATHS.for_tool(tool), 200)]
        return sum(p in ("/sbx", "/sbx/d") for p in drawn)

    assert folders("list_directory") >= folders("read_file") + 10
    assert simplest_example(input_strategy(schema, sandbox=PATHS.for_tool("list_directory"))) == {
        "path": "/sbx"
    }


def test_a_tool_that_names_a_kind_of_file_gets_files_of_that_kind_first(laid: Sandbox) -> None:
    """office-word-mcp-server's get_document_text takes a bare `filename`; only its own
    description says "Word document": its draws and its base input go to the .docx."""
    from hypothesis import find

    schema = {"type": "object", "properties": {"filename": {"type": "string"}}}
    paths = laid.paths.for_tool("get_document_text", "Extract all text from a Word document.")
    (slot,) = path_slots(schema, schema, paths).values()
    assert [Path(f).name for f in slot.preferred] == ["report.docx"]
    assert Path(slot.corners(paths)[0][1]).name == "report.docx"
    docx = find(slot.strategy(), lambda v: v.endswith(".docx"))
    assert Path(docx).name == "report.docx"
    # A tool that names no kind keeps the plain order: the simplest file first.
    plain = laid.paths.for_tool("file_info", "Size of a file.")
    (other,) = path_slots(schema, schema, plain).values()
    assert other.preferred == () and Path(other.corners(plain)[0][1]).name == "notes.txt"


def test_the_folders_a_server_is_given_on_its_command_line_are_values_too(
    laid: Sandbox, tmp_path: Path
) -> None:
    """mcp-server-git works on the repository its command line names and refuses any other
    path: that folder is drawn for its path inputs, and visited by the coverage phase."""
    repo = tmp_path / "repo"
    repo.mkdir()
    script = tmp_path / "server.py"
    script.write_text("")
    argv = ("mcp-server-git", "-v", f"--repository={repo}", str(script), str(tmp_path / "no"))
    named = SandboxPaths.named_in(argv)
    assert named == (str(repo.resolve()),)  # folders only: not the script, not a missing one
    schema = {"type": "object", "properties": {"repo_path": {"type": "string"}}}
    paths = laid.paths.for_tool("git_status", "Shows the working tree status", named)
    (slot,) = path_slots(schema, schema, paths).values()
    assert str(repo.resolve()) in slot.values
    assert slot.preferred == (str(repo.resolve()),)  # a repo_path wants the server's folder
    assert (f"the server's own folder {repo.resolve()}", str(repo.resolve())) in slot.corners(paths)


def test_a_listed_tool_draws_its_kind_and_its_servers_folders_whatever_check_asks(
    laid: Sandbox, tmp_path: Path
) -> None:
    """for_listed_tool: what the contract item, the fixture and the sequences all give a
    tool (the sequences once gave only for_tool(name): no description, no named folders)."""
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.vocabulary import EntryKind

    repo = tmp_path / "repo"
    repo.mkdir()
    raw = {"name": "get_document_text", "description": "Extract all text from a Word document."}
    tool = Entry(EntryKind.TOOL, "get_document_text", "get_document_text", raw)
    paths = laid.paths.for_listed_tool(tool, ("server", str(repo)))
    assert paths == laid.paths.for_tool(
        "get_document_text", raw["description"], (str(repo.resolve()),)
    )
    assert paths != laid.paths.for_tool("get_document_text")
