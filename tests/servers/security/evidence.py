"""Evidence by hand for the seeded security fixtures: for each server and both twins, lay a
fresh temporary folder of canaries, start the server over stdio with the plugin's own CLI
(`mcp-contracts call`), make the exploiting calls and print whether evidence appeared.

Evidence is only what the server could not have copied from the call: a canary token (random,
kept in a file's content or a commit message, never in a path or a payload) in the answer, or
an entry of the folder created, changed or deleted where the call had no right to. An error
that quotes the payload back is not evidence. The vulnerable twin must show evidence, the
fixed twin must not; the exit status is 1 when either does otherwise.

Run from the checkout: `/work/venv/bin/python tests/servers/security/evidence.py`. The
TypeScript fixture (ts_legacy/security_files_shell.mjs) is bundled first with esbuild from
the node_modules of tests/servers/ts_legacy (or the folder MCP_TS_MODULES names); without
them it is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mcp_contracts.inputs.probes import commit_folder

HERE = Path(__file__).resolve().parent
WORKTREE = HERE.parents[2]
CLI = Path(sys.executable).with_name("mcp-contracts")
TS_MODULES = Path(os.environ.get("MCP_TS_MODULES", HERE.parent / "ts_legacy" / "node_modules"))

Entry = tuple[str, ...]
Snapshot = dict[str, Entry]


@dataclass
class Canaries:
    """The laid-out folder: `root/allowed` is the boundary, everything else lies outside it."""

    root: Path
    tokens: dict[str, str] = field(default_factory=dict)

    @property
    def allowed(self) -> Path:
        return self.root / "allowed"

    def token_file(self, relative: str, name: str) -> None:
        token = f"CANARY-{name}-{secrets.token_hex(8)}"
        self.tokens[token] = name
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(token + "\n", encoding="utf-8")


def lay(root: Path, *, git: bool) -> Canaries:
    c = Canaries(root)
    c.allowed.mkdir()
    (c.allowed / "notes.txt").write_text("one\ntwo\n", encoding="utf-8")
    (c.allowed / "hello.txt").write_text("hello\n", encoding="utf-8")
    c.token_file("outside/secret.txt", "outside")
    c.token_file("allowed_evil/secret.txt", "sibling")
    (c.allowed / "link.txt").symlink_to(root / "outside" / "secret.txt")
    (c.allowed / "linkdir").symlink_to(root / "outside", target_is_directory=True)
    (root / "canary").mkdir()
    if git:
        _commit(c.allowed, "the allowed repository's first commit")
        token = f"CANARY-repo-{secrets.token_hex(8)}"
        c.tokens[token] = "second repository"
        (root / "other_repo").mkdir()
        (root / "other_repo" / "readme.txt").write_text("other\n", encoding="utf-8")
        _commit(root / "other_repo", token)
    return c


def _commit(folder: Path, message: str) -> None:
    if not commit_folder(folder, message):
        raise SystemExit(f"git could not commit {folder}")


def snapshot(root: Path) -> Snapshot:
    """Every entry under root, links not followed: kind and content hash or link target."""
    seen: Snapshot = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            rel = str(path.relative_to(root))
            if path.is_symlink():
                seen[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                seen[rel] = ("dir",)
            else:
                seen[rel] = ("file", hashlib.sha256(path.read_bytes()).hexdigest())
    return seen


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: Callable[[Canaries], dict[str, object]]
    read_only: bool = False
    not_destructive: bool = False
    control: bool = False  # a plainly outside path: every twin must refuse it


def _counted(shape: str, place: str, *, control: bool = False) -> Call:
    """A call of the shell fixtures' read-only count_lines, its filename ``shape`` with the
    laid-out ``place`` in it (the control: the place alone, which every twin refuses)."""
    return Call(
        "count_lines",
        lambda c: {"filename": shape.format(_p(c, place))},
        read_only=not control,
        control=control,
    )


@dataclass(frozen=True)
class Fixture:
    file: str
    cls: str
    git: bool
    calls: tuple[Call, ...]

    def command(self, c: Canaries, bundles: Path | None) -> str | None:
        """The server's command line, or None for a TypeScript one when nothing is bundled."""
        boundary = ["--repository", str(c.allowed)] if self.git else [str(c.allowed)]
        if not self.file.endswith(".mjs"):
            return shlex.join([sys.executable, str(HERE / self.file), *boundary])
        if bundles is None:
            return None
        return shlex.join(["node", str(bundles / Path(self.file).name), *boundary])


