"""Inputs with a purpose: values that prove an injection by what they leave behind.

A tester that judges an injection by its payload coming back in the answer raises alarms on
every refusal that quotes its input ("Invalid ref '--output=/x'"), the fixed servers' first
of all. So each probe names a file of its own, in a folder the run owns and nobody else
writes to (``CanarySpace``), and only that file appearing counts (``judges/evidence``):

- **flag forms** (CWE-88, argument injection): ``--output=CANARY`` in a ref-, name- or
  id-like argument. A server that puts the value among a program's arguments without
  ``--end-of-options`` lets it be read as an option; git, among others, then writes the file
  (CVE-2025-68144, mcp-server-git's ``git_diff``).
- **shell forms** (CWE-78, OS command injection): ``; touch CANARY`` and its ``|``, ``&&``,
  ``$(...)`` and backtick variants, after the argument's working value, in any free-text
  argument. Only a shell runs ``touch``.

What is left alone: an argument whose name or description says it takes a command, a script
or code to run, and a tool that says it runs them: running what it is given is its purpose,
not a bug (the call policy keeps such tools, annotated destructive, from being called
anyway). The other arguments keep a working value (``base``: a valid input, with paths
pointing into the folders the server was given), so that the probed value reaches the code
that would pass it on.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from pytest_mcp_contracts.inputs.sandbox import path_kind
from pytest_mcp_contracts.schema.dialects import validator_for_schema
from pytest_mcp_contracts.transport.state import option_value

__all__ = [
    "CanarySpace",
    "EscapeSpace",
    "Form",
    "Listener",
    "Probe",
    "boundary_folders",
    "commit_folder",
    "listened",
    "probed",
    "probes",
    "runs_code",
    "url_like",
]


class Form(StrEnum):
    """How a probe carries its canary, and what its evidence proves."""

    FLAG = "flag"  # --output=CANARY read as an option: argument injection (CWE-88)
    SHELL = "shell"  # a shell ran `touch CANARY`: OS command injection (CWE-78)
    # A path outside the boundary, plainly: a server that serves it has no boundary to
    # break, and the path probes after it prove nothing (information, not a failure).
    CONTROL = "control"
    SIBLING = "sibling"  # a folder whose name extends the boundary's (CWE-22)
    CLIMB = "climb"  # BOUNDARY/../outside (CWE-22)
    LINK = "link"  # a symlink inside the boundary pointing outside it (CWE-59)
    # A URL naming a listener the run opened on 127.0.0.1: a connection to it is the tool
    # reaching the network, which openWorldHint: false rules out.
    NETWORK = "network"


PATH_FORMS: Final = (Form.CONTROL, Form.SIBLING, Form.CLIMB, Form.LINK)


@dataclass(frozen=True)
class Probe:
    """One input: ``arguments`` with ``argument`` set to ``value``. Its evidence is
    ``canary`` appearing (a file it names) or, for a read, ``token`` (the content of a file
    outside the boundary) in the answer; the server let the value through as ``form``
    says."""

    arguments: dict[str, Any]
    argument: str
    value: str
    form: Form
    canary: Path | None  # None: a read, whose evidence is ``token``
    token: str | None = None
    listener: Listener | None = None  # a URL probe's: it heard ``token`` or not


class Listener:
    """A TCP listener on 127.0.0.1 that the run opens for one check. A URL probe names it
    with a token of its own in the path; a request that carries the token is the evidence
    (a refusal quoting the URL back is not). It answers every request with an empty 200 and
    keeps at most ``MAX_HEARD`` requests' first 4 KB."""

    MAX_HEARD: Final = 64

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self._socket.settimeout(0.2)
        self.port = self._socket.getsockname()[1]
        self._heard: list[str] = []
        self._open = True
        self._thread = threading.Thread(target=self._serve, name="mcp-listener", daemon=True)
        self._thread.start()

    def url(self, token: str) -> str:
        return f"http://127.0.0.1:{self.port}/{token}"

    def heard(self, token: str) -> bool:
        return any(token in request for request in list(self._heard))

    def forget(self) -> None:
        """What it heard, forgotten: a replay must be heard anew."""
        self._heard.clear()

    def _serve(self) -> None:
        while self._open:
            try:
                connection, _ = self._socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # closed
            with connection:
                try:
                    connection.settimeout(2)
                    request = connection.recv(4096).decode("latin-1")
                except OSError:
                    continue  # a client that went away says nothing
                # Kept before the answer: once answered, the tool may answer its call, and
                # the run looks for the request as soon as it has the call's answer.
                if len(self._heard) < self.MAX_HEARD:
                    self._heard.append(request)
                with contextlib.suppress(OSError):
                    connection.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")

    def close(self) -> None:
        self._open = False
        self._socket.close()
        self._thread.join(timeout=1)


