"""The servers a client's own config file names, as targets of a run (``--mcp-config``).

Four formats, told apart by their keys (and ``.toml`` for Codex):

* ``{"mcpServers": {NAME: {...}}}``: Claude Desktop, Cursor (``.cursor/mcp.json``),
  Windsurf (``mcp_config.json``, whose remote entries say ``serverUrl``) and Claude Code
  (``.mcp.json``, whose entries carry ``type``);
* ``{"servers": {NAME: {...}}, "inputs": [...]}``: VS Code (``.vscode/mcp.json``);
* ``[mcp_servers.NAME]`` tables: Codex (``~/.codex/config.toml``).

Each entry becomes a stdio command (``command``, ``args``, ``env``, ``envFile``, ``cwd``)
or a Streamable HTTP target (``url``, ``headers``) under its name. In the JSON formats,
``${env:VAR}``, ``${VAR}`` and ``${VAR:-default}`` are read from the environment (VS Code,
Cursor and Windsurf write the first, Claude Code the others), ``${workspaceFolder}`` and
``${userHome}`` are the folders VS Code means by them, and ``${input:ID}`` (an answer VS
Code would prompt for) is read from ``MCP_INPUT_<ID>``; a bare ``$VAR`` is left alone, as
those clients leave it. Codex expands nothing: it names variables in ``env_vars``,
``bearer_token_env_var`` and ``env_http_headers``.

Nothing read from the environment, an env file or an input is ever put in a message: errors
name the file, the key and the variable, never a value.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import re
import shlex
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_mcp_contracts.transport.http import HeaderError, ServerUrl, parse_header
from pytest_mcp_contracts.transport.stdio import ServerCommand

# Where an ``${input:ID}`` is answered from: VS Code prompts for it, a test run cannot.
INPUT_PREFIX: Final = "MCP_INPUT_"
_PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
# The spellings of each transport in the formats' ``type`` (Codex has none: url or command).
_STDIO_TYPES: Final = ("stdio",)
_HTTP_TYPES: Final = ("http", "streamable-http", "streamableHttp", "streamable_http")
_SSE_TYPES: Final = ("sse",)
FORMATS: Final = (
    '"mcpServers" (Claude Desktop, Cursor, Windsurf, Claude Code\'s .mcp.json)',
    '"servers" (VS Code\'s mcp.json)',
)


class ClientConfigError(ValueError):
    """A client config file that cannot be used: one line naming the file, the key and what
    was expected."""


@dataclass(frozen=True)
class ConfiguredCommand(ServerCommand):
    """A stdio server read from a client config: started with its resolved values, shown
    with its arguments as the file writes them (a placeholder, not the secret it stands for),
    and named by its key in the file."""

    name: str = ""
    written: tuple[str, ...] = ()
    file: str = ""  # the config file it was read from

    @property
    def display(self) -> str:
        return shlex.join(self.written or self.argv)

    @property
    def call_flags(self) -> tuple[str, ...]:
        """The file and the name: its resolved values may be secrets, and its written ones
        placeholders that only the file's own resolution answers."""
        return _call_flags(self.file, self.name) or super().call_flags

    @property
    def label(self) -> str:
        return self.name or super().label


@dataclass(frozen=True)
class ConfiguredUrl(ServerUrl):
    """A Streamable HTTP server read from a client config, named by its key in the file.
    Its header values stay unexpanded (``${VAR}``): the transport reads them from the
    environment when it connects, as it does for ``--mcp-header``."""

    name: str = ""
    file: str = ""  # the config file it was read from

    @property
    def label(self) -> str:
        return self.name or super().label

    @property
    def call_flags(self) -> tuple[str, ...]:
        return _call_flags(self.file, self.name) or super().call_flags


Configured = ConfiguredCommand | ConfiguredUrl


def _call_flags(file: str, name: str) -> tuple[str, ...]:
    if not (file and name):
        return ()
    with contextlib.suppress(ValueError):  # shown from where the run was started, if inside
        file = str(Path(file).relative_to(Path.cwd()))
    return (f"--config={file}", f"--config-server={name}")


def configured_name(target: object) -> str:
    """The name a client config gives ``target``; "" for a target named otherwise."""
    return target.name if isinstance(target, ConfiguredCommand | ConfiguredUrl) else ""


