"""HTML report: the run's facts as one self-contained page a CI job uploads (``--mcp-html``).

No pytest here. ``html_report`` renders the same typed facts as the terminal summary and
the run report (``reporting/model.Run``, as ``reporting/facts`` folds them), with their
helpers: the failures are ``runreport.failed_checks``, the counts and coverage the model's,
the findings ``reporting/findings``, a tool's input coverage ``inputs/coverage.coverage_line``,
its answers ``summary.answers``, its latency figures ``runs/stats.latency_figures``.

The page loads nothing: its style is inline, its charts inline SVG, and it has no script; a
Content-Security-Policy says so to the browser, so a string a server sent that escaped its
escaping still could not run or fetch anything. Everything a server sent (names, messages,
stderr, outputs) is escaped, and the code points HTML forbids in text (control characters,
noncharacters, lone surrogates) are shown as escapes, so the page stays valid HTML5.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from typing import Final

from pytest_mcp_contracts.inputs.coverage import coverage_line
from pytest_mcp_contracts.reporting.findings import counts as finding_counts
from pytest_mcp_contracts.reporting.findings import digest
from pytest_mcp_contracts.reporting.model import NOT_RUN, OUTCOMES, EntryResult, Run, ServerRun
from pytest_mcp_contracts.reporting.runreport import FailedCheck, failed_checks, shown_path
from pytest_mcp_contracts.reporting.summary import answers
from pytest_mcp_contracts.runs.stats import LATENCY_FIGURES, latency_figures
from pytest_mcp_contracts.text import shown
from pytest_mcp_contracts.vocabulary import IMPACT_ORDER, QUALITIES

# C0 and C1 controls but tab, newline and carriage return, DEL, noncharacters and lone
# surrogates: HTML5 forbids them in a document, and a server may send any of them.
_FORBIDDEN: Final = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufdd0-\ufdef\ud800-\udfff"
    "\ufffe\uffff\U0001fffe\U0001ffff\U0002fffe\U0002ffff\U0003fffe\U0003ffff"
    "\U0004fffe\U0004ffff\U0005fffe\U0005ffff\U0006fffe\U0006ffff\U0007fffe\U0007ffff"
    "\U0008fffe\U0008ffff\U0009fffe\U0009ffff\U000afffe\U000affff\U000bfffe\U000bffff"
    "\U000cfffe\U000cffff\U000dfffe\U000dffff\U000efffe\U000effff\U000ffffe\U000fffff"
    "\U0010fffe\U0010ffff]"
)

# What each drift class is shown as in the diff: removed or broken, added, changed.
_DIFF_MARK: Final = {"breaking": "-", "additive": "+"}

_STYLE: Final = """
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--dim:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;
max-width:72rem;padding:1rem;color:#1f2328;background:#fff}
h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.25rem;margin:1.6rem 0 .4rem;
border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{font-size:1.05rem;margin:1rem 0 .3rem}
h4{font-size:.95rem;margin:.8rem 0 .2rem}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:.5rem;
white-space:pre-wrap;overflow-wrap:anywhere;margin:.3rem 0}
pre.long{max-height:24rem;overflow:auto}
.scroll{overflow-x:auto}table{border-collapse:collapse;font-size:.9rem;width:100%}
table.wide{min-width:44rem}
th,td{border:1px solid var(--line);padding:.25rem .4rem;text-align:left;vertical-align:top;
overflow-wrap:anywhere}th{background:var(--bg);white-space:nowrap}td.name{min-width:9rem}td.n{text-align:right;white-space:nowrap}
.badge{display:inline-block;border-radius:1rem;padding:0 .5rem;font-size:.8rem;
font-weight:600;color:#fff;background:var(--dim);white-space:nowrap}
.passed{background:var(--ok)}.failed{background:var(--bad)}.skipped{background:var(--warn)}
.failure{border-left:4px solid var(--bad);padding:.1rem .7rem;margin:.8rem 0}
.failure h3{overflow-wrap:anywhere}.dim{color:var(--dim)}
.diff .breaking{color:var(--bad)}.diff .additive{color:var(--ok)}
.bar{background:#54aeff;height:.8rem;min-width:1px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1rem .8rem;margin:.3rem 0}
dl.facts dt{color:var(--dim)}dl.facts dd{margin:0;overflow-wrap:anywhere}
svg{max-width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:#1f2328}
@media (max-width:40rem){body{padding:.5rem;font-size:14px}dl.facts{display:block}
dl.facts dd{margin:0 0 .3rem}}
@media print{body{max-width:none;font-size:10pt}pre.long{max-height:none;overflow:visible}
.failure,tr,svg{break-inside:avoid}h2,h3{break-after:avoid}
.badge{border:1px solid #000;color:#000;background:none}}
"""

# No script, no request: only the inline style (and SVG in the page) may apply.
_POLICY: Final = "default-src 'none'; style-src 'unsafe-inline'"


def text(value: object) -> str:
    """``value`` as HTML text or attribute value: escaped, forbidden code points shown."""
    return escape(_FORBIDDEN.sub(lambda m: repr(m.group())[1:-1], str(value)), quote=True)


def html_report(run: Run, *, exit_status: int, mode: str, rootdir: Path | None = None) -> str:
    """The whole page of the run's facts; the files written shown relative to ``rootdir``."""
    failing = list(failed_checks(run))
    totals = dict.fromkeys(OUTCOMES, 0)
    for server in run.started():
        for outcome, count in server.check_counts().items():
            totals[outcome] += count
    title = f"MCP contracts: {len(failing)} failed" if failing else "MCP contracts: passed"
    body = [
        f"<h1>{text(title)}</h1>",
        _run_facts(run, totals, exit_status, mode),
        *_failures(failing),
        *(part for index, server in enumerate(run.servers) for part in _server(server, index)),
        *_snapshots(run, rootdir),
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{text(title)}</title>",
            f"<style>{_STYLE}</style>",
            "</head>",
            "<body>",
            "<main>",
            *body,
            "</main>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _badge(outcome: str) -> str:
    return f'<span class="badge {text(outcome)}">{text(outcome.replace("_", " "))}</span>'


def _facts(pairs: Iterable[tuple[str, object]]) -> str:
    rows = "".join(f"<dt>{text(k)}</dt><dd>{text(v)}</dd>" for k, v in pairs if v not in ("", None))
    return f'<dl class="facts">{rows}</dl>'


def _percent(ratio: float | None) -> str:
    return "n/a (no tools)" if ratio is None else f"{round(100 * ratio)}%"


def _run_facts(run: Run, totals: dict[str, int], exit_status: int, mode: str) -> str:
    servers = len(run.servers)
    down = sum(1 for server in run.servers if not server.started)
    pairs: list[tuple[str, object]] = [
        ("servers", f"{servers} ({down} did not start)" if down else servers),
        ("checks", ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in totals.items())),
        ("snapshot mode", mode),
        ("pytest exit status", exit_status),
    ]
    if run.partial:
        pairs.append(("partial", "some xdist workers sent no results: numbers are missing"))
    return _facts(pairs)


def _failures(failing: Sequence[FailedCheck]) -> list[str]:
    """Every failure of the run: its node id, its problem, and for a failure report its
    smallest input, its replay command, the server's stderr and the whole report."""
    parts = [f'<section id="failures"><h2>Failures ({len(failing)})</h2>']
    if not failing:
        parts.append("<p>No check failed.</p>")
    for failed in failing:
        parts += [
            '<article class="failure">',
            f"<h3><code>{text(failed.node_id)}</code></h3>",
            f"<p>{text(failed.message)}</p>",
        ]
        found = failed.check.failure if failed.check is not None else None
        if found is None:
            if failed.check is None and failed.server.error:  # a server that did not start
                parts.append(f"<pre>{text(failed.server.error)}</pre>")
            parts.append("</article>")
            continue
        parts.append(_facts([("kind", found.kind), ("severity", found.severity)]))
        for heading, block in (
            ("Smallest input", found.input),
            ("Reproduce with", found.command),
            ("Server stderr", found.stderr),
        ):
            if block:
                parts += [f"<h4>{heading}</h4>", f'<pre class="long">{text(block)}</pre>']
        if found.text:
            parts.append(
                "<details><summary>The whole report</summary>"
                f'<pre class="long">{text(found.text)}</pre>'
                "</details>"
            )
        parts.append("</article>")
    return [*parts, "</section>"]


def _status(checks: Iterable[str]) -> str:
    """An entry's or server's status: failed if a check failed, else passed if one passed."""
    seen = set(checks)
    return next((o for o in ("failed", "passed", "skipped") if o in seen), NOT_RUN)


def _server(server: ServerRun, index: int) -> list[str]:
    anchor = f"server-{index + 1}"  # by position: a name may hold what an id must not
    if not server.started:
        return [
            f'<section id="{anchor}"><h2>{text(server.title)} {_badge("failed")}</h2>',
            _facts([("command", server.command), ("transport", server.transport)]),
            "<p>The server did not start.</p>",
            f"<pre>{text(server.error)}</pre>",
            "</section>",
        ]
    counts = server.check_counts()
    status = _status(o for o, n in counts.items() if n)
    output_schema, contract = server.coverage()
    qualities = server.qualities()
    head: list[tuple[str, object]] = [
        ("version", server.version),
        ("protocol", server.protocol),
        ("transport", server.transport),
        ("command", server.command),
        ("boundary", server.boundary),
        ("restarts", server.restarts or ""),
        ("checks", ", ".join(f"{n} {o.replace('_', ' ')}" for o, n in counts.items())),
        ("calls", f"{server.calls} ({server.error_results} returned isError)"),
        ("reads and gets", server.listed_calls or ""),
        ("outputSchema coverage", _percent(output_schema)),
        ("contract coverage", _percent(contract)),
        ("contracts", ", ".join(f"{qualities[q]} {q}" for q in QUALITIES)),
    ]
    return [
        f'<section id="{anchor}">',
        f"<h2>{text(server.title)} {_badge(status)}</h2>",
        _facts(head),
        *_own_checks(server),
        *_entries(server),
        *_drift(server),
        *_findings(server),
        *_latency(server.tools),
        *_time(server),
        "</section>",
    ]


def _own_checks(server: ServerRun) -> list[str]:
    rows = [f"<li>{name} {_badge(c.outcome)}</li>" for name, c in server.own_checks()]
    return ["<h3>Server checks</h3>", f"<ul>{''.join(rows)}</ul>"] if rows else []


def _contract(entry: EntryResult, listed: bool) -> str:
    """A tool's contract: its quality, where it comes from and what it rests on."""
    if not listed:
        return "no longer listed"
    if not entry.is_tool:
        return ""
    parts = [entry.quality]
    if entry.source and entry.source != entry.quality:
        parts.append(f"({entry.source})")
    output = entry.output
    if output is not None:
        parts.append(f"— {output.observations} observations; {output.basis}")
        parts += [f"; {path} varies: {types}" for path, types in output.varying_types]
    return " ".join(parts)


def _entries(server: ServerRun) -> list[str]:
    rows = []
    # As ServerRun.subjects orders them, each with whether the server still lists it.
    subjects = [
        *((entry, True) for entry in server.tools),
        *((entry, False) for entry in server.removed),
        *((entry, True) for entry in server.listed),
        *((entry, False) for entry in server.gone),
    ]
    for entry, listed in subjects:
        checks = " ".join(
            f"{text(name)}&nbsp;{_badge(check.outcome)}" for name, check in entry.checks.items()
        )
        coverage = entry.stats.input_coverage
        inputs = coverage_line(coverage) if coverage else ""
        numbers = answers(entry.stats).removeprefix("; ")
        calls = entry.stats.calls
        rows.append(
            f'<tr><td class="name">{text(shown(entry.label))}</td>'
            f"<td>{_badge(_status(c.outcome for c in entry.checks.values()))}</td>"
            f"<td>{checks}</td><td>{text(_contract(entry, listed))}</td>"
            f'<td>{text(inputs)}</td><td class="n">{calls}</td><td>{text(numbers)}</td></tr>'
        )
    if not rows:
        return ["<h3>Entries</h3>", "<p>The server lists nothing.</p>"]
    return [
        "<h3>Entries</h3>",
        '<div class="scroll"><table class="wide">',
        "<thead><tr><th>entry</th><th>status</th><th>checks</th><th>contract</th>"
        "<th>input coverage</th><th>calls</th><th>answers</th></tr></thead>",
        "<tbody>",
        *rows,
        "</tbody></table></div>",
    ]


def _drift(server: ServerRun) -> list[str]:
    """Every drift as a diff against the recorded snapshot: ``-`` breaking, ``+`` additive,
    ``~`` any other change (``IMPACT_ORDER``)."""
    found = server.drift()
    if not found:
        return ["<h3>Drift</h3>", "<p>No drift from the recorded contracts.</p>"]
    ordered = sorted(
        found,
        key=lambda item: (
            IMPACT_ORDER.index(item[0]) if item[0] in IMPACT_ORDER else len(IMPACT_ORDER),
            item[1],
        ),
    )
    lines = [
        f'<span class="{text(impact)}">{_DIFF_MARK.get(impact, "~")} {text(impact)}: '
        f"{text(line)}</span>"
        for impact, line in ordered
    ]
    return ["<h3>Drift</h3>", f'<pre class="diff">{chr(10).join(lines)}</pre>']


def _findings(server: ServerRun) -> list[str]:
    """The listing's findings counted by client and by rule, then one line per rule."""
    holders = server.with_findings()
    found = finding_counts(record for holder in holders for record in holder.findings)
    if not (found.errors or found.warnings):
        return ["<h3>Findings</h3>", "<p>No listing findings.</p>"]
    parts = [
        "<h3>Findings</h3>",
        f"<p>{found.errors} error(s), {found.warnings} warning(s)</p>",
    ]
    for heading, by in (("By client", found.by_client), ("By lint rule", found.by_rule)):
        if by:
            rows = "".join(
                f'<tr><td>{text(name)}</td><td class="n">{n}</td></tr>'
                for name, n in sorted(by.items())
            )
            parts += [f"<h4>{heading}</h4>", f'<div class="scroll"><table>{rows}</table></div>']
    parts.append(f"<pre>{text(chr(10).join(digest(holders)))}</pre>")
    return parts


_ROW: Final = 18  # an SVG chart's row height
_LABEL: Final = 170  # the width of its labels
_WIDTH: Final = 640


def _latency(tools: Sequence[EntryResult]) -> list[str]:
    """Each tool's p50, p95, p99 and max call latency as bars on one scale."""
    figured = [(tool, latency_figures(tool.stats.latencies_ms)) for tool in tools]
    drawn = [(tool, figures) for tool, figures in figured if figures is not None]
    if not drawn:
        return ["<h3>Latency</h3>", "<p>No latency recorded.</p>"]
    names = [name for name, _ in LATENCY_FIGURES]
    top = max(figures["max"] for _, figures in drawn) or 1.0
    span = _WIDTH - _LABEL - 70
    shades = ("#0550ae", "#218bff", "#80ccff", "#c8e6ff")  # p50 darkest, max lightest
    rows = []
    for index, (tool, figures) in enumerate(drawn):
        y = index * _ROW + 20
        bars = "".join(
            f'<rect x="{_LABEL}" y="{y}" width="{max(1.0, figures[n] / top * span):.1f}" '
            f'height="{_ROW - 5}" fill="{shade}"><title>{text(n)} {figures[n]} ms</title></rect>'
            for n, shade in reversed(list(zip(names, shades, strict=True)))
        )
        label = text(shown(tool.name, 24))
        rows.append(
            f'<text x="0" y="{y + 11}">{label}</text>{bars}'
            f'<text x="{_LABEL + span + 4}" y="{y + 11}">p95 {figures["p95"]:g} ms</text>'
        )
    height = len(drawn) * _ROW + 24
    legend = "".join(
        f'<rect x="{_LABEL + i * 80}" y="2" width="10" height="10" fill="{shade}"/>'
        f'<text x="{_LABEL + i * 80 + 14}" y="11">{n}</text>'
        for i, (n, shade) in enumerate(zip(names, shades, strict=True))
    )
    table = "".join(
        f'<tr><td>{text(shown(tool.name))}</td><td class="n">{len(tool.stats.latencies_ms)}</td>'
        + "".join(f'<td class="n">{figures[n]:g}</td>' for n in names)
        + "</tr>"
        for tool, figures in drawn
    )
    return [
        "<h3>Latency</h3>",
        f'<svg viewBox="0 0 {_WIDTH} {height}" width="{_WIDTH}" height="{height}" role="img" '
        'aria-label="call latency per tool, in milliseconds">'
        f"{legend}{''.join(rows)}</svg>",
        '<div class="scroll"><table><thead><tr><th>tool</th><th>calls</th>'
        + "".join(f"<th>{n} ms</th>" for n in names)
        + f"</tr></thead><tbody>{table}</tbody></table></div>",
    ]


def _time(server: ServerRun) -> list[str]:
    """Where the server's time went: each entry's checks (their items' durations), and the
    phases of its calls where they were timed."""
    spent = [
        (entry, sum(check.duration for check in entry.checks.values()))
        for entry in server.subjects()
    ]
    own = [c for _, c in server.own_checks()]
    total = sum(seconds for _, seconds in spent) + sum(c.duration for c in own)
    ranked = sorted((item for item in spent if item[1] > 0), key=lambda item: -item[1])
    parts = ["<h3>Time</h3>", f"<p>{total:.2f} s in the server's checks.</p>"]
    if not ranked:
        return parts
    top = ranked[0][1]
    rows = []
    for entry, seconds in ranked:
        phases = ", ".join(
            f"{phase} {value:.2f} s" for phase, value in sorted(entry.stats.phase_seconds.items())
        )
        by_phase = text(phases) if phases else '<span class="dim">not timed by phase</span>'
        rows.append(
            f'<tr><td class="name">{text(shown(entry.label))}</td>'
            f'<td class="n">{seconds:.2f} s</td>'
            f'<td><div class="bar" style="width:{100 * seconds / top:.1f}%"></div></td>'
            f"<td>{by_phase}</td></tr>"
        )
    return [
        *parts,
        '<div class="scroll"><table><thead><tr><th>entry</th><th>checks</th>'
        '<th style="width:30%">share</th><th>by phase</th></tr></thead>',
        f"<tbody>{''.join(rows)}</tbody></table></div>",
    ]


def _snapshots(run: Run, rootdir: Path | None) -> list[str]:
    """The files the run wrote (listed relative to ``rootdir``), and those it left alone."""
    snapshots = run.snapshots

    def where(paths: Sequence[str]) -> list[str]:
        return [shown_path(Path(path), rootdir) if rootdir else path for path in paths]

    groups = [
        ("recorded", where(snapshots.written)),
        ("pruned", where(snapshots.pruned)),
        ("exported", where(snapshots.exported)),
        ("not written (left as it is)", snapshots.unwritten),
        ("proposals not exported", snapshots.not_exported),
    ]
    listed = [(verb, lines) for verb, lines in groups if lines]
    if not listed:
        return []
    parts = ['<section id="files"><h2>Files</h2>']
    for verb, lines in listed:
        parts += [f"<h3>{text(verb)}</h3>", f"<pre>{text(chr(10).join(lines))}</pre>"]
    return [*parts, "</section>"]
