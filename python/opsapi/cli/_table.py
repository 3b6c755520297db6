"""Tables for a person at a terminal: human headers, formatted numbers and sizes, and the
terminal's width (``shutil.get_terminal_size``) kept by wrapping the columns that may wrap and
then leaving out the least needed ones, said in the count line (on stderr, so that stdout
holds the rows alone). ``--output json`` and ``csv`` are the whole record; this is only what a
person reads.

>>> cols = [Column("id", "ID"), Column("points", "Points", fmt=number, keep=1)]
>>> print("\\n".join(render(cols, [{"id": "a1", "points": 1907388}], width=40)))
ID  Points
a1  1,907,388
"""

from __future__ import annotations

import re
import shutil
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, Optional, TextIO

# Between two columns.
GAP = "  "


def text(v: Any) -> str:
    """A cell as text: nothing for a null, a whole float without its ``.0``."""
    if v is None:
        return ""
    if isinstance(v, datetime):
        return when(v)
    if isinstance(v, float) and v.is_integer():
        return number(v)
    return str(v)


def number(v: Any) -> str:
    """``1907388`` as ``1,907,388``; a fraction keeps two significant decimals at most.

    >>> number(1907388), number(0.5), number(91.456), number(None)
    ('1,907,388', '0.5', '91.46', '')
    """
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer()):
        return f"{int(v):,}"
    if isinstance(v, float):
        return f"{v:,.2f}".rstrip("0").rstrip(".")
    return str(v)


def size(v: Any) -> str:
    """Bytes in binary units: ``2807101`` as ``2.7 MiB``.

    >>> size(2807101), size(512), size(None)
    ('2.7 MiB', '512 B', '')
    """
    if v is None:
        return ""
    n = float(v)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{int(n)} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{v} B"  # pragma: no cover (the loop returns)


def when(v: Optional[datetime]) -> str:
    """An instant to the minute, in UTC (the header says so): ``2026-01-02 13:04``."""
    return "" if v is None else v.strftime("%Y-%m-%d %H:%M")


def span(d: Optional[timedelta]) -> str:
    """A length of time in its two largest units: ``3d4h``, ``45m``, ``99y``.

    >>> span(timedelta(days=3, hours=4, minutes=5)), span(timedelta(seconds=50))
    ('3d4h', '50s')
    """
    if d is None:
        return ""
    s = int(d.total_seconds())
    if s < 0:
        return "-" + span(-d)
    parts = [("y", 365 * 86400), ("d", 86400), ("h", 3600), ("m", 60), ("s", 1)]
    out = []
    for unit, secs in parts:
        if s >= secs or (unit == "s" and not out):
            out.append(f"{s // secs}{unit}")
            s %= secs
        if len(out) == 2 or (out and unit == "y"):
            break
    return "".join(out)


@dataclass(frozen=True)
class Column:
    """One column: the record's key, its header, how a value reads, and how to fit it.

    ``keep``: the higher, the longer the column stays when the table is too wide (the first
    column always stays). ``wrap``: its text may wrap onto more lines between words, down to
    its longest word or ``narrow`` characters. ``breaks``: rather than be left out, it also
    wraps after these characters (a host name after its dots). ``right``: numbers align right.
    """

    key: str
    header: str
    fmt: Callable[[Any], str] = text
    keep: int = 0
    wrap: bool = False
    narrow: int = 12
    right: bool = False
    breaks: str = ""

    def pieces(self, value: str, hard: bool) -> list[str]:
        """The words of ``value``; with ``hard``, also split after each of ``breaks``."""
        words = value.split()
        if not hard or not self.breaks:
            return words
        return [p for w in words for p in re.split(f"(?<=[{re.escape(self.breaks)}])", w) if p]

    def lines(self, value: str, width: int, hard: bool) -> list[str]:
        """``value`` in lines of at most ``width`` (a piece longer than that is cut)."""
        out: list[str] = []
        for p in self.pieces(value, hard):
            joint = "" if hard and out and out[-1][-1:] in self.breaks else " "
            if out and len(out[-1]) + len(joint) + len(p) <= width:
                out[-1] += joint + p
            else:
                out.append(p)
        return [_cut(line, width) for line in out] or [""]


def terminal_width(out: TextIO) -> Optional[int]:
    """The width to fit when ``out`` is a terminal: ``$COLUMNS``, else the terminal's
    (``shutil.get_terminal_size``). None (no limit) for a pipe or a file, whose reader wants
    every column."""
    try:
        tty = out.isatty()
    except (AttributeError, ValueError):
        tty = False
    return shutil.get_terminal_size().columns if tty else None


