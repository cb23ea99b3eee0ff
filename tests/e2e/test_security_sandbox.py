"""No probe writes outside the run's own space. The security check runs against the vulnerable
twins of tests/servers/security/ inside bubblewrap, every file system read-only but the
test's own folders (its TMPDIR, where the run makes its canary and roots folders, among
them), and strace keeps every call that could write and failed, in any of the run's
processes (pytest, the servers, git, the shell). The run must find what it finds outside
the sandbox (its canaries are its own, so their evidence still appears) and no process may
have tried to write anywhere else: a probe aimed outside would leave a refused write in the
trace, and its item would pass for want of evidence."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from .test_security import (  # noqa: F401 (the fixtures, used by name)
    SECURITY_ONLY,
    files,
    folder,
    git_refs,
    outcomes,
    repository,
    shell_exec,
)

# Both are installed by .ci/run where missing: in CI this test never skips. CI is read
# here, at collection: the suite's own fixtures unset it for the runs under test.
MISSING = [tool for tool in ("bwrap", "strace") if shutil.which(tool) is None]
IN_CI = bool(os.environ.get("CI"))


# The system calls that create, change or remove a file system entry (open and openat for
# their writing modes). Not the stat family, which every import calls many times over:
# each traced call stops the process.
WRITES = ",".join(
    (
        "open,openat,openat2,creat,mkdir,mkdirat,mknod,mknodat,rmdir,unlink,unlinkat",
        "rename,renameat,renameat2,link,linkat,symlink,symlinkat,truncate",
        "chmod,fchmodat,chown,lchown,fchownat,utime,utimes,utimensat,futimesat",
        "setxattr,lsetxattr,removexattr,lremovexattr",
    )
)

STRACE = ("strace", "-f", "--seccomp-bpf", "-Z", "-qq", "-esignal=none", f"-etrace={WRITES}")


def sandboxed(writable: tuple[Path, ...], tmpdir: Path, trace: Path, *argv: str) -> list[str]:
    """``argv`` under bubblewrap: / read-only, a fresh /dev made read-only too (bubblewrap
    lays it on a writable tmpfs, where a write would go unnoticed), only ``writable`` bound
    read-write. A network namespace of its own, so that no socket of this session (the
    suite's warm-start zygotes, which fork servers outside the sandbox) is in reach; its
    loopback still serves the listener the run opens on 127.0.0.1. strace follows every
    process and keeps its calls that could write (``WRITES``) and failed (``-Z``)."""
    binds = [arg for path in writable for arg in ("--bind", str(path), str(path))]
    return [
        "bwrap",
        *("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *binds),
        *("--remount-ro", "/dev", "--unshare-net", "--unshare-pid", "--die-with-parent"),
        *("--setenv", "TMPDIR", str(tmpdir), "--chdir", str(writable[0]), "--"),
        *STRACE,
        *("-o", str(trace), *argv),
    ]


# One tool per class whose probes make files (the reads' probes make none): each server
# starts cold, inside the sandbox, and its proofs are replayed on fresh ones.
WRITERS = "security and (git_diff or count_lines or write_file)"
READ_ONLY_REFUSAL = re.compile(r"EROFS|Read-only file system|\[Errno 30\]")


@pytest.mark.skipif(
    bool(MISSING) and not IN_CI,
    reason=f"{' and '.join(MISSING)} not installed (.ci/run installs them in CI)",
)
@pytest.mark.usefixtures("cold_servers", "cold_pytest")
def test_the_probes_write_only_in_the_runs_own_space_under_a_read_only_file_system(
    pytester: pytest.Pytester,
    repository: Path,  # noqa: F811
    folder: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if MISSING:
        pytest.fail(f"in CI, {' and '.join(MISSING)} must be installed (.ci/run does it)")
    tmpdir = pytester.path / "tmp"
    tmpdir.mkdir()
    trace = pytester.path / "strace.log"
    servers = (git_refs(repository), shell_exec(folder), files("files_prefix", folder))
    # Python's bytecode cache would be written beside the sources, outside: not a probe.
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    argv = (sys.executable, "-m", "pytest", "-p", "no:randomly", *servers, *SECURITY_ONLY)
    result = pytester.run(
        *sandboxed((pytester.path, tmp_path), tmpdir, trace, *argv, "-k", WRITERS)
    )

    # The verdicts of the run outside the sandbox (test_security.py), with their CWE.
    assert outcomes(result) == {
        "mcp:git-refs::git_diff::security": "FAILED",
        "mcp:shell-exec::count_lines::security": "FAILED",
        "mcp:files-prefix::write_file::security": "FAILED",
    }, result.stdout.str() + result.stderr.str()
    text = result.stdout.str()
    assert "(CWE-88) in argument 'target'" in text
    assert "(CWE-78) in argument 'filename'" in text
    assert "(CWE-22) in argument 'path'" in text
    # Each file the probes made appeared in the run's TMPDIR: where the sandbox let it.
    made = re.findall(r"evidence: (\S+) appeared during the call", text)
    assert made and all(Path(path).is_relative_to(tmpdir) for path in made), made

    # Nothing tried to write anywhere else: no refusal in the run's output (the servers'
    # stderr and their answers included, where an item shows them), nor any file operation
    # of any process refused as a write to a read-only file system.
    output = result.stdout.lines + result.stderr.lines
    refusals = [line for line in output if READ_ONLY_REFUSAL.search(line)]
    assert not refusals, "\n".join(refusals)
    traced = trace.read_text()
    # The trace saw the run's processes: every interpreter's start opens files that are
    # not there.
    assert "ENOENT" in traced
    refused = [line for line in traced.splitlines() if "EROFS" in line]
    assert not refused, "\n".join(refused)
