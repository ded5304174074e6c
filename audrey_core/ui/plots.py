"""Small plots drawn as inline SVG on the server: no JavaScript, no library to vendor, nothing fetched. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape

WIDTH, HEIGHT, PAD = 640, 180, 34
# Colour-blind-safe (Okabe-Ito) colours for the series the timeline draws.
COLOURS = {
    "episodic": "#0072B2",
    "semantic": "#E69F00",
    "procedural": "#009E73",
    "active": "#0072B2",
    "context_dependent": "#56B4E9",
    "disputed": "#D55E00",
    "superseded": "#999999",
    "dormant": "#CC79A7",
    "rolled_back": "#000000",
}


def line_plot(
    points: Sequence[tuple[datetime, float]],
    projected: Sequence[tuple[datetime, float]] = (),
    marks: Sequence[tuple[datetime, str]] = (),
    title: str = "",
) -> str:
    """A line of values in [0, 1] over time (``projected``: dashed, after the last point), with labelled marks."""
    every = [*points, *projected]
    if not every:
        return ""
    first, last = every[0][0], every[-1][0]
    span = max((last - first).total_seconds(), 1.0)

    def x(when: datetime) -> float:
        return PAD + (WIDTH - 2 * PAD) * (when - first).total_seconds() / span

    def y(value: float) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * max(0.0, min(1.0, value))

    def path(series: Sequence[tuple[datetime, float]]) -> str:
        return " ".join(f"{'M' if i == 0 else 'L'}{x(t):.1f},{y(v):.1f}" for i, (t, v) in enumerate(series))

    parts = [_frame(title), _axis_labels(first, last)]
    for level in (0.0, 0.5, 1.0):
        parts.append(f'<text x="4" y="{y(level) + 4:.1f}" class="tick">{level:.1f}</text>')
    if points:
        parts.append(f'<path d="{path(points)}" class="line"/>')
    if projected:
        parts.append(f'<path d="{path([*points[-1:], *projected])}" class="line projected"/>')
    shown = sorted((x(when), label) for when, label in marks if first <= when <= last)
    for (at, label), row in zip(shown, label_rows([(at + 3, len(label)) for at, label in shown])):
        parts.append(
            f'<line x1="{at:.1f}" x2="{at:.1f}" y1="{PAD}" y2="{HEIGHT - PAD}" class="mark">'
            f"<title>{escape(label)}</title></line>"
        )
        if row is not None:
            parts.append(
                f'<text x="{at + 3:.1f}" y="{PAD - 4 - LABEL_ROW * row}" class="mark-label">{escape(label)}</text>'
            )
    return _svg(parts, title)


LABEL_ROW, LABEL_ROWS, CHAR_WIDTH = 11, 3, 6.0  # px between rows of mark labels, rows above the plot, px a character


def label_rows(labels: Sequence[tuple[float, int]]) -> list[int | None]:
    """For labels (left x, characters) in order of x: the row each is written on so that no two overlap (the lowest
    row free at its x), or None when every row is taken there (its mark keeps the label as a tooltip)."""
    ends = [float("-inf")] * LABEL_ROWS
    rows: list[int | None] = []
    for left, characters in labels:
        row = next((r for r in range(LABEL_ROWS) if left > ends[r] + 4), None)
        if row is not None:
            ends[row] = left + characters * CHAR_WIDTH
        rows.append(row)
    return rows


def stacked_bars(buckets: Sequence[tuple[str, dict[str, int]]], series: Sequence[str], title: str = "") -> str:
    """One bar per bucket (label, counts by series), stacked in ``series`` order, with a legend."""
    if not buckets:
        return ""
    top = max(sum(counts.values()) for _, counts in buckets) or 1
    slot = (WIDTH - 2 * PAD) / len(buckets)
    parts = [_frame(title), f'<text x="4" y="{PAD + 4}" class="tick">{top:,}</text>']
    for index, (label, counts) in enumerate(buckets):
        base = HEIGHT - PAD
        for name in series:
            count = counts.get(name, 0)
            if not count:
                continue
            height = (HEIGHT - 2 * PAD) * count / top
            base -= height
            parts.append(
                f'<rect x="{PAD + index * slot + 1:.1f}" y="{base:.1f}" width="{max(slot - 2, 1):.1f}" '
                f'height="{height:.1f}" fill="{COLOURS.get(name, "#666")}">'
                f"<title>{escape(label)}: {count:,} {escape(name)}</title></rect>"
            )
    parts.append(f'<text x="{PAD}" y="{HEIGHT - 8}" class="tick">{escape(buckets[0][0])}</text>')
    parts.append(
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" class="tick" text-anchor="end">{escape(buckets[-1][0])}</text>'
    )
    used = [name for name in series if any(counts.get(name) for _, counts in buckets)]
    for index, name in enumerate(used):
        parts.append(
            f'<rect x="{PAD + index * 120}" y="6" width="10" height="10" fill="{COLOURS.get(name, "#666")}"/>'
            f'<text x="{PAD + index * 120 + 14}" y="15" class="tick">{escape(name)}</text>'
        )
    return _svg(parts, title)


def _frame(title: str = "") -> str:
    return (
        f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{HEIGHT - PAD}" y2="{HEIGHT - PAD}" class="axis"/>'
        f'<line x1="{PAD}" x2="{PAD}" y1="{PAD}" y2="{HEIGHT - PAD}" class="axis"/>'
    )


def _axis_labels(first: datetime, last: datetime) -> str:
    return (
        f'<text x="{PAD}" y="{HEIGHT - 8}" class="tick">{first:%Y-%m-%d}</text>'
        f'<text x="{WIDTH - PAD}" y="{HEIGHT - 8}" class="tick" text-anchor="end">{last:%Y-%m-%d}</text>'
    )


def _svg(parts: Sequence[str], title: str) -> str:
    return (
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" class="plot">{"".join(parts)}</svg>'
    )
