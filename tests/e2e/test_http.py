"""--mcp-url: what only Streamable HTTP has to get right (headers from the environment, a URL
nobody listens on, an oversized response), against fixture servers served by
tests/servers/http_serve.py. The checks every transport shares run over HTTP in
test_transports.py."""

from __future__ import annotations

import pytest

from ..conftest import NO_SEQUENCES, HttpServer, RunPytest

FAST = ("--mcp-max-examples=10",)


def run_url(inprocess_pytest: RunPytest, url: str, *args: str) -> pytest.RunResult:
    return inprocess_pytest(NO_SEQUENCES, f"--mcp-url={url}", *FAST, *args)


def test_header_from_the_environment_reaches_the_server_and_is_never_printed(
    inprocess_pytest: RunPytest, http_server: HttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "s3cr3t-t0ken-value"
    url = http_server("typed_ok.py", env={"MCP_FIXTURE_TOKEN": secret})
    # Without the header: 401, one clear collection error that points at --mcp-header.
    refused = run_url(inprocess_pytest, url)
    assert refused.ret != 0
    refused.stdout.fnmatch_lines(["*HTTP 401*--mcp-header*"])
    # With it, from an environment variable: every check passes.
    monkeypatch.setenv("FIXTURE_TOKEN", secret)
    result = run_url(
        inprocess_pytest, url, "--mcp-header", "Authorization: Bearer ${FIXTURE_TOKEN}", "-v"
    )
    result.assert_outcomes(passed=12)
    # A wrong token: refused, and the header is named but its value never shown.
    monkeypatch.setenv("FIXTURE_TOKEN", "wrong-" + secret)
    wrong = run_url(inprocess_pytest, url, "--mcp-header=Authorization: Bearer $FIXTURE_TOKEN")
    wrong.stdout.fnmatch_lines(["*HTTP 401*sent headers: Authorization*"])
    for run in (refused, result, wrong):
        assert secret not in run.stdout.str() + run.stderr.str()


def test_a_header_naming_a_missing_variable_is_a_usage_error(
    inprocess_pytest: RunPytest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_SUCH_TOKEN", raising=False)
    result = run_url(
        inprocess_pytest,
        "http://127.0.0.1:9/mcp",
        "--mcp-header=Authorization: Bearer ${NO_SUCH_TOKEN}",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*environment variable NO_SUCH_TOKEN is not set*"])


def test_a_url_nobody_listens_on_is_one_collection_error(
    inprocess_pytest: RunPytest, refused_port: int
) -> None:
    url = f"http://user:pw@127.0.0.1:{refused_port}/mcp?token=abc"
    result = run_url(inprocess_pytest, url)
    result.assert_outcomes(errors=1)
    shown = url.replace("user:pw@", "").removesuffix("?token=abc")
    result.stdout.fnmatch_lines(
        [f"MCP server at {shown} could not be used", f"*could not connect to {shown}*"]
    )
    assert "token=abc" not in result.stdout.str() and "user:pw" not in result.stdout.str()


def test_an_oversized_response_is_capped(
    inprocess_pytest: RunPytest, http_server: HttpServer
) -> None:
    result = run_url(inprocess_pytest, http_server("http_big.py"), "--mcp-max-result-bytes=100000")
    assert "FAILED mcp:http-big::big::contract" in result.stdout.str()
    result.stdout.fnmatch_lines(
        ["*could not be read: it was a message of at least * bytes, over the 100000-byte limit*"]
    )
    # Both tools take no arguments: no input is invalid, their rejects_invalid are skipped.
    result.assert_outcomes(passed=5, failed=1, skipped=2)


def test_a_wrong_path_is_a_404_at_that_url_not_a_server_that_is_down(
    inprocess_pytest: RunPytest, http_server: HttpServer, capsys: pytest.CaptureFixture[str]
) -> None:
    right = http_server("typed_ok.py")
    wrong = right.removesuffix("/mcp") + "/api"
    result = run_url(inprocess_pytest, wrong)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            f"MCP server at {wrong} could not be used",
            f"  HTTP 404 Not Found from {wrong} for initialize*; the server answered, so it is "
            f"running, but serves no MCP endpoint at the path /api; MCP servers usually serve "
            f"it at /mcp: try {right}",
            # The terminal summary says the same, not "did not start".
            f"MCP server at {wrong} could not be used: HTTP 404 Not Found*try {right}",
        ]
    )
    shown = result.stdout.str()
    assert "did not start" not in shown and "check that it is up" not in shown
    # mcp-contracts says it in the same words.
    from pytest_mcp_contracts.cli import main

    assert main(["inspect", "--url", wrong]) == 1
    error = capsys.readouterr().err
    assert error.startswith(f"mcp-contracts: the server at {wrong} could not be used: HTTP 404")
    assert f"try {right}" in error