def read_configs(
    files: Sequence[Path], picked: Sequence[str], environ: Mapping[str, str], *, home: Path
) -> tuple[Configured, ...]:
    """Every server of ``files``, in order (only those named in ``picked``, when some are);
    an entry switched off in its file (``disabled: true``, Codex's ``enabled = false``) runs
    only when picked by name. Only the servers that run are read further: a variable that
    another entry needs and this run does not is not asked for."""
    listed = [entry for path in files for entry in _read_one(path, environ, home)]
    known = [entry.name for entry in listed]
    unknown = [name for name in picked if name not in known]
    if unknown:
        where = ", ".join(str(path) for path in files)
        raise ClientConfigError(
            f"--mcp-config-server {unknown[0]}: no server of that name in {where}; "
            f"its servers: {', '.join(known) or 'none'}"
        )
    runs = [e for e in listed if e.name in picked] if picked else [e for e in listed if not e.off]
    return tuple(dataclasses.replace(entry.build(), file=str(entry.path)) for entry in runs)


@dataclass(frozen=True)
class _Listed:
    """An entry of a file, read into a target only if it runs."""

    path: Path
    name: str
    off: bool  # switched off in the file
    build: Callable[[], Configured]


def _read_one(path: Path, environ: Mapping[str, str], home: Path) -> list[_Listed]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ClientConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    if path.suffix.lower() == ".toml":
        return _codex(path, text, environ)
    data = _json(path, text)
    if isinstance(data.get("mcpServers"), dict):
        key, servers = "mcpServers", data["mcpServers"]
    elif isinstance(data.get("servers"), dict):
        key, servers = "servers", data["servers"]
    elif isinstance(data.get("mcp"), dict) and isinstance(data["mcp"].get("servers"), dict):
        key, servers = "mcp.servers", data["mcp"]["servers"]  # VS Code's settings.json
    else:
        found = ", ".join(json.dumps(k) for k in list(data)[:8]) or "none"
        raise ClientConfigError(
            f"{path}: expected a top-level {' or '.join(FORMATS)} object; its keys: {found}"
        )
    workspace = _workspace(path)
    values = _Values(path, environ, workspace, home, _inputs(path, data.get("inputs")))
    return _entries(path, key, servers, lambda name, spec: _json_entry(values, key, name, spec))


def _entries(
    path: Path,
    key: str,
    servers: Mapping[str, Any],
    build: Callable[[str, dict[str, Any]], Configured],
) -> list[_Listed]:
    if not servers:
        raise ClientConfigError(f"{path}: {key}: expected at least one server, found none")
    out = []
    for name, spec in servers.items():
        if not isinstance(spec, dict):
            raise ClientConfigError(f"{path}: {_at(key, name)}: expected an object (a table)")
        off = spec.get("disabled") is True or spec.get("enabled") is False
        out.append(_Listed(path, name, off, functools.partial(build, name, spec)))
    return out