def _fit(
    columns: list[Column], cells: list[list[str]], width: int
) -> tuple[list[int], list[int], set[int]]:
    """The columns kept (their indexes), their widths within ``width``, and those wrapped at
    their ``breaks``. The columns that wrap give first, down to their longest word or
    ``narrow``; then the least needed column is left out, or, when it has ``breaks``, wrapped
    at them instead."""
    natural = [max([len(c.header)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]

    def floor_of(i: int, hard: bool) -> int:
        c = columns[i]
        if not c.wrap:
            return natural[i]
        longest = [len(p) for r in cells for p in c.pieces(r[i], hard)]
        return min(natural[i], max([len(c.header), c.narrow, *longest]))

    floor = [floor_of(i, False) for i in range(len(columns))]
    hard: set[int] = set()
    kept = list(range(len(columns)))

    def total(widths: list[int]) -> int:
        return sum(widths) + len(GAP) * (len(widths) - 1)

    while True:
        widths = [natural[i] for i in kept]
        # Wrap first: take from the wrapping columns, the widest first, down to their floor.
        for _ in range(max(0, total(widths) - width)):
            room = [(widths[k], k) for k, i in enumerate(kept) if widths[k] > floor[i]]
            if not room:
                break
            widths[max(room)[1]] -= 1
        if total(widths) <= width:
            return kept, widths, hard
        if len(kept) == 1:  # one column left, still too wide: it is cut (see _cut)
            return kept, [max(1, width)], hard
        # Then the least needed column (the last of those least needed) goes, unless it can
        # still wrap at its breaks.
        drop = min(kept[1:], key=lambda i: (columns[i].keep, -i))
        if columns[drop].breaks and drop not in hard:
            hard.add(drop)
            floor[drop] = floor_of(drop, True)
            continue
        kept.remove(drop)


def _cut(s: str, w: int) -> str:
    return s if len(s) <= w else s[: max(0, w - 1)] + "…"


def render(
    columns: Sequence[Column], rows: Sequence[Mapping[str, Any]], width: Optional[int] = None
) -> list[str]:
    """The table's lines, at most ``width`` characters each (no limit when None)."""
    columns = list(columns)
    cells = [[c.fmt(r.get(c.key)) for c in columns] for r in rows]
    hard: set[int] = set()
    if width is None:
        kept = list(range(len(columns)))
        widths = [max([len(c.header)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    else:
        kept, widths, hard = _fit(columns, cells, width)
    lines = []
    for row in [[c.header for c in columns], *cells]:
        parts = []
        for k, i in enumerate(kept):
            w = widths[k]
            value = row[i]
            if columns[i].wrap and len(value) > w:
                parts.append(columns[i].lines(value, w, i in hard))
            else:
                parts.append([_cut(value, w)])
        height = max(len(p) for p in parts)
        for n in range(height):
            line = []
            for k, i in enumerate(kept):
                piece = parts[k][n] if n < len(parts[k]) else ""
                line.append(piece.rjust(widths[k]) if columns[i].right else piece.ljust(widths[k]))
            lines.append(GAP.join(line).rstrip())
    return lines


def left_out(columns: Sequence[Column], rows: Sequence[Mapping[str, Any]], width: int) -> list[str]:
    """The headers of the columns that ``render`` leaves out at ``width``."""
    cells = [[c.fmt(r.get(c.key)) for c in columns] for r in rows]
    kept, _, _ = _fit(list(columns), cells, width)
    return [c.header for i, c in enumerate(columns) if i not in kept]


def write_table(
    columns: Sequence[Column],
    rows: Sequence[Mapping[str, Any]],
    out: TextIO,
    *,
    count: Optional[str] = None,
    err: Optional[TextIO] = None,
) -> None:
    """The table to ``out``, fitted to its terminal; then ``count`` (``"12 alerts"``) on
    stderr, with the columns left out to fit, if any."""
    width = terminal_width(out)
    for line in render(columns, rows, width):
        out.write(line + "\n")
    if count is None:
        return
    dropped = left_out(columns, rows, width) if width is not None else []
    if dropped:
        count += f" ({', '.join(dropped)} left out to fit {width} columns; -o csv or json: all)"
    lines = textwrap.wrap(count, width) if width else [count]
    print("\n".join(lines), file=err if err is not None else sys.stderr)


def plural(n: int, one: str, many: Optional[str] = None) -> str:
    """``1 alert``, ``1,234 alerts``.

    >>> plural(1, "alert"), plural(1234, "alert"), plural(2, "family", "families")
    ('1 alert', '1,234 alerts', '2 families')
    """
    return f"{number(n)} {one if n == 1 else (many or one + 's')}"
