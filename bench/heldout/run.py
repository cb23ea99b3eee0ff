"""The held-out set: published MCP servers, installed at pinned versions, tested with the
plugin's defaults as a new user would, and scored against the failures judged by hand.

    python bench/heldout/run.py --half measuring
    PYTHONPATH=/path/to/old/tree python bench/heldout/run.py --half all   # an older plugin
    python bench/heldout/run.py --report-only OUT                         # score a past run

Standard library only: it must run on a machine where nothing but Python, pip and npm is
known to work. See bench/heldout/README.md for the split, the judging and the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_CACHE = Path.home() / ".cache" / "pytest-mcp-contracts" / "heldout"
HALVES = ("tuning", "measuring")
NODE_PREFIX = "mcp:"


@dataclass(frozen=True)
class Server:
    """One entry of servers.toml."""

    name: str
    registry: str  # "pypi" or "npm"
    package: str
    version: str
    language: str
    sdk: str
    command: str
    half: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    # Extra requirements pinned beside the package (an SDK generation the package does
    # not pin itself), and folders and files laid in {tmp} before the server starts.
    pins: tuple[str, ...] = ()
    python: str = ""
    mkdir: tuple[str, ...] = ()
    setup: tuple[tuple[str, ...], ...] = ()
    notes: str = ""

    @property
    def spec(self) -> str:
        if self.registry == "npm":
            return f"{self.package}@{self.version}"
        return f"{self.package}=={self.version}"


def load_servers(path: Path) -> list[Server]:
    with path.open("rb") as f:
        data = tomllib.load(f)
    servers = []
    for raw in data["server"]:
        servers.append(
            Server(
                name=raw["name"],
                registry=raw["registry"],
                package=raw["package"],
                version=raw["version"],
                language=raw["language"],
                sdk=raw["sdk"],
                command=raw["command"],
                half=raw["half"],
                args=tuple(raw.get("args", ())),
                env=dict(raw.get("env", {})),
                pins=tuple(raw.get("pins", ())),
                python=raw.get("python", ""),
                mkdir=tuple(raw.get("mkdir", ())),
                setup=tuple(tuple(step) for step in raw.get("setup", ())),
                notes=raw.get("notes", ""),
            )
        )
    names = [s.name for s in servers]
    if len(set(names)) != len(names):
        raise SystemExit("servers.toml: two entries share a name")
    for server in servers:
        if server.half not in HALVES or server.registry not in ("pypi", "npm"):
            raise SystemExit(f"servers.toml: {server.name}: bad half or registry")
    return servers


# --- install -----------------------------------------------------------------------------


def install_dir(cache: Path, server: Server) -> Path:
    return cache / ("py" if server.registry == "pypi" else "npm") / server.name


def bin_dir(cache: Path, server: Server) -> Path:
    base = install_dir(cache, server)
    return base / "venv" / "bin" if server.registry == "pypi" else base / "node_modules" / ".bin"


def find_python(version: str) -> str | None:
    """An interpreter of this version ("3.12") that really runs: a pyenv shim on PATH may
    name a version it then refuses to start."""
    candidates = [shutil.which(f"python{version}") or ""]
    candidates += sorted(
        str(p) for p in Path.home().glob(f".pyenv/versions/{version}*/bin/python{version}")
    )
    for candidate in filter(None, candidates):
        done = subprocess.run([candidate, "-c", "pass"], capture_output=True, check=False)
        if done.returncode == 0:
            return candidate
    return None


def install(cache: Path, server: Server, log: Path) -> str | None:
    """Install once; a marker holding what was asked for says it is done. None when it is
    installed, else why not."""
    base = install_dir(cache, server)
    wanted = " ".join([server.spec, *server.pins, server.python])
    marker = base / ".installed"
    if marker.exists() and marker.read_text() == wanted:
        return None
    if base.exists():
        shutil.rmtree(base)
    base.mkdir(parents=True)
    if server.registry == "pypi":
        python = find_python(server.python) if server.python else sys.executable
        if python is None:
            return f"no working python{server.python} found"
        steps = [
            [python, "-m", "venv", str(base / "venv")],
            [
                str(base / "venv" / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "-q",
                server.spec,
                *server.pins,
            ],
        ]
    else:
        steps = [
            [
                "npm",
                "install",
                "--prefix",
                str(base),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                server.spec,
            ]
        ]
    with log.open("a") as out:
        for step in steps:
            out.write(f"$ {shlex.join(step)}\n")
            out.flush()
            done = subprocess.run(step, stdout=out, stderr=subprocess.STDOUT, check=False)
            if done.returncode != 0:
                return f"{step[0]} exited {done.returncode} (see {log})"
    marker.write_text(wanted)
    return None


def installed_versions(cache: Path, server: Server) -> dict[str, str]:
    """The SDK versions the install resolved to: what the run really tested."""
    base = install_dir(cache, server)
    found: dict[str, str] = {}
    if server.registry == "pypi":
        for site in (base / "venv" / "lib").glob("python*/site-packages"):
            for dist in site.glob("*.dist-info"):
                name, _, version = dist.name[: -len(".dist-info")].partition("-")
                if name.lower().replace("_", "-") in ("mcp", "fastmcp", "mcp-types"):
                    found[name.lower()] = version
    else:
        for manifest in (base / "node_modules").glob("**/@modelcontextprotocol/sdk/package.json"):
            version = json.loads(manifest.read_text()).get("version", "?")
            where = manifest.parent.parent.parent.relative_to(base / "node_modules")
            found[f"sdk ({where})" if str(where) != "." else "sdk"] = version
    return found


# --- run ---------------------------------------------------------------------------------


def expand(text: str, values: Mapping[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def server_command(server: Server, values: Mapping[str, str]) -> str:
    argv = [expand(server.command, values), *(expand(a, values) for a in server.args)]
    env = [f"{k}={expand(v, values)}" for k, v in server.env.items()]
    # The environment rides on the command (`env K=V cmd`), as a user's CI step would
    # write it, so the plugin's restarts and replays start the server with it too.
    return shlex.join(["env", *env, *argv] if env else argv)


def run_one(cache: Path, server: Server, out: Path, options: argparse.Namespace) -> dict[str, Any]:
    """Run the plugin against one server in a fresh temporary folder; returns meta."""
    folder = out / server.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"heldout-{server.name}-"))
    values = {
        "tmp": str(tmp),
        "bin": str(bin_dir(cache, server)),
        "install": str(install_dir(cache, server)),
    }
    for sub in server.mkdir:
        (tmp / expand(sub, values)).mkdir(parents=True, exist_ok=True)
    for step in server.setup:
        subprocess.run([expand(a, values) for a in step], cwd=tmp, check=True, capture_output=True)
    command = server_command(server, values)
    report = tmp / "report.json"
    argv = [
        options.python,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        # pytest-randomly, where the interpreter has it (a dev install does), would shuffle
        # the items and reseed per test: a user's plain install has neither.
        "-p",
        "no:randomly",
        f"--mcp-server={command}",
        f"--mcp-report={report}",
        f"--hypothesis-seed={options.seed}",
    ]
    if options.xdist:
        argv += ["-n", str(options.xdist)]
    started = time.monotonic()
    with (folder / "pytest.txt").open("w") as log:
        log.write(f"$ (cd {tmp} && {shlex.join(argv)})\n")
        log.flush()
        process = subprocess.Popen(
            ["nice", "-n", str(options.nice), *argv],
            cwd=tmp,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            status: int | str = process.wait(timeout=options.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            status = "timeout"
    elapsed = time.monotonic() - started
    if report.exists():
        shutil.copy(report, folder / "report.json")
    meta = {
        "name": server.name,
        "spec": server.spec,
        "half": server.half,
        "command": command,
        "pytest": argv[1:],
        "exit": status,
        "seconds": round(elapsed, 1),
        "installed": installed_versions(cache, server),
        "plugin_python": options.python,
        "pythonpath": os.environ.get("PYTHONPATH", ""),
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    if not options.keep_tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return meta


# --- score -------------------------------------------------------------------------------


def failed_items(report: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(node id, first line of its message) of every failed check of a run report, the
    walk the plugin's own runreport.failed_checks makes (repeated: stdlib only)."""
    for server in report.get("servers", []):
        node = f"{NODE_PREFIX}{server['node_name']}"
        if not server.get("started"):
            yield node, _first(str(server.get("error", ""))) or "did not start"
            continue
        for own, key in (
            ("stdout", "stdout"),
            ("sequences", "sequences"),
            ("protocol", "protocol_check"),
        ):
            check = server.get(key)
            if check and check.get("outcome") == "failed":
                yield f"{node}::{own}", _first(check.get("message", ""))
        for subject in [*server.get("tools", []), *server.get("listed", [])]:
            for name, check in subject.get("checks", {}).items():
                if check.get("outcome") == "failed":
                    yield (
                        f"{node}::{subject['node_name']}::{name}",
                        _first(check.get("message", "")),
                    )