def _json(path: Path, text: str) -> dict[str, Any]:
    """A JSON object; comments and trailing commas allowed, as VS Code and Cursor allow them
    in their mcp.json."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = json.loads(_without_comments(text))
        except json.JSONDecodeError as exc:
            raise ClientConfigError(
                f"{path}: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
            ) from None
    if not isinstance(data, dict):
        raise ClientConfigError(f"{path}: expected a JSON object at the top level")
    return data


def _without_comments(text: str) -> str:
    """JSON with comments (``//``, ``/* */``) and trailing commas, as plain JSON; strings
    untouched."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(c)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def _workspace(path: Path) -> Path:
    """The folder ``${workspaceFolder}`` and a relative ``cwd`` mean: the project that holds
    ``.vscode/mcp.json``, ``.cursor/mcp.json`` or ``.codex/config.toml``, else the file's own
    folder (``.mcp.json`` lies in the project)."""
    folder = path.resolve().parent
    return folder.parent if folder.name in (".vscode", ".cursor", ".codex") else folder


def _inputs(path: Path, raw: Any) -> dict[str, dict[str, Any]]:
    if raw is None:
        return {}
    if not isinstance(raw, list) or not all(isinstance(i, dict) and "id" in i for i in raw):
        raise ClientConfigError(f"{path}: inputs: expected a list of objects with an id")
    return {str(item["id"]): item for item in raw}


def input_variable(input_id: str) -> str:
    """The environment variable that answers ``${input:ID}``: ``MCP_INPUT_`` and the id in
    capitals, anything but letters and digits as ``_`` (``api-key`` -> ``MCP_INPUT_API_KEY``)."""
    return INPUT_PREFIX + re.sub(r"[^A-Za-z0-9]", "_", input_id).upper()


@dataclass(frozen=True)
class _Values:
    """How placeholders of one JSON file are read."""

    path: Path
    environ: Mapping[str, str]
    workspace: Path
    home: Path
    inputs: dict[str, dict[str, Any]]

    def resolve(self, text: str, where: str) -> str:
        """``text`` with every placeholder replaced by its value."""
        return _PLACEHOLDER.sub(lambda m: self._value(m.group(1), where, as_reference=False), text)

    def reference(self, text: str, where: str) -> str:
        """``text`` with every placeholder that reads the environment as ``${VAR}``, which
        the HTTP transport reads when it connects (a header's value never sits in the
        settings), and the others replaced by their values."""
        return _PLACEHOLDER.sub(lambda m: self._value(m.group(1), where, as_reference=True), text)

    def _value(self, inner: str, where: str, *, as_reference: bool) -> str:
        fixed = {
            "workspaceFolder": str(self.workspace),
            "workspaceFolderBasename": self.workspace.name,
            "userHome": str(self.home),
            "pathSeparator": "/",
            "/": "/",
        }
        if inner in fixed:
            return fixed[inner]
        kind, colon, rest = inner.partition(":")
        if colon and kind == "env":
            return self._variable(rest, where, as_reference=as_reference)
        if colon and kind == "input":
            return self._input(rest, where, as_reference=as_reference)
        name, default_sep, default = inner.partition(":-")
        if _NAME.fullmatch(name):
            if default_sep and not self.environ.get(name):
                return default
            return self._variable(name, where, as_reference=as_reference)
        raise ClientConfigError(
            f"{self.path}: {where}: unknown variable ${{{inner}}}; expected ${{env:VAR}}, "
            "${VAR}, ${VAR:-default}, ${input:ID}, ${workspaceFolder} or ${userHome}"
        )

    def _variable(self, name: str, where: str, *, as_reference: bool) -> str:
        if not _NAME.fullmatch(name):
            raise ClientConfigError(f"{self.path}: {where}: ${{env:{name}}} names no variable")
        if name not in self.environ:
            raise ClientConfigError(
                f"{self.path}: {where}: the environment variable {name} is not set"
            )
        return f"${{{name}}}" if as_reference else self.environ[name]

    def _input(self, input_id: str, where: str, *, as_reference: bool) -> str:
        variable = input_variable(input_id)
        if variable in self.environ:
            return f"${{{variable}}}" if as_reference else self.environ[variable]
        declared = self.inputs.get(input_id, {})
        if isinstance(declared.get("default"), str):
            return str(declared["default"])
        what = f" ({declared['description']})" if declared.get("description") else ""
        raise ClientConfigError(
            f"{self.path}: {where}: ${{input:{input_id}}}{what} is an answer the client "
            f"prompts for, and a test run cannot: set the environment variable {variable}"
        )


def _at(key: str, *names: str) -> str:
    """A key path as the file spells it: ``mcpServers.github.env.TOKEN``, a name with other
    characters quoted (``servers."my server"``)."""
    return ".".join([key, *(n if _BARE_KEY.fullmatch(n) else json.dumps(n) for n in names)])


def _json_entry(values: _Values, key: str, name: str, spec: dict[str, Any]) -> Configured:
    path = values.path
    at = _at(key, name)
    kind = _transport(path, at, spec, spec.get("type", spec.get("transport")))
    if kind == "stdio":
        command = _string(path, f"{at}.command", spec["command"])
        args = _strings(path, f"{at}.args", spec.get("args", []))
        written = (command, *args)
        argv = tuple(
            values.resolve(word, f"{at}.{'command' if i == 0 else 'args'}")
            for i, word in enumerate(written)
        )
        env: dict[str, str] = {}
        if spec.get("envFile") is not None:
            where = f"{at}.envFile"
            written_file = _string(path, where, spec["envFile"])
            env_file = values.workspace / values.resolve(written_file, where)
            env.update(_env_file(path, where, env_file, written_file))
        for var, raw in _table(path, f"{at}.env", spec.get("env", {})).items():
            where = f"{at}.env.{var}"
            env[var] = values.resolve(_env_value(path, where, raw), where)
        cwd = _cwd(path, f"{at}.cwd", spec.get("cwd"), values.workspace, values.resolve)
        # Shown as written: a placeholder is a name, the value it stands for may be a secret.
        target: Configured = ConfiguredCommand(argv, env, cwd, name=name, written=written)
    else:
        url_key = "url" if "url" in spec else "serverUrl"
        url = values.resolve(_string(path, f"{at}.{url_key}", spec[url_key]), f"{at}.{url_key}")
        headers = [
            (
                header,
                values.reference(
                    _string(path, f"{at}.headers.{header}", raw), f"{at}.headers.{header}"
                ),
            )
            for header, raw in _table(path, f"{at}.headers", spec.get("headers", {})).items()
        ]
        target = _url(path, at, url_key, url, headers, name)
    return target


def _transport(path: Path, at: str, spec: dict[str, Any], declared: Any) -> str:
    """ "stdio" or "http", from the entry's type and keys; anything else one clear error."""
    has_url = "url" in spec or "serverUrl" in spec
    if declared is not None:
        if declared in _SSE_TYPES:
            raise ClientConfigError(
                f"{path}: {at}.type: an SSE server (the deprecated HTTP+SSE transport) is not "
                "supported: pytest-mcp-contracts speaks stdio and Streamable HTTP; point it at "
                "the server's Streamable HTTP endpoint (type http, usually /mcp)"
            )
        if declared not in (*_STDIO_TYPES, *_HTTP_TYPES):
            allowed = ", ".join((*_STDIO_TYPES, *_HTTP_TYPES[:2], *_SSE_TYPES))
            raise ClientConfigError(
                f"{path}: {at}.type: expected one of {allowed}, got {json.dumps(declared)}"
            )
    if "command" in spec and has_url:
        raise ClientConfigError(
            f"{path}: {at}: expected either command (a stdio server) or url (an HTTP "
            "server), not both"
        )
    if "command" in spec:
        if declared in _HTTP_TYPES:
            raise ClientConfigError(f"{path}: {at}: type {declared} expects a url, not a command")
        return "stdio"
    if has_url:
        if declared in _STDIO_TYPES:
            raise ClientConfigError(f"{path}: {at}: type stdio expects a command, not a url")
        return "http"
    raise ClientConfigError(
        f"{path}: {at}: expected a command (a stdio server) or a url (an HTTP server); "
        f"it has neither (its keys: {', '.join(spec) or 'none'})"
    )


def _url(
    path: Path, at: str, url_key: str, url: str, headers: list[tuple[str, str]], name: str
) -> ConfiguredUrl:
    try:
        parsed = ServerUrl.parse(url)
    except ValueError as exc:
        raise ClientConfigError(f"{path}: {at}.{url_key}: {exc}") from None
    if re.search(r"/sse(/|$)", parsed.url.split("?", 1)[0]):
        raise ClientConfigError(
            f"{path}: {at}.{url_key}: an SSE endpoint (its path ends in /sse) is not "
            "supported: pytest-mcp-contracts speaks Streamable HTTP; use the server's "
            "Streamable HTTP endpoint (usually /mcp)"
        )
    for header, _ in headers:
        try:
            parse_header(f"{header}: -")
        except HeaderError:
            raise ClientConfigError(
                f"{path}: {at}.headers: {json.dumps(header)} is no HTTP header name"
            ) from None
    return ConfiguredUrl(parsed.url, tuple(headers), name=name)


def _codex(path: Path, text: str, environ: Mapping[str, str]) -> list[_Listed]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ClientConfigError(f"{path}: not TOML ({exc})") from None
    servers = data.get("mcp_servers")
    if not isinstance(servers, dict):
        raise ClientConfigError(
            f"{path}: expected [mcp_servers.NAME] tables (Codex's config.toml); found none"
        )
    return _entries(
        path, "mcp_servers", servers, lambda name, spec: _codex_entry(path, environ, name, spec)
    )


def _codex_entry(
    path: Path, environ: Mapping[str, str], name: str, spec: dict[str, Any]
) -> Configured:
    at = _at("mcp_servers", name)
    kind = _transport(path, at, spec, None)
    if kind == "stdio":
        command = _string(path, f"{at}.command", spec["command"])
        args = _strings(path, f"{at}.args", spec.get("args", []))
        env = {
            var: _env_value(path, f"{at}.env.{var}", raw)
            for var, raw in _table(path, f"{at}.env", spec.get("env", {})).items()
        }
        # env_vars names variables Codex passes on from its own environment; a server
        # started here inherits the whole environment anyway.
        _strings(path, f"{at}.env_vars", spec.get("env_vars", []))
        cwd = _cwd(path, f"{at}.cwd", spec.get("cwd"), _workspace(path), lambda text, _: text)
        target: Configured = ConfiguredCommand((command, *args), env, cwd, name=name)
    else:
        url = _string(path, f"{at}.url", spec["url"])
        headers = list(_table(path, f"{at}.http_headers", spec.get("http_headers", {})).items())
        headers = [(h, _string(path, f"{at}.http_headers.{h}", v)) for h, v in headers]
        named = {
            h: _string(path, f"{at}.env_http_headers.{h}", v)
            for h, v in _table(
                path, f"{at}.env_http_headers", spec.get("env_http_headers", {})
            ).items()
        }
        if spec.get("bearer_token_env_var") is not None:
            variable = _string(path, f"{at}.bearer_token_env_var", spec["bearer_token_env_var"])
            named_bearer = (f"{at}.bearer_token_env_var", variable)
        else:
            named_bearer = None
        for where, variable in [
            *((f"{at}.env_http_headers.{h}", v) for h, v in named.items()),
            *([named_bearer] if named_bearer else []),
        ]:
            if not _NAME.fullmatch(variable) or variable not in environ:
                raise ClientConfigError(
                    f"{path}: {where}: the environment variable {variable} is not set"
                )
        headers += [(h, f"${{{v}}}") for h, v in named.items()]
        if named_bearer:
            headers.append(("Authorization", f"Bearer ${{{named_bearer[1]}}}"))
        target = _url(path, at, "url", url, headers, name)
    return target


def _string(path: Path, where: str, raw: Any) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise ClientConfigError(f"{path}: {where}: expected a non-empty string")
    return raw


def _strings(path: Path, where: str, raw: Any) -> list[str]:
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
        raise ClientConfigError(f"{path}: {where}: expected a list of strings")
    return list(raw)


def _table(path: Path, where: str, raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ClientConfigError(f"{path}: {where}: expected an object of names and values")
    return raw


def _env_value(path: Path, where: str, raw: Any) -> str:
    """An environment value: a string, or a number or boolean the client would pass as text."""
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, str | int | float):
        return str(raw)
    raise ClientConfigError(f"{path}: {where}: expected a string")


def _cwd(
    path: Path, where: str, raw: Any, workspace: Path, resolve: Callable[[str, str], str]
) -> str | None:
    """The folder a server starts in, relative to the workspace; None: the run's own."""
    if raw is None:
        return None
    written = _string(path, where, raw)
    folder = workspace / resolve(written, where)
    if not folder.is_dir():
        # Named as written: its value may hold what a placeholder read from the environment.
        raise ClientConfigError(f"{path}: {where}: {json.dumps(written)} names no folder")
    return str(folder)


def _env_file(path: Path, where: str, env_file: Path, written: str) -> dict[str, str]:
    """``KEY=value`` lines (``export`` allowed, ``#`` comments, values optionally quoted).
    Named as written in errors, as a folder is (``_cwd``)."""
    try:
        text = env_file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ClientConfigError(
            f"{path}: {where}: {json.dumps(written)} cannot be read ({exc.strerror})"
        ) from None
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.removeprefix("export ").partition("=")
        key = key.strip()
        if not sep or not _NAME.fullmatch(key):
            raise ClientConfigError(
                f"{path}: {where}: {json.dumps(written)} line {number}: expected KEY=value"
            )
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        env[key] = value
    return env
