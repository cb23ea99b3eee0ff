"""Refresh the vendored schemas: ``python -m pytest_mcp_contracts.schema.spec.refresh [REF]``.

Copies ``schema/<version>/schema.json`` of every protocol version the plugin speaks, and the
repository's LICENSE, from modelcontextprotocol/modelcontextprotocol at REF (default: main),
and writes SOURCE.json (the commit, its date, each file's SHA-256). A maintainer runs it and
reviews the diff; the plugin never fetches anything at run time. Needs git and the network.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from pytest_mcp_contracts.schema.spec import HERE, SPEC_VERSIONS

REPOSITORY = "https://github.com/modelcontextprotocol/modelcontextprotocol"


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def refresh(ref: str = "main") -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp)
        _git("init", "--quiet", cwd=clone)
        _git("fetch", "--quiet", "--depth=1", REPOSITORY, ref, cwd=clone)
        commit = _git("rev-parse", "FETCH_HEAD", cwd=clone)
        date = _git("show", "-s", "--format=%cI", "FETCH_HEAD", cwd=clone)
        files = {f"{version}.json": f"schema/{version}/schema.json" for version in SPEC_VERSIONS}
        files["LICENSE"] = "LICENSE"
        digests = {}
        for name, path in files.items():
            data = subprocess.run(
                ["git", "show", f"FETCH_HEAD:{path}"], cwd=clone, check=True, capture_output=True
            ).stdout
            (HERE / name).write_bytes(data)
            digests[name] = hashlib.sha256(data).hexdigest()
    source: dict[str, object] = {
        "repository": REPOSITORY,
        "commit": commit,
        "date": date,
        "sha256": digests,
    }
    (HERE / "SOURCE.json").write_text(json.dumps(source, indent=2) + "\n")
    return source


if __name__ == "__main__":
    print(json.dumps(refresh(*sys.argv[1:2]), indent=2))