def _first(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def item_key(node_id: str) -> str:
    """A node id without its server's node name (the server's self-reported name, which a
    release may change): what judged.toml entries are matched on."""
    rest = node_id[len(NODE_PREFIX) :] if node_id.startswith(NODE_PREFIX) else node_id
    _, sep, tail = rest.partition("::")
    return tail if sep else "<start>"


# What varies between two runs that fail the same way: which call of a sequence failed and
# how many more failures of the check a newer plugin appends.
_VARYING = re.compile(r"\s*\((?:call \d+ of a sequence|and \d+ more failures?[^)]*)\)")


def claim(message: str) -> str:
    """A failure's first line without what varies from run to run: what a verdict judged. The
    same item failing with another claim is another failure, and unjudged until judged."""
    return _VARYING.sub("", message).strip()


def verdict_for(
    judged: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]],
    server: Server,
    node: str,
    message: str,
) -> tuple[Mapping[str, Any] | None, str]:
    """The verdict that holds for this failure, or None and why none does. An item may hold
    several verdicts, one per claim it has failed with (a plugin change can make the same
    item fail for another reason)."""
    entries = judged.get((server.name, item_key(node)), ())
    if not entries:
        return None, ""
    mine = [e for e in entries if e.get("version") in (None, server.version)]
    if not mine:
        return None, f"judged on version {entries[0]['version']}"
    for entry in mine:
        says = entry.get("says")
        if says is None or claim(says) == claim(message):
            return entry, ""
    return None, f"judged when it said: {mine[0]['says']}"


