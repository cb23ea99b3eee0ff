"""The security probes: which arguments carry them, the values they take, the folder their
files may appear in, and the verdict on a probe (judges/evidence)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_mcp_contracts.inputs.probes import (
    PATH_FORMS,
    CanarySpace,
    Form,
    Listener,
    boundary_folders,
    listened,
    probed,
    probes,
    runs_code,
)
from pytest_mcp_contracts.judges.evidence import probe_evidence
from pytest_mcp_contracts.judges.failures import FailureKind


@pytest.fixture
def space() -> CanarySpace:
    made = CanarySpace()
    yield made
    made.remove()


def schema(**properties: dict[str, object]) -> dict[str, object]:
    return {"type": "object", "properties": properties, "required": list(properties)}


TEXT = {"type": "string"}


@pytest.mark.parametrize(
    ("name", "description", "runs"),
    [
        ("command", "", True),
        ("script", "", True),
        ("sql", "", True),
        ("run_command", "Runs a shell command in the working folder", True),
        ("input", "The Python code to execute", True),
        ("query", "Text to search the notes for", False),
        ("filename", "Name of a file in the working folder", False),
        ("git_diff", "Shows the diff between the working tree and a target", False),
        ("code_search", "Finds where a symbol is defined", False),
    ],
)
def test_what_says_it_runs_code(name: str, description: str, runs: bool) -> None:
    assert runs_code(name, description) is runs


def test_only_free_text_that_does_not_take_code_is_probed() -> None:
    found = probed(
        schema(
            target=TEXT,
            command=TEXT,
            mode={"type": "string", "enum": ["a", "b"]},
            when={"type": "string", "format": "date-time"},
            count={"type": "integer"},
            either={"type": ["string", "null"]},
        )
    )
    assert found == ["target", "either"]
    assert probed({"type": "object"}) == [] and probed(None) == []


def test_an_operand_gets_the_flag_form_and_every_free_text_the_shell_forms(
    space: CanarySpace,
) -> None:
    made = list(probes("git_diff", "", schema(target=TEXT, note=TEXT), {"note": "n"}, space))
    forms = [(probe.argument, probe.form) for probe in made]
    assert (
        forms == [("target", Form.FLAG)] + [("target", Form.SHELL)] * 5 + [("note", Form.SHELL)] * 5
    )
    flag = made[0]
    assert flag.value == f"--output={flag.canary}"
    assert flag.arguments == {"target": flag.value, "note": "n"}
    shells = [probe.value for probe in made if probe.argument == "note"]
    assert shells[0] == f"n; touch {made[6].canary}"
    assert [value.split(" ", 1)[0][:2] for value in shells[1:3]] == ["n", "n"]
    assert "$(touch " in shells[3] and "`touch " in shells[4]
    # Each probe its own file, all in the run's folder, none there yet.
    canaries = [probe.canary for probe in made]
    assert len(set(canaries)) == len(canaries)
    assert all(c.parent == space.root and not c.exists() for c in canaries)


def test_a_tool_that_runs_code_gets_no_probe(space: CanarySpace) -> None:
    assert list(probes("run", "Executes a shell command", schema(text=TEXT), {}, space)) == []


def test_path_arguments_point_into_the_servers_folders(tmp_path: Path, space: CanarySpace) -> None:
    (tmp_path / "notes.txt").write_text("x")
    shape = schema(repo_path=TEXT, filename=TEXT)
    made = list(probes("t", "", shape, {"repo_path": "?", "filename": "?"}, space, [tmp_path]))
    on_file = next(p for p in made if p.argument == "filename")
    on_folder = next(p for p in made if p.argument == "repo_path")
    assert on_file.arguments["repo_path"] == str(tmp_path)
    assert on_folder.arguments["filename"] == str(tmp_path / "notes.txt")
    # A folder's shell forms name an entry inside it, never one beside it.
    folder_forms = [p.value for p in made if p.argument == "repo_path"]
    assert folder_forms[0].startswith(f"{tmp_path}/.; touch ")


def test_optional_arguments_are_left_to_the_tools_defaults(space: CanarySpace) -> None:
    """A smallest optional value can keep the call from doing anything (git's log with
    max_count 0 lists no commit): the probes carry the required arguments alone, unless
    the schema needs more."""
    count = {"type": "integer", "minimum": 0}
    shape = {"type": "object", "properties": {"repo_path": TEXT, "max_count": count}}
    base = {"repo_path": "/r", "max_count": 0}
    made = list(probes("t", "", {**shape, "required": ["repo_path"]}, base, space))
    assert made and all("max_count" not in p.arguments for p in made)
    both = {**shape, "required": ["repo_path"], "minProperties": 2}
    made = list(probes("t", "", both, base, space))
    assert all(p.arguments["max_count"] == 0 for p in made if p.argument != "max_count")


def test_a_url_names_the_listener_only_where_the_tool_says_it_stays_offline(
    space: CanarySpace,
) -> None:
    """Only a request that carries the probe's token is heard: the URL quoted back in a
    refusal is nothing, and a tool not annotated openWorldHint: false has no such probe."""
    import urllib.request

    shape = schema(url=TEXT, page={"type": "string", "format": "uri"}, note=TEXT)
    assert listened(shape, {"openWorldHint": True}) == []
    assert listened(shape, {"openWorldHint": False}) == ["url", "page"]
    listener = Listener()
    try:
        made = list(probes("t", "", shape, {}, space, listener=listener))
        network = [p for p in made if p.form is Form.NETWORK]
        assert [p.argument for p in network] == ["url", "page"]
        first, second = network
        assert first.value.startswith(f"http://127.0.0.1:{listener.port}/mcp-canary-")
        assert not listener.heard(first.token or "")
        with urllib.request.urlopen(first.value, timeout=5) as answer:
            assert answer.status == 200
        assert listener.heard(first.token or "") and not listener.heard(second.token or "")
        offline = {"openWorldHint": False}
        found = probe_evidence(first, offline)
        assert found is not None and found.kind is FailureKind.BROKEN_ANNOTATION
        assert probe_evidence(first, {}) is None  # reaching the network is its business
        listener.forget()
        assert probe_evidence(first, offline) is None
    finally:
        listener.close()


def test_the_folders_a_server_was_given(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    argv = ["python", "server.py", str(tmp_path / "a"), f"--repository={tmp_path / 'b'}"]
    argv += ["--name", "x", str(tmp_path / "missing")]
    environ = {"DATA_DIR": str(tmp_path / "a"), "MEMORY_FILE_PATH": str(tmp_path / "b")}
    assert boundary_folders(argv, environ) == [tmp_path / "a", tmp_path / "b"]
    assert boundary_folders(["server"], {"TOKEN": str(tmp_path)}) == []


def test_only_the_file_appearing_is_evidence(space: CanarySpace) -> None:
    flag, *shells = probes("git_show", "", schema(revision=TEXT), {}, space)
    assert probe_evidence(flag, {"readOnlyHint": True}) is None
    flag.canary.write_text("")
    finding = probe_evidence(flag, {"readOnlyHint": True})
    assert finding is not None and finding.kind is FailureKind.ARGUMENT_INJECTION
    assert "(CWE-88) in argument 'revision'" in finding.message
    assert finding.details[0].startswith(f"evidence: {flag.canary} appeared during the call")
    assert "annotated readOnlyHint: true" in finding.details[-1]
    shells[0].canary.mkdir()
    late = probe_evidence(shells[0], {}, late=True)
    assert late is not None and late.kind is FailureKind.COMMAND_INJECTION
    assert "after the run's calls had answered" in late.details[0]
    assert len(late.details) == 2  # no annotation to contradict


def test_the_folder_is_removed_or_kept_empty_for_a_reproduction() -> None:
    gone, kept = CanarySpace(), CanarySpace()
    for made in (gone, kept):
        (made.canary(Form.FLAG)).write_text("")
        (made.canary(Form.SHELL)).mkdir()
    kept.kept = True
    gone.remove()
    kept.remove()
    assert not gone.root.exists()
    assert kept.root.is_dir() and kept.appeared() == []
    kept.kept = False
    kept.remove()


def test_the_escapes_are_laid_beside_the_boundary_and_removed(tmp_path: Path) -> None:
    from pytest_mcp_contracts.inputs.probes import EscapeSpace

    root = tmp_path / "roots"
    root.mkdir()
    escapes = EscapeSpace(root)
    escapes.lay()
    assert escapes.sibling == tmp_path / "roots_evil"
    # The outside folder shares no prefix with the boundary: a check by string prefix must
    # refuse the control.
    assert not escapes.outside.name.startswith(root.name)
    assert escapes.link_file.resolve() == escapes.secret(escapes.outside)
    assert escapes.link_folder.resolve() == escapes.outside
    space = CanarySpace()
    made = list(escapes.probes("path", {"mode": "r"}, space))
    space.remove()
    forms = [probe.form for probe in made]
    assert forms == [form for form in PATH_FORMS for _ in range(3)]  # read, list, write
    control_read, control_list, control_write = made[:3]
    assert control_read.value == str(escapes.secret(escapes.outside))
    assert control_read.token == escapes.tokens[escapes.outside] and control_read.canary is None
    assert control_list.value == str(escapes.outside)
    assert control_list.token == escapes.listed[escapes.outside]
    assert control_write.canary is not None and control_write.canary.parent == escapes.outside
    assert all(probe.arguments["mode"] == "r" for probe in made)
    # No token is in any value a refusal could quote back.
    tokens = {*escapes.tokens.values(), *escapes.listed.values()}
    assert not any(token in probe.value for probe in made for token in tokens)
    escapes.remove()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["roots"]
    assert list(root.iterdir()) == []


def test_roots_in_a_command_is_the_runs_roots_folder(tmp_path: Path) -> None:
    from pytest_mcp_contracts.transport.state import with_roots
    from pytest_mcp_contracts.transport.stdio import ServerCommand

    command = ServerCommand(("npx", "server", "{roots}"), {"DATA_DIR": "{roots}/data"})
    done = with_roots(command, tmp_path)
    assert done.argv == ("npx", "server", str(tmp_path))
    assert done.env == {"DATA_DIR": f"{tmp_path}/data"}
    plain = ServerCommand(("server",))
    assert with_roots(plain, tmp_path) is plain