class CanarySpace:
    """A folder the run makes for itself and removes at its end: each probe's canary is a
    fresh name in it, unguessable (a random token per run), so that a file there can only
    have come from that probe."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="pytest-mcp-canaries-")).resolve()
        self._token = secrets.token_hex(4)
        self._numbers = itertools.count(1)
        # A proven injection's reproduction writes its file here again: the folder is kept.
        self.kept = False

    def canary(self, form: Form) -> Path:
        return self.root / f"{form.value}-{next(self._numbers)}-{self._token}"

    def appeared(self) -> list[Path]:
        """Every entry in the space (its probes' canaries that appeared)."""
        try:
            return sorted(self.root.iterdir())
        except OSError:
            return []

    def remove(self) -> None:
        """At the end of the run: the folder removed, or emptied and kept for a reproduction."""
        if not self.kept:
            shutil.rmtree(self.root, ignore_errors=True)
            return
        for entry in self.appeared():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


class EscapeSpace:
    """Files outside a boundary the run owns (the roots sandbox's folder), laid beside it
    for the path probes, each holding a token of its own: an outside folder, a sibling
    whose name extends the boundary's (``<root>_evil``), and symlinks inside the boundary
    pointing at the outside file and folder. The outside folder is also a git repository
    whose commit message is a token: a server that serves any repository it is named
    (CVE-2025-68145) shows it. All of it is the run's: random names or its own root's, made
    where nothing stood, removed after the probes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        # Not named after the root: a check by string prefix must refuse the control.
        self.outside = root.with_name(f"pytest-mcp-outside-{secrets.token_hex(6)}")
        self.sibling = root.with_name(root.name + "_evil")
        self.tokens = {
            self.outside: f"mcp-canary-{secrets.token_hex(8)}",
            self.sibling: f"mcp-canary-{secrets.token_hex(8)}",
        }
        # An entry named by a token of its own: only a listing of the folder shows it (the
        # probe names the folder, never the entry, so a refusal cannot quote it).
        self.listed = {folder: f"mcp-canary-{secrets.token_hex(8)}" for folder in self.tokens}
        self.link_file = root / f"link-{secrets.token_hex(3)}.txt"
        self.link_folder = root / f"linkdir-{secrets.token_hex(3)}"

    def secret(self, folder: Path) -> Path:
        return folder / "secret.txt"

    def lay(self) -> None:
        for folder, token in self.tokens.items():
            folder.mkdir()  # nothing may stand there: the run makes it, or makes nothing
            self.secret(folder).write_text(token + "\n")
        commit_folder(self.outside, self.listed[self.outside])
        for folder, name in self.listed.items():
            # After the commit: untracked, so a repository's status names it too.
            (folder / name).write_text("")
        self.links()

    def laid(self) -> list[Path]:
        """The folders laid outside and the files whose content the run wrote in them (not
        a repository's own files: git keeps those)."""
        files = [self.secret(folder) for folder in self.tokens]
        files += [folder / name for folder, name in self.listed.items()]
        return [*self.tokens, *files]

    def links(self) -> None:
        """The symlinks inside the boundary, again where a new laying of it removed them."""
        if not self.link_file.is_symlink():
            self.link_file.symlink_to(self.secret(self.outside))
        if not self.link_folder.is_symlink():
            self.link_folder.symlink_to(self.outside, target_is_directory=True)

    def remove(self) -> None:
        for link in (self.link_file, self.link_folder):
            if link.is_symlink():
                link.unlink()
        for folder in self.tokens:
            shutil.rmtree(folder, ignore_errors=True)

    def probes(self, name: str, working: Mapping[str, Any], space: CanarySpace) -> Iterator[Probe]:
        """For the path-like argument ``name``: each location read (its secret file, whose
        token would show in the answer), listed (the folder, whose entry named by a token
        would show) and written (a new name, which would appear), the control first."""
        outside, sibling = self.outside, self.sibling
        places = (
            (Form.CONTROL, outside, outside),
            (Form.SIBLING, sibling, sibling),
            (Form.CLIMB, self.root / ".." / outside.name, outside),
            (Form.LINK, self.link_folder, outside),
        )
        for form, written, real in places:
            value = str(self.link_file if form is Form.LINK else self.secret(written))
            yield Probe({**working, name: value}, name, value, form, None, self.tokens[real])
            folder = str(self.link_folder if form is Form.LINK else written)
            yield Probe({**working, name: folder}, name, folder, form, None, self.listed[real])
            canary = space.canary(form)
            made = written / canary.name
            yield Probe({**working, name: str(made)}, name, str(made), form, real / canary.name)


def commit_folder(folder: Path, message: str) -> bool:
    """Make ``folder`` a git repository of the files in it, with one commit whose message is
    ``message``; whether that was done (not without git). The run's outside folder is one,
    its message a token: a server that reads any repository it is told shows it."""
    git = shutil.which("git")
    if git is None:
        return False
    # No user or system configuration (hooks, signing) reaches this repository.
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    who = ["-c", "user.name=pytest-mcp-contracts", "-c", "user.email=canary@invalid"]
    for args in (["init", "-q"], ["add", "-A"], [*who, "commit", "-q", "-m", message]):
        done = subprocess.run([git, *args], cwd=folder, env=env, capture_output=True, check=False)
        if done.returncode != 0:
            return False
    return True


# An argument that takes code or a command by design: its name, or its description saying so.
_CODE_NAMES: Final = re.compile(
    r"^(?:cmd|cmds|command|commands|command_line|commandline|shell|script|code|source_code|"
    r"program|exec|eval|expression|expr|snippet|sql|statement)$",
    re.IGNORECASE,
)
_RUNS: Final = r"(?:run|runs|execute|executes|executed|evaluate|evaluates|eval)"
_CODE_TEXT: Final = re.compile(
    rf"\b(?:(?:shell|bash|terminal|system) command|command line|{_RUNS} (?:an? |the |any )?"
    rf"(?:arbitrary )?(?:shell |bash |terminal |system |python |javascript |sql )?"
    rf"(?:command|commands|script|scripts|code|program|query|queries|statement)|"
    rf"(?:command|script|code|program|query) to {_RUNS})\b",
    re.IGNORECASE,
)
# A value a server may hand to a program as an operand: a ref, a name, an id.
_OPERAND: Final = re.compile(
    r"(?:^|_|\b)(?:ref|refs|rev|revision|branch|branch_name|tag|commit|sha|hash|target|"
    r"base|head|source|remote|name|id|object|pathspec|version|package|module|image|"
    r"container|service|host|domain|url|pattern)$",
    re.IGNORECASE,
)
SHELL_FORMS: Final = ("{base}; touch {canary}", "{base} | touch {canary}",
                      "{base} && touch {canary}", "{base}$(touch {canary})",
                      "{base}`touch {canary}`")  # fmt: skip


# A property that takes a URL: its format, or a word of its name.
_URL_FORMATS: Final = frozenset({"uri", "iri", "url"})
_URL_WORDS: Final = frozenset(
    {"url", "urls", "endpoint", "link", "href", "webhook", "website", "feed", "callback"}
)


def url_like(name: str, sub: Mapping[str, Any]) -> bool:
    """Whether a string property takes a URL (a network probe may name the listener)."""
    kinds = sub.get("type")
    strings = kinds == "string" or (isinstance(kinds, list) and "string" in kinds)
    words = {w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name)}
    return strings and (sub.get("format") in _URL_FORMATS or bool(words & _URL_WORDS))


def listened(schema: object, annotations: Mapping[str, object]) -> list[str]:
    """The URL-like properties a network probe names the listener in: only a tool annotated
    ``openWorldHint: false`` has any, the one a connection would prove wrong."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if annotations.get("openWorldHint") is not False or not isinstance(properties, Mapping):
        return []
    return [n for n, sub in properties.items() if isinstance(sub, Mapping) and url_like(n, sub)]


def runs_code(name: str, description: str) -> bool:
    """Whether a tool or an argument says it takes code or a command to run."""
    return bool(_CODE_NAMES.match(name) or _CODE_TEXT.search(description))


def _free_text(schema: Mapping[str, Any]) -> bool:
    """A string property that may take any text: no enum, const or format fixes its values."""
    kinds = schema.get("type")
    strings = kinds == "string" or (isinstance(kinds, list) and "string" in kinds)
    fixed = any(key in schema for key in ("enum", "const", "format"))
    return strings and not fixed


def probed(schema: object) -> list[str]:
    """The properties of an inputSchema a probe may carry its canary in: free text whose
    name and description do not say it takes code. A tool without one gets no security
    item."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return []
    return [
        name
        for name, sub in properties.items()
        if isinstance(sub, Mapping)
        and _free_text(sub)
        and not runs_code(name, str(sub.get("description", "")))
    ]


def boundary_folders(argv: Sequence[str], environ: Mapping[str, str]) -> list[Path]:
    """The folders a server was given: existing folders among its command's arguments
    (``DIR`` or ``--flag=DIR``) and in its environment variables named like ``*_DIR``,
    ``*_ROOT``, ``*_PATH``. They give path-like arguments working values."""
    found: list[Path] = []
    named = [value for key, value in environ.items() if re.search(r"(?:DIR|ROOT|PATH)S?$", key)]
    for word in [*argv[1:], *named]:
        value = option_value(word)[1]
        if not value.startswith(("/", "~")) or value.startswith("-"):
            continue
        path = Path(value).expanduser()
        if path.is_dir() and path.resolve() not in found:
            found.append(path.resolve())
    return found


def _working_path(kind: str, folders: Sequence[Path]) -> str | None:
    """A path-like argument's working value: the first folder the server was given, or for
    a file a file in it."""
    for folder in folders:
        if kind != "file":
            return str(folder)
        files = sorted(p for p in folder.iterdir() if p.is_file())[:1]
        if files:
            return str(files[0])
    return None


def _network_probes(
    properties: Mapping[str, Any], working: dict[str, Any], listener: Listener
) -> Iterator[Probe]:
    """Each URL-like argument naming ``listener``, with a token of its own in the path."""
    for name, sub in properties.items():
        if isinstance(sub, Mapping) and url_like(name, sub):
            token = f"mcp-canary-{secrets.token_hex(8)}"
            url = listener.url(token)
            yield Probe({**working, name: url}, name, url, Form.NETWORK, None, token, listener)


def _required_only(schema: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with its required arguments alone, when that is still valid: a smallest
    optional value can keep a call from doing anything (git's log with ``max_count: 0``
    lists no commit, so a repository read outside shows nothing); left out, the tool's own
    default applies."""
    required = schema.get("required")
    kept = {k: v for k, v in base.items() if isinstance(required, list) and k in required}
    return kept if validator_for_schema(schema).is_valid(kept) else dict(base)


def probes(
    tool_name: str,
    tool_description: str,
    schema: Mapping[str, Any],
    base: Mapping[str, Any],
    space: CanarySpace,
    folders: Sequence[Path] = (),
    escapes: EscapeSpace | None = None,
    listener: Listener | None = None,
) -> Iterator[Probe]:
    """The probes of a tool whose inputSchema is ``schema``: for each free-text property,
    its path escapes (when it is path-like and ``escapes`` are laid), its shell forms and,
    when it looks like an operand, its flag form; the other arguments as in ``base``
    (path-like ones pointed into ``folders``). Nothing for a tool that runs code by
    design."""
    if runs_code(tool_name, tool_description):
        return
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return
    working = _required_only(schema, base)
    for name, sub in properties.items():
        kind = path_kind(name, sub) if isinstance(sub, Mapping) else None
        value = _working_path(kind, folders) if kind is not None else None
        if value is not None and (name in working or name in schema.get("required", ())):
            working[name] = value
    if listener is not None:
        yield from _network_probes(properties, working, listener)
    for name in probed(schema):
        sub = properties[name]
        if escapes is not None and path_kind(name, sub) is not None:
            yield from escapes.probes(name, working, space)
        given = working.get(name)
        start = given if isinstance(given, str) and given else "x"
        if path_kind(name, sub) is not None and Path(start).is_dir():
            # Read as a path, "DIR/.; touch C" names an entry inside the folder: a server
            # that creates what it is given makes nothing beside a folder it was given.
            start = start.rstrip("/") + "/."
        if _OPERAND.search(name) and path_kind(name, sub) is None:
            canary = space.canary(Form.FLAG)
            value = f"--output={canary}"
            yield Probe({**working, name: value}, name, value, Form.FLAG, canary)
        for shape in SHELL_FORMS:
            canary = space.canary(Form.SHELL)
            value = shape.format(base=start, canary=canary)
            yield Probe({**working, name: value}, name, value, Form.SHELL, canary)