def load_judged(path: Path) -> dict[tuple[str, str], list[dict[str, Any]]]:
    if not path.exists():
        return {}
    with path.open("rb") as f:
        data = tomllib.load(f)
    judged: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for entry in data.get("judged", []):
        # A stub (--stubs) not yet given its verdict judges nothing.
        if isinstance(entry.get("earned"), bool):
            judged.setdefault((entry["server"], item_key(entry["node"])), []).append(entry)
    return judged


def reach(report: Mapping[str, Any]) -> dict[str, int]:
    called = real = zero = calls = errors = 0
    for server in report.get("servers", []):
        for tool in server.get("tools", []):
            if tool.get("calls", 0) <= 0:
                continue
            called += 1
            calls += tool["calls"]
            errors += tool.get("error_results", 0)
            real += tool.get("real_results", 0)
            zero += tool.get("real_results", 0) == 0
    return {"called": called, "calls": calls, "errors": errors, "real": real, "zero": zero}


def score(
    servers: Sequence[Server],
    out: Path,
    judged: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]],
) -> dict[str, Any]:
    rows = []
    for server in servers:
        folder = out / server.name
        meta_path, report_path = folder / "meta.json", folder / "report.json"
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        row: dict[str, Any] = {
            "name": server.name,
            "half": server.half,
            "spec": server.spec,
            "language": server.language,
            "sdk": server.sdk,
            "exit": meta.get("exit", "not run"),
            "seconds": meta.get("seconds"),
            "installed": meta.get("installed", {}),
        }
        if not report_path.exists():
            row.update(ran=False, failures=[], earned=0, false=0, unjudged=0)
            row.update(reach(_empty()))
            rows.append(row)
            continue
        report = json.loads(report_path.read_text())
        failures = []
        for node, message in failed_items(report):
            verdict, unmatched = verdict_for(judged, server, node, message)
            state = "unjudged" if verdict is None else ("earned" if verdict["earned"] else "false")
            why = unmatched if verdict is None else verdict.get("why", "")
            failures.append({"node": node, "message": message, "judged": state, "why": why})
        counts = {k: sum(f["judged"] == k for f in failures) for k in ("earned", "false")}
        row.update(
            ran=True,
            failures=failures,
            unjudged=sum(f["judged"] == "unjudged" for f in failures),
            **counts,
            **reach(report),
        )
        rows.append(row)
    totals = {}
    for half in (*HALVES, "all"):
        mine = [r for r in rows if half in ("all", r["half"])]
        # "all" only where it adds up more than one half.
        if not mine or (half == "all" and len({r["half"] for r in rows}) < 2):
            continue
        total: dict[str, Any] = {"servers": len(mine), "ran": sum(r["ran"] for r in mine)}
        for key in ("earned", "false", "unjudged", "called", "calls", "errors", "real", "zero"):
            total[key] = sum(r[key] for r in mine)
        total["failures"] = sum(len(r["failures"]) for r in mine)
        total["seconds"] = round(sum(r["seconds"] or 0 for r in mine), 1)
        totals[half] = total
    return {"rows": rows, "totals": totals}