def bundle_typescript(into: Path) -> Path | None:
    """The TypeScript fixtures bundled with their SDK (as tests/fixture_builds.py bundles
    ts_legacy's), or None when that folder's node_modules is missing."""
    esbuild = TS_MODULES / ".bin" / "esbuild"
    if not esbuild.exists() or shutil.which("node") is None:
        return None
    sources = [str(HERE.parent / "ts_legacy" / "security_files_shell.mjs")]
    step = [str(esbuild), *sources, "--bundle", "--platform=node", "--format=esm"]
    step += [f"--outdir={into}", "--out-extension:.js=.mjs", "--log-level=warning"]
    # NODE_PATH: for a node_modules other than ts_legacy's own (MCP_TS_MODULES).
    env = {**os.environ, "NODE_PATH": str(TS_MODULES)}
    subprocess.run(step, env=env, check=True, capture_output=True)
    return into


def _p(c: Canaries, rel: str) -> str:
    return str(c.root / rel)


FIXTURES = (
    Fixture(
        "files_prefix.py",
        "CWE-22 sibling prefix",
        False,
        (
            Call("read_text_file", lambda c: {"path": _p(c, "outside/secret.txt")}, control=True),
            Call("read_text_file", lambda c: {"path": _p(c, "allowed_evil/secret.txt")}),
            Call("list_directory", lambda c: {"path": _p(c, "allowed_evil")}),
            Call(
                "write_file",
                lambda c: {"path": _p(c, "allowed_evil/made.txt"), "content": "x"},
                not_destructive=True,
            ),
        ),
    ),
    Fixture(
        "files_symlink.py",
        "CWE-59 symlink followed",
        False,
        (
            Call("read_text_file", lambda c: {"path": _p(c, "outside/secret.txt")}, control=True),
            Call("read_text_file", lambda c: {"path": str(c.allowed / "link.txt")}),
            Call(
                "write_file",
                lambda c: {"path": str(c.allowed / "linkdir" / "made.txt"), "content": "x"},
                not_destructive=True,
            ),
        ),
    ),
    Fixture(
        "git_repo.py",
        "CWE-22 repo_path unconfined",
        True,
        (
            Call("git_log", lambda c: {"repo_path": _p(c, "other_repo"), "max_count": 5}),
            Call("git_init", lambda c: {"repo_path": _p(c, "canary/new_repo")}),
        ),
    ),
    Fixture(
        "git_refs.py",
        "CWE-88 ref as a git option",
        True,
        (
            Call(
                "git_diff",
                lambda c: {"repo_path": str(c.allowed), "target": "--output=" + _p(c, "canary/d")},
                read_only=True,
            ),
            Call(
                "git_show",
                lambda c: {
                    "repo_path": str(c.allowed),
                    "revision": "--output=" + _p(c, "canary/s"),
                },
                read_only=True,
            ),
        ),
    ),
    Fixture(
        "shell_exec.py",
        "CWE-78 shell injection",
        False,
        (
            _counted("{}", "outside/secret.txt", control=True),
            _counted("notes.txt; cat {}", "outside/secret.txt"),
            _counted("notes.txt && touch {}", "canary/and"),
            _counted("$(touch {})notes.txt", "canary/subst"),
        ),
    ),
    Fixture(
        "security_files_shell.mjs",
        "TypeScript SDK: CWE-22 sibling prefix, CWE-78 shell injection",
        False,
        (
            Call("read_text_file", lambda c: {"path": _p(c, "outside/secret.txt")}, control=True),
            Call("read_text_file", lambda c: {"path": _p(c, "allowed_evil/secret.txt")}),
            _counted("{}", "outside/secret.txt", control=True),
            _counted("notes.txt; cat {}", "outside/secret.txt"),
            _counted("`touch {}`notes.txt", "canary/tick"),
        ),
    ),
    Fixture(
        "readonly_writes.py",
        "lying annotations",
        False,
        (
            Call("get_note", lambda c: {"name": "hello"}, read_only=True),
            Call("archive_note", lambda c: {"name": "hello"}, not_destructive=True),
        ),
    ),
)


