"""A resource a tool result embeds or links is judged as a read's contents are
(judges/content_results through judges/tool_result): a broken one fails the tool's contract item."""

from __future__ import annotations

from ..conftest import NO_SEQUENCES, RunMcp


def test_a_broken_embedded_resource_or_link_fails_its_tools_contract_item(
    run_mcp_inprocess: RunMcp,
) -> None:
    result = run_mcp_inprocess("embedded_resources.py", args=(NO_SEQUENCES, "-k", "contract", "-v"))
    result.stdout.fnmatch_lines_random(
        [
            "mcp:embedded::embeds_readme::contract PASSED*",
            "mcp:embedded::embeds_bad_blob::contract FAILED*",
            "mcp:embedded::links_relative::contract FAILED*",
            "*[[]mcp/blob-base64] the base64 data has '<' at offset 0, outside the base64 alphabet",
            "*at content[[]0].resource.blob",
            "*[[]mcp/resource-uri] the resource URI 'docs/changes.md' is relative*",
        ]
    )
    result.assert_outcomes(passed=1, failed=2, deselected=9)