def _empty() -> dict[str, Any]:
    return {"servers": []}


def _precision(earned: int, false: int) -> str:
    return f"{100 * earned / (earned + false):.0f}%" if earned + false else "-"


def _reach(real: int, called: int) -> str:
    return f"{real / called:.1f}" if called else "-"


def render(scored: Mapping[str, Any], *, verbose: bool) -> str:
    head = (
        f"{'server':<22} {'half':<9} {'exit':>7} {'s':>5} {'fail':>4} {'earn':>4} "
        f"{'false':>5} {'unj':>4} {'prec':>5} {'tools':>5} {'real/tool':>9} {'0-real':>6}"
    )
    lines = [head, "-" * len(head)]
    for half in HALVES:
        for r in (r for r in scored["rows"] if r["half"] == half):
            lines.append(
                f"{r['name']:<22} {r['half']:<9} {r['exit']!s:>7} {r['seconds'] or 0:>5.0f} "
                f"{len(r['failures']):>4} {r['earned']:>4} {r['false']:>5} {r['unjudged']:>4} "
                f"{_precision(r['earned'], r['false']):>5} {r['called']:>5} "
                f"{_reach(r['real'], r['called']):>9} {r['zero']:>6}"
            )
            if verbose:
                for f in r["failures"]:
                    mark = {"earned": "+", "false": "x", "unjudged": "?"}[f["judged"]]
                    lines.append(f"    {mark} {f['node']}: {f['message'][:110]}")
                    if f["why"]:
                        lines.append(f"        {f['why'][:140]}")
    lines.append("-" * len(head))
    for half, t in scored["totals"].items():
        lines.append(
            f"{'TOTAL ' + half:<22} {t['ran']:>3}/{t['servers']:<3} {'':>7} {t['seconds']:>5.0f} "
            f"{t['failures']:>4} {t['earned']:>4} {t['false']:>5} {t['unjudged']:>4} "
            f"{_precision(t['earned'], t['false']):>5} {t['called']:>5} "
            f"{_reach(t['real'], t['called']):>9} {t['zero']:>6}"
        )
    lines.append(
        "fail: failed items; earn/false/unj: judged earned, judged false alarm, not judged "
        "(judged.toml); prec: earned/(earned+false);\ntools: tools called; real/tool: real "
        "results per called tool; 0-real: called tools with no real result"
    )
    return "\n".join(lines)