def call(command: str, c: Canaries, one: Call, fixed: bool) -> str:
    env = {**os.environ, "PYTHONPATH": str(WORKTREE)}
    env.pop("MCP_FIXTURE_FIXED", None)
    if fixed:
        env["MCP_FIXTURE_FIXED"] = "1"
    done = subprocess.run(
        [
            str(CLI),
            "call",
            f"--server={command}",
            one.tool,
            json.dumps(one.arguments(c)),
        ],
        cwd=c.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.stdout + done.stderr


def evidence(c: Canaries, one: Call, answer: str, before: Snapshot, after: Snapshot) -> list[str]:
    found = [
        f"token of {name} in the answer" for token, name in c.tokens.items() if token in answer
    ]
    changed = sorted(k for k in before.keys() & after.keys() if before[k] != after[k])
    created = sorted(after.keys() - before.keys())
    deleted = sorted(before.keys() - after.keys())
    outside = [p for p in created + changed + deleted if not p.startswith("allowed" + os.sep)]
    found += [f"outside the boundary: {p}" for p in _tops(outside) if p != "allowed"]
    if one.read_only:
        found += [
            f"read-only tool wrote: {p}" for p in _tops(created + changed) if p not in outside
        ]
    if one.not_destructive:
        found += [f"non-destructive tool deleted: {p}" for p in _tops(deleted) if p not in outside]
    return found


def _tops(paths: list[str]) -> list[str]:
    """The paths not under another one of them, each with how many entries it stands for."""
    tops = [p for p in paths if not any(p.startswith(q + os.sep) for q in paths)]
    counts = {t: sum(p == t or p.startswith(t + os.sep) for p in paths) for t in tops}
    return [t if counts[t] == 1 else f"{t} (+{counts[t] - 1} under it)" for t in tops]


def _text(answer: str) -> str:
    """What the server said, on one line: the first content text, else the CLI's output."""
    for line in answer.splitlines():
        try:
            content = json.loads(line).get("result", {}).get("content", [])
        except (ValueError, AttributeError):
            continue
        if content and content[0].get("type") == "text":
            return " ".join(str(content[0]["text"]).split())
    return " ".join(answer.split())


def main() -> int:
    wrong = 0
    built = Path(tempfile.mkdtemp(prefix="mcp-evidence-ts-"))
    try:
        bundles = bundle_typescript(built)
        for fixture in FIXTURES:
            wrong += show(fixture, bundles)
    finally:
        shutil.rmtree(built)
    print("all as expected" if not wrong else f"{wrong} unexpected")
    return 1 if wrong else 0


def show(fixture: Fixture, bundles: Path | None) -> int:
    """Both twins of one fixture, printed; returns how many results were not as expected."""
    wrong = 0
    for fixed in (False, True):
        twin = "fixed" if fixed else "vulnerable"
        print(f"== {fixture.file} ({fixture.cls}), {twin} twin")
        root = Path(tempfile.mkdtemp(prefix="mcp-evidence-")).resolve()
        try:
            c = lay(root, git=fixture.git)
            command = fixture.command(c, bundles)
            if command is None:
                print(f"  skipped: no esbuild in {TS_MODULES} (set MCP_TS_MODULES)")
                continue
            shown = False
            for one in fixture.calls:
                before = snapshot(root)
                answer = call(command, c, one, fixed)
                found = evidence(c, one, answer, before, snapshot(root))
                if '"tool"' not in answer:
                    found.append("NO ANSWER: " + answer.strip()[-200:])
                    wrong += 1
                if one.control:
                    wrong += bool(found)
                else:
                    shown = shown or bool(found)
                # $T: the temporary folder, so the lines read the same on every run.
                arguments = json.dumps(one.arguments(c)).replace(str(root), "$T")
                said = _text(answer).replace(str(root), "$T")
                print(f"  {'control ' if one.control else ''}{one.tool} {arguments}")
                print(f"    answer:   {said[:100]}")
                print(f"    evidence: {'; '.join(found) or '-'}")
            ok = shown != fixed
            wrong += not ok
            print(
                f"  => evidence {'shown' if shown else 'none'} ({'as expected' if ok else 'WRONG'})"
            )
        finally:
            shutil.rmtree(root)
    return wrong


if __name__ == "__main__":
    sys.exit(main())
