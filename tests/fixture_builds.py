"""The suite's fixture builds, each made once per checkout: a virtualenv per pinned Python SDK
stack (``STACKS``: tests/servers/old_sdk/ and each folder of tests/servers/sdks/, from its
requirements.txt, into its .venv), the TypeScript SDKs' servers (tests/servers/ts_legacy:
``npm ci`` from its lock file, then each server bundled into bundled/) and the official
conformance suite with the Node.js it runs on (tests/servers/conformance: ``npm ci``).

Standard library only: tests/conftest.py's session fixtures (``old_sdk_command``,
``sdk_command``, ``ts_servers``) call these functions, and ``.ci/run`` runs this file beside
the suite, without a pytest process of its own (``python tests/fixture_builds.py``).

Each build runs under an exclusive lock on its folder (no lock file to leave behind), so the
check and the build are one step for every process on this checkout: under pytest-xdist
every worker gets here, and a second build would delete the venv or the node_modules under
a server the first worker has started. Each writes its completion mark last, so a build
that was cut off is made again.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

SERVERS = Path(__file__).parent / "servers"
OLD_SDK = SERVERS / "old_sdk"
SDKS = SERVERS / "sdks"
TS_LEGACY = SERVERS / "ts_legacy"
CONFORMANCE = SERVERS / "conformance"
# Every Python SDK stack by name: a folder whose requirements.txt pins every package its
# virtualenv holds. One virtualenv per distinct pin set, however many SDK generations run on
# it (tests/servers/sdks/README.md says which).
STACKS = {
    "old_sdk": OLD_SDK,
    **{pins.parent.name: pins.parent for pins in sorted(SDKS.glob("*/requirements.txt"))},
}
# The plugin's own dependencies, pinned: a stack whose requirements.txt includes this file
# (``-r ../plugin-requirements.txt``) also gets the plugin installed, so that pytest runs
# inside it as in a server's own repository (tests/e2e/test_sdk_generations.py).
PLUGIN_PINS = SDKS / "plugin-requirements.txt"
REPO = Path(__file__).parent.parent


class BuildError(Exception):
    """A build step failed: its command, exit status and the end of its error output."""


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock


def _run(step: list[str], what: str, cwd: Path | None = None) -> None:
    done = subprocess.run(step, cwd=cwd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise BuildError(
            f"could not build {what} ({shlex.join(step)}, exit status {done.returncode}):\n"
            + (done.stderr or done.stdout)[-3000:]
        )


def _made(target: Path, stamp: Path, wanted: str, make: Callable[[], None]) -> None:
    """Make ``target`` (a folder) anew unless ``stamp`` holds ``wanted``, the hash of what
    it is made from. The stamp is written last, so a build that was cut off is made again."""
    if stamp.is_file() and stamp.read_text() == wanted:
        return
    shutil.rmtree(target, ignore_errors=True)
    make()
    stamp.write_text(wanted)


def _digest(*files: Path) -> str:
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def holds_plugin(stack: str) -> bool:
    """Whether ``stack``'s requirements.txt includes the plugin's pins (``PLUGIN_PINS``)."""
    requirements = STACKS[stack] / "requirements.txt"
    return any(
        _includes_plugin_pins(requirements, line) for line in requirements.read_text().splitlines()
    )


def _includes_plugin_pins(requirements: Path, line: str) -> bool:
    words = line.split()
    return (
        len(words) == 2
        and words[0] == "-r"
        and (requirements.parent / words[1]).resolve() == PLUGIN_PINS.resolve()
    )


_WHEEL: list[Path] = []
_WHEEL_TURN = threading.Lock()


def _plugin_wheel() -> Path:
    """The checkout as a wheel, built once for every stack that holds the plugin (a build
    costs a build environment of its own), under a lock on the checkout: setuptools writes
    its build/ and egg-info there."""
    with _WHEEL_TURN:
        if not _WHEEL:
            folder = Path(tempfile.mkdtemp(prefix="mcp-contracts-wheel-"))
            atexit.register(shutil.rmtree, folder, True)
            wheel = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"]
            with _locked(REPO):
                _run([*wheel, "--wheel-dir", str(folder), str(REPO)], "the plugin's wheel")
            _WHEEL.extend(folder.glob("*.whl"))
        return _WHEEL[0]


def plugin_layer() -> Path:
    """The plugin's pins and the plugin itself, installed (and compiled) once into a folder
    that every stack holding the plugin puts on its path with a .pth file: the stacks share
    the same pins instead of installing and compiling them once each. Its packages are on
    such a stack's path as the stack's own are, their metadata and entry points included;
    where a package is in both, the two pins are the same version (pip refuses two)."""
    layer = SDKS / ".plugin-layer"

    def make() -> None:
        what = "the plugin's layer of tests/servers/sdks"
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        pip += ["--no-deps", "--target", str(layer)]
        _run([*pip, "-r", str(PLUGIN_PINS)], what)
        _run([*pip, str(_plugin_wheel())], what)

    with _locked(SDKS):
        _made(
            layer,
            layer / "requirements.sha256",
            _digest(PLUGIN_PINS, REPO / "pyproject.toml"),
            make,
        )
    return layer


def sdk_python(stack: str) -> Path:
    """The interpreter of ``stack``'s virtualenv (``STACKS``), built with this one when
    missing or when its requirements.txt (or the plugin's pins it includes) changed.

    A stack that holds the plugin gets it, with the pins its requirements include, from
    ``plugin_layer``: the checkout's at build time; a run under test puts the checkout first
    on PYTHONPATH, so the installed copy gives its metadata and entry point and the checkout
    its code."""
    folder = STACKS[stack]
    requirements = folder / "requirements.txt"
    venv = folder / ".venv"
    plugin = holds_plugin(stack)

    def make() -> None:
        what = f"the virtualenv of {folder.relative_to(SERVERS.parent)}"
        # This interpreter's pip installs into it (--python): a pip of its own would cost a
        # third of the build; the servers compile what they import as they first start.
        # Every package is pinned and none resolved (--no-deps): the fixture stays the stack
        # it was checked to be, and a build costs the downloads only.
        _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], what)
        pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
        pip += ["install", "--quiet", "--disable-pip-version-check", "--no-compile"]
        pip += ["--no-deps"]
        own = venv / "own-requirements.txt"
        own.write_text(
            "".join(
                f"{line}\n"
                for line in requirements.read_text().splitlines()
                if not _includes_plugin_pins(requirements, line)
            )
        )
        _run([*pip, "-r", str(own)], what)
        if plugin:  # the layer is built beside the stacks (main), or here when missing
            layer = plugin_layer()
            version = f"python{sys.version_info.major}.{sys.version_info.minor}"
            site = venv / "lib" / version / "site-packages"
            (site / "mcp-contracts-plugin-layer.pth").write_text(f"{layer}\n")

    pins = (requirements, PLUGIN_PINS) if plugin else (requirements,)
    with _locked(folder):
        _made(venv, venv / "requirements.sha256", _digest(*pins), make)
    return venv / "bin" / "python"


def ts_bundles(npm: str) -> Path:
    """``npm ci`` in tests/servers/ts_legacy when its node_modules is missing or the lock
    file changed, then each server bundled with its dependencies into one file when a server
    or the lock file changed. Returns the folder of the bundles.

    Bundled, because that is most of a server's start: Node 20 resolves and loads the SDK's
    and zod's modules one by one (some 200 files) in 0.45 s of CPU, the bundle in 0.25 s, and
    the suite starts these servers about 80 times. The bundle runs the same code (esbuild,
    a dev dependency of the folder, pinned in its lock file); the sources stay what a
    reader opens, and are what a bundle is checked against."""
    lock = TS_LEGACY / "package-lock.json"
    modules, bundles = TS_LEGACY / "node_modules", TS_LEGACY / "bundled"
    sources = sorted(TS_LEGACY.glob("*.mjs"))

    def install() -> None:
        step = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
        _run(step, "the TypeScript fixture's node_modules", cwd=TS_LEGACY)

    def bundle() -> None:
        step = [str(modules / ".bin" / "esbuild"), *(s.name for s in sources), "--bundle"]
        step += ["--platform=node", "--format=esm", f"--outdir={bundles}"]
        step += ["--out-extension:.js=.mjs", "--log-level=warning"]
        _run(step, "the TypeScript fixture's bundles", cwd=TS_LEGACY)

    with _locked(TS_LEGACY):
        _made(modules, modules / "package-lock.sha256", _digest(lock), install)
        _made(bundles, bundles / "sources.sha256", _digest(lock, *sources), bundle)
    return bundles


def conformance_suite(npm: str) -> list[str]:
    """The command that runs the official conformance suite (``@modelcontextprotocol/
    conformance``): ``npm ci`` in tests/servers/conformance when its node_modules is missing
    or the lock file changed.

    The suite needs Node.js 22 (it imports ``fs.globSync``; this project's fixtures run on
    20): the lock file pins the npm package ``node`` too, whose binary runs the suite, so any
    npm installs it."""
    lock = CONFORMANCE / "package-lock.json"
    modules = CONFORMANCE / "node_modules"

    def install() -> None:
        step = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
        _run(step, "the conformance suite's node_modules", cwd=CONFORMANCE)

    with _locked(CONFORMANCE):
        _made(modules, modules / "package-lock.sha256", _digest(lock), install)
    package = modules / "@modelcontextprotocol" / "conformance"
    return [str(modules / "node" / "bin" / "node"), str(package / "dist" / "index.js")]


def main() -> int:
    """Every build (the Node.js ones only where node and npm are installed, as the suite
    skips their tests otherwise); exit status 1 with what failed.

    Side by side, each in a thread: a build mostly waits for its downloads."""
    from concurrent.futures import ThreadPoolExecutor

    npm = shutil.which("npm")
    builds: list[Callable[[], object]] = [plugin_layer]
    builds += [functools.partial(sdk_python, stack) for stack in STACKS]
    if npm is not None and shutil.which("node") is not None:
        builds.append(functools.partial(ts_bundles, npm))
        builds.append(functools.partial(conformance_suite, npm))
    try:
        with ThreadPoolExecutor(max_workers=len(builds)) as pool:
            for started in [pool.submit(build) for build in builds]:
                started.result()
    except (BuildError, OSError, subprocess.TimeoutExpired) as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
