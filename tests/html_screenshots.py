"""Make the docs' screenshots of the HTML report (docs/how-to/html-report.md) again.

Runs the plugin on a failing fixture server (tests/servers/sdk_failures.py, two of its
planted bugs) and a passing one (tests/servers/typed_ok.py), each from a copy in a folder of
its own (so the page shows a short command and the repository gets no snapshot files), and
photographs each page in headless chromium (tests/browser.py).

    python tests/html_screenshots.py        # writes docs/img/html-report-{failing,passing}.png
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import browser

ROOT = Path(__file__).resolve().parents[1]
SERVERS = ROOT / "tests" / "servers"
IMAGES = ROOT / "docs" / "img"
RUNS = {
    "failing": ("sdk_failures.py", ("--mcp-sequences=off", "-k", "price_quote or initial")),
    "passing": ("typed_ok.py", ()),
}
WIDTH, HEIGHT = 1000, 1400


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for name, (server, args) in RUNS.items():
            folder = Path(scratch) / name
            folder.mkdir()
            shutil.copy(SERVERS / server, folder / server)
            page = folder / "report.html"
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-p",
                    "no:randomly",
                    "-p",
                    "no:cacheprovider",
                    "--rootdir=.",
                    f"--mcp-server=python {server}",
                    f"--mcp-html={page.name}",
                    *args,
                ],
                cwd=folder,
                capture_output=True,
                check=False,  # the failing run fails
                timeout=600,
            )
            image = IMAGES / f"html-report-{name}.png"
            browser.screenshot(page, image, Path(scratch) / "profile", WIDTH, HEIGHT)
            print(f"wrote {image.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