def stubs(servers: Sequence[Server], scored: Mapping[str, Any]) -> str:
    """A judged.toml entry for each unjudged failure, its verdict left to fill in."""
    versions = {s.name: s.version for s in servers}
    out = []
    for row in scored["rows"]:
        for failure in row["failures"]:
            if failure["judged"] != "unjudged":
                continue
            out.append(
                "\n[[judged]]\n"
                f"server = {json.dumps(row['name'])}\n"
                f"version = {json.dumps(versions[row['name']])}\n"
                f"node = {json.dumps(failure['node'])}\n"
                f"says = {json.dumps(claim(failure['message']), ensure_ascii=False)}\n"
                "# earned = true or false, after replaying it\n"
                'why = ""\n'
            )
    return "".join(out)


# --- main --------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=(*HALVES, "all"), default="measuring")
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    parser.add_argument("--servers", type=Path, default=HERE / "servers.toml")
    parser.add_argument("--judged", type=Path, default=HERE / "judged.toml")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--out", type=Path, help="default: <cache>/runs/<time>")
    parser.add_argument("--python", default=sys.executable, help="runs pytest and the plugin")
    parser.add_argument("--seed", type=int, default=1, help="--hypothesis-seed (default 1)")
    parser.add_argument(
        "-n", dest="xdist", type=int, default=0, metavar="N", help="run pytest with -n N"
    )
    parser.add_argument("--timeout", type=float, default=900, help="seconds per server")
    parser.add_argument("--nice", type=int, default=10)
    parser.add_argument("--install-only", action="store_true")
    parser.add_argument("--report-only", type=Path, metavar="OUT", help="score a past run")
    parser.add_argument("--keep-tmp", action="store_true", help="keep each run's folder")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    parser.add_argument("-v", "--verbose", action="store_true", help="list each failure")
    parser.add_argument(
        "--stubs", action="store_true", help="print a judged.toml entry per unjudged failure"
    )
    options = parser.parse_args(argv)

    servers = load_servers(options.servers)
    if options.only:
        unknown = set(options.only) - {s.name for s in servers}
        if unknown:
            parser.error(f"no server named {', '.join(sorted(unknown))}")
        servers = [s for s in servers if s.name in options.only]
    else:
        servers = [s for s in servers if options.half in ("all", s.half)]
    judged = load_judged(options.judged)

    if options.report_only:
        out = options.report_only
    else:
        out = options.out or options.cache / "runs" / time.strftime("%Y%m%d-%H%M%S")
        out.mkdir(parents=True, exist_ok=True)
        log = out / "install.log"
        for server in servers:
            problem = install(options.cache, server, log)
            if problem:
                print(f"{server.name}: not installed: {problem}", file=sys.stderr)
        if options.install_only:
            return 0
        for server in servers:
            if not (install_dir(options.cache, server) / ".installed").exists():
                continue
            print(f"running {server.name} ...", file=sys.stderr, flush=True)
            meta = run_one(options.cache, server, out, options)
            print(f"  {meta['exit']} in {meta['seconds']} s", file=sys.stderr, flush=True)
        print(f"output: {out}", file=sys.stderr)

    scored = score(servers, out, judged)
    if options.stubs:
        print(stubs(servers, scored), end="")
    elif options.json:
        print(json.dumps(scored, indent=2))
    else:
        print(render(scored, verbose=options.verbose))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
