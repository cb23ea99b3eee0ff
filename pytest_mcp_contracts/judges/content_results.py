"""Check: what ``resources/read`` and ``prompts/get`` answer, and the resources a prompt or a
tool result embeds or links, as plain data.

The rules and their sources are in docs/prompts-resources.md ("What reads and gets
answer"): the members each protocol version's schema defines for ``ReadResourceResult``,
``TextResourceContents``/``BlobResourceContents``, ``GetPromptResult``, ``PromptMessage``,
the content blocks and ``Annotations``; base64 as RFC 4648 section 4 (what the TypeScript
SDK's clients accept through ``atob``); and a ``mimeType`` that the content does not
contradict where that can be told cheaply (JSON that parses, a binary format's magic bytes).
Here: the results as a whole; their entries are judged by ``judges/resource_contents``, their
blocks by ``judges/content_blocks``, the data against its label by ``judges/media``.

Every rule is bounded: at most ``MAX_ENTRIES_JUDGED`` contents entries or messages,
``MAX_BASE64_CHARS`` characters of one base64 string, ``MAX_JSON_CHARS`` of one JSON text
(those two in ``judges/media``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, Final

from pytest_mcp_contracts.judges.content_blocks import ROLES, BlockJudge
from pytest_mcp_contracts.judges.failures import Finding
from pytest_mcp_contracts.judges.resource_contents import ContentsJudge, quoted
from pytest_mcp_contracts.vocabulary import Level

# The items' check names (the calls engineer adds them to vocabulary.Check as READ and GET).
READ: Final = "read"  # mcp:<server>::resource:<uri>::read, ::template:<t>::read
GET: Final = "get"  # mcp:<server>::prompt:<name>::get

MAX_ENTRIES_JUDGED: Final = 200  # contents entries of one read, messages of one prompt
MAX_FINDINGS_SHOWN: Final = 20  # of one result; the rest are counted


def _bounded(findings: list[Finding], total: int, noun: str) -> list[Finding]:
    """At most ``MAX_FINDINGS_SHOWN`` findings; the first says, once, how many entries
    were left unjudged and how many findings unshown."""
    more = []
    if total > MAX_ENTRIES_JUDGED:
        more.append(
            f"only the first {MAX_ENTRIES_JUDGED} of {total} {noun} were judged "
            f"({total - MAX_ENTRIES_JUDGED} more)"
        )
    if len(findings) > MAX_FINDINGS_SHOWN:
        more.append(f"{len(findings) - MAX_FINDINGS_SHOWN} more findings are not shown")
        findings = findings[:MAX_FINDINGS_SHOWN]
    if findings and more:
        first = findings[0]
        findings[0] = replace(first, details=(*first.details, *more))
    return findings


def check_read_result(
    result: Mapping[str, Any], uri: str, *, protocol_version: str
) -> list[Finding]:
    """What ``resources/read`` of ``uri`` answered (a ``ReadResourceResult``)."""
    judge = ContentsJudge(READ, protocol_version)
    contents = result.get("contents") if isinstance(result, Mapping) else None
    if not isinstance(contents, list):
        return [
            judge.finding(
                "the result is not a ReadResourceResult: 'contents' must be an array, got "
                + quoted(contents),
                rule="read-result",
                where="contents",
                fix="answer resources/read with {'contents': [{'uri': ..., 'text' or "
                "'blob': ...}]}, or with a JSON-RPC error (-32002) when the resource is not "
                "found",
            )
        ]
    if not contents:
        return [
            judge.finding(
                "the read returned no contents: a client that reads the resource gets nothing",
                rule="empty-result",
                where="contents",
                fix="return the resource's contents (an empty text is {'uri': ..., 'text': "
                "''}), or a JSON-RPC error (-32002) when the resource is not found",
                level=Level.WARNING,
            )
        ]
    findings = list(judge.meta(result, "$"))
    for index, entry in enumerate(contents[:MAX_ENTRIES_JUDGED]):
        findings += judge.contents_entry(entry, f"contents[{index}]", uri)
    return _bounded(findings, len(contents), "contents entries")


def check_prompt_result(result: Mapping[str, Any], *, protocol_version: str) -> list[Finding]:
    """What ``prompts/get`` answered (a ``GetPromptResult``)."""
    judge = BlockJudge(GET, protocol_version)
    messages = result.get("messages") if isinstance(result, Mapping) else None
    if not isinstance(messages, list):
        return [
            judge.finding(
                "the result is not a GetPromptResult: 'messages' must be an array, got "
                + quoted(messages),
                rule="prompt-result",
                where="messages",
                fix="answer prompts/get with {'messages': [{'role': 'user', 'content': "
                "{'type': 'text', 'text': ...}}]}",
            )
        ]
    findings = []
    if "description" in result and not isinstance(result["description"], str):
        findings.append(judge.member_type("description", result["description"], "string", "$"))
    findings += judge.meta(result, "$")
    if not messages:
        findings.append(
            judge.finding(
                "the prompt has no messages: a client that uses it inserts nothing",
                rule="empty-result",
                where="messages",
                fix="return at least one message, or refuse the arguments with a JSON-RPC "
                "error (-32602)",
                level=Level.WARNING,
            )
        )
    for index, message in enumerate(messages[:MAX_ENTRIES_JUDGED]):
        findings += _message_findings(judge, message, f"messages[{index}]")
    return _bounded(findings, len(messages), "messages")


def _message_findings(judge: BlockJudge, message: Any, at: str) -> Iterator[Finding]:
    if not isinstance(message, dict):
        yield judge.finding(
            f"the message is not a PromptMessage (an object): {quoted(message)}",
            rule="prompt-message",
            where=at,
            fix="send each message as {'role': 'user' or 'assistant', 'content': {...}}",
        )
        return
    role = message.get("role")
    if role not in ROLES:
        yield judge.finding(
            f"the message's role is {quoted(role)}: a prompt message is from 'user' or "
            "'assistant'"
            + (
                " (the spec has no system role; put instructions in a user message)"
                if role == "system"
                else ""
            ),
            rule="prompt-role",
            where=f"{at}.role",
            fix="set role to 'user' or 'assistant'",
        )
    if "content" not in message:
        yield judge.finding(
            "the message has no 'content', which the spec requires",
            rule="required-member",
            where=f"{at}.content",
            fix="give each message one content block, e.g. {'type': 'text', 'text': ...}",
        )
    else:
        yield from judge.block(message["content"], f"{at}.content")
