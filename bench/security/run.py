"""Published security bugs of MCP servers, vulnerable and fixed releases from the registries,
tested by the plugin's security check with its defaults: what it finds, misses and raises
falsely.

    python bench/security/run.py            # install what is missing, run every release
    python bench/security/run.py git-2025.11.25 fs-2.0.1

Each release runs in a fresh temporary folder: an allowed folder with a file, a git
repository with one commit (its `--repository` for the git server). Only the security items
run (``-k security``), so that no generated input of the other checks reaches a vulnerable
release. Standard library only. bench/security/README.md has the table of what each release
is and the current figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pytest_mcp_contracts.inputs.probes import commit_folder

HERE = Path(__file__).resolve().parent
CACHE = Path.home() / ".cache" / "pytest-mcp-contracts" / "security"


@dataclass(frozen=True)
class Release:
    name: str
    registry: str  # "npm" or "pypi"
    install: tuple[str, ...]  # the packages, pinned
    # {bin} its installed bin folder, {allowed} and {repo} the run's folders; {{roots}} is
    # left for the plugin: its roots folder, beside which the run lays the path probes' files
    command: str
    expected: dict[str, str]  # tool -> the failure kind a correct check finds (none: {})
    published: str  # the advisory, for the reader


# mcp-server-git before 2025.12.18 never compares repo_path with --repository
# (CVE-2025-68145): each tool that takes one reads or writes the run's outside repository.
_ANY_REPOSITORY = ("git_status", "git_log", "git_commit", "git_reset")

RELEASES = (
    Release(
        "git-2025.7.1",
        "pypi",
        ("mcp-server-git==2025.7.1", "mcp<2"),
        "{bin}/mcp-server-git --repository {repo}",
        {
            "git_diff": "argument_injection",
            "git_init": "path_traversal",
            **dict.fromkeys(_ANY_REPOSITORY, "path_traversal"),
        },
        "CVE-2025-68143 (git_init anywhere), CVE-2025-68145 and CVE-2025-68144",
    ),
    Release(
        "git-2025.11.25",
        "pypi",
        ("mcp-server-git==2025.11.25", "mcp<2"),
        "{bin}/mcp-server-git --repository {repo}",
        {"git_diff": "argument_injection", **dict.fromkeys(_ANY_REPOSITORY, "path_traversal")},
        "CVE-2025-68144 (GHSA-9xwc-hfwc-8w59): git_diff's target read as a git option; "
        "CVE-2025-68145 (GHSA-j22h-9j4x-23w5): repo_path not confined to --repository",
    ),
    Release(
        "git-2025.12.18",
        "pypi",
        ("mcp-server-git==2025.12.18", "mcp<2"),
        "{bin}/mcp-server-git --repository {repo}",
        {},
        "the fix of CVE-2025-68144 and CVE-2025-68145",
    ),
    Release(
        "git-2026.10.19",
        "pypi",
        ("mcp-server-git==2026.10.19",),
        "{bin}/mcp-server-git --repository {repo}",
        {},
        "the newest on the registry",
    ),
    Release(
        "fs-2025.3.28",
        "npm",
        # zod 3 beside it: installed today it would get zod 4, on which its tools list empty
        # input schemas (no path argument to probe), unlike the release as published.
        ("@modelcontextprotocol/server-filesystem@2025.3.28", "zod@3.25.76"),
        "{bin}/mcp-server-filesystem {{roots}}",
        {
            tool: "path_traversal"
            for tool in (
                "read_file",
                "write_file",
                "edit_file",
                "create_directory",
                "list_directory",
                "directory_tree",
                "search_files",
            )
        },
        "CVE-2025-53110 (allowed folder compared as a string prefix) and CVE-2025-53109 (symlinks)",
    ),
    Release(
        "fs-2025.7.1",
        "npm",
        ("@modelcontextprotocol/server-filesystem@2025.7.1", "zod@3.25.76"),
        "{bin}/mcp-server-filesystem {{roots}}",
        {},
        "the fix of CVE-2025-53110 and CVE-2025-53109",
    ),
    Release(
        "fs-2.0.1",
        "npm",
        ("@modelcontextprotocol/server-filesystem@2.0.1",),
        "{bin}/mcp-server-filesystem {{roots}}",
        {},
        "the reference filesystem server, its newest fixed release",
    ),
    Release(
        "memory-2026.8.31",
        "npm",
        ("@modelcontextprotocol/server-memory@2026.8.31",),
        "env MEMORY_FILE_PATH={allowed}/memory.jsonl {bin}/mcp-server-memory",
        {},
        "the reference memory server",
    ),
    Release(
        "everything-2026.8.31",
        "npm",
        ("@modelcontextprotocol/server-everything@2026.8.31",),
        "{bin}/mcp-server-everything",
        {},
        "the reference everything server",
    ),
)


def installed(release: Release) -> Path:
    """The bin folder of ``release``, installed into the cache when missing."""
    folder = CACHE / release.name
    if release.registry == "npm":
        bin_folder = folder / "node_modules" / ".bin"
        if not bin_folder.is_dir():
            npm = ["npm", "install", "--prefix", str(folder), "--no-audit", "--no-fund"]
            subprocess.run([*npm, *release.install], check=True, capture_output=True)
        return bin_folder
    bin_folder = folder / "bin"
    if not (bin_folder / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        pip = [str(bin_folder / "python"), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, *release.install], check=True, capture_output=True)
    return bin_folder


def lay(root: Path) -> tuple[Path, Path]:
    allowed, repo = root / "allowed", root / "repo"
    allowed.mkdir()
    (allowed / "notes.txt").write_text("one\ntwo\n")
    repo.mkdir()
    (repo / "a.txt").write_text("one\n")
    if not commit_folder(repo, "first"):
        raise SystemExit("bench/security needs git: the git servers serve a repository")
    return allowed, repo


def run(release: Release) -> dict[str, str]:
    """Each security item's outcome: "passed", "skipped", or the failure kind."""
    bin_folder = installed(release)
    with tempfile.TemporaryDirectory(prefix="mcp-security-bench-") as folder:
        root = Path(folder)
        allowed, repo = lay(root)
        command = release.command.format(bin=bin_folder, allowed=allowed, repo=repo)
        argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"]
        argv += [f"--rootdir={root}", f"--mcp-server={command}", "-k", "security", "-q"]
        argv += ["--mcp-sequences=off", "--mcp-report=report.json"]
        environ = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
        subprocess.run(argv, cwd=root, env=environ, capture_output=True, timeout=900)
        report = json.loads((root / "report.json").read_text())
    outcomes = {}
    for server in report["servers"]:
        for tool in server.get("tools", []):
            check = tool["checks"].get("security")
            if check is None:
                continue
            failure = check.get("failure") or {}
            outcomes[tool["name"]] = failure.get("kind") or check["outcome"]
    return outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="releases to run (default: all)")
    names = parser.parse_args().names
    found = missed = false = 0
    print(f"{'release':22} {'items':>5} {'found':>5} {'missed':>6} {'false':>5}  notes")
    for release in RELEASES:
        if names and release.name not in names:
            continue
        outcomes = run(release)
        failed = {t: k for t, k in outcomes.items() if k not in ("passed", "skipped")}
        hits = {t for t, k in failed.items() if release.expected.get(t) == k}
        misses = set(release.expected) - hits
        alarms = set(failed) - hits
        found, missed, false = found + len(hits), missed + len(misses), false + len(alarms)
        notes = "; ".join(
            [f"{t}: {failed[t]}" for t in sorted(hits)]
            + [f"MISSED {t}" for t in sorted(misses)]
            + [f"FALSE {t}: {failed[t]}" for t in sorted(alarms)]
        )
        print(
            f"{release.name:22} {len(outcomes):5} {len(hits):5} {len(misses):6} {len(alarms):5}"
            f"  {notes or '-'}"
        )
    print(f"{'TOTAL':22} {'':5} {found:5} {missed:6} {false:5}")
    return 1 if false else 0


if __name__ == "__main__":
    raise SystemExit(main())
