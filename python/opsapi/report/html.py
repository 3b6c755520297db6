"""The report's HTML: tables, numbers, dates and host names as a team lead reads them, the
stylesheet, and the page with the Vega libraries and the charts inline (nothing loads from
the network).

The page reads at any width from about 360 pixels up: below about 1 100 pixels the charts
take one column, every table scrolls inside its own box rather than the page, and a date
never wraps.
"""

from __future__ import annotations

import html
import json
from datetime import datetime
from typing import Any, Callable, Optional

__all__ = ["date", "e", "labeller", "number", "page", "short", "table"]

GIB = 1024**3
_UNITS = {"%": "%", "h": "hours", "s": "s", "": "", "IOPS": "IOPS", "ms": "ms", "×": "×"}


def e(v: Any) -> str:
    """Text as HTML (``None`` as nothing).

    >>> e("<b> & 'x'")
    '&lt;b&gt; &amp; &#x27;x&#x27;'
    """
    return html.escape("" if v is None else str(v), quote=True)


def short(member: Optional[str]) -> str:
    """``rs0-2.prod.example.net:27017`` → ``rs0-2``.

    >>> short("rs0-2.prod.example.net:27017"), short(None)
    ('rs0-2', '')
    """
    return "" if member is None else member.split(":")[0].split(".")[0]


def labeller(members: list[str]) -> Callable[[Optional[str]], str]:
    """Host names without the domain every host shares (``rs0-1.prod`` of
    ``rs0-1.prod.example.net:27017``): short, and unique across projects.

    >>> label = labeller(["rs0-1.prod.example.net:27017", "cfg0-0.staging.example.net:27019"])
    >>> label("rs0-1.prod.example.net:27017"), label(None)
    ('rs0-1.prod', '')
    """
    names = [m.split(":")[0].split(".") for m in members if m]
    common = 0
    while (
        names
        and all(len(n) > common + 1 for n in names)
        and len({tuple(n[len(n) - common - 1 :]) for n in names}) == 1
    ):
        common += 1

    def label(member: Optional[str]) -> str:
        if not member:
            return ""
        parts = member.split(":")[0].split(".")
        return ".".join(parts[: len(parts) - common])

    return label


def table(header: list[str], rows: list[list[Any]], *, cls: str = "", numeric=(), dates=()) -> str:
    """A plain table in a box of its own that scrolls sideways when the page is narrower:
    text as it is (escaped), numbers right-aligned, dates on one line; each cell a string, a
    ``(text, class)`` pair or a ``(text, class, columns)`` triple (a cell across as many
    columns).

    >>> table(["host", "used"], [["rs0-1", ("91 %", "critical")]], numeric=(1,))[:60]
    '<div class="scroll"><table class=""><thead><tr><th>host</th>'
    """

    def cell(tag: str, i: int, v: Any) -> str:
        text, klass, span = (*v, 1)[:3] if isinstance(v, tuple) else (v, "", 1)
        extra = ("num" if i in numeric and span == 1 else "", "date" if i in dates else "")
        classes = " ".join(c for c in (klass, *extra) if c)
        attr = f' class="{classes}"' if classes else ""
        attr += f' colspan="{span}"' if span > 1 else ""
        return f"<{tag}{attr}>{e(text)}</{tag}>"

    head = "".join(cell("th", i, h) for i, h in enumerate(header))
    body = "".join(
        "<tr>" + "".join(cell("td", i, v) for i, v in enumerate(r)) + "</tr>" for r in rows
    )
    return (
        f'<div class="scroll"><table class="{cls}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def number(v: Optional[float], unit: str, digits: int = 1) -> str:
    """A value with its unit, thousands apart.

    >>> number(1234.56, "h"), number(91.25, "%"), number(None, "%")
    ('1,234.6 hours', '91.2 %', '')
    """
    if v is None:
        return ""
    unit = _UNITS.get(unit, unit)
    text = f"{v:,.{digits}f}" if abs(v) < 1e6 else f"{v:,.0f}"
    return f"{text} {unit}".strip()


def date(d: Optional[datetime]) -> str:
    """A date as the report writes it.

    >>> from datetime import datetime
    >>> date(datetime(2026, 3, 9)), date(None)
    ('Mon Mar 9, 2026', '')
    """
    return "" if d is None else f"{d:%a %b %-d, %Y}"


CSS = """
*, *::before, *::after { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       margin: 0 auto; padding: 16px 24px; max-width: 1180px; }
h1 { font-size: 24px; margin: 8px 0; } h2 { font-size: 18px; margin: 28px 0 8px; }
h3 { font-size: 15px; margin: 18px 0 4px; }
p, li { overflow-wrap: anywhere; }
p.said { margin: 4px 0; padding-left: 6px; border-left: 4px solid #ff7f0e; }
ul.summary { padding-left: 0; } ul.summary li { margin: 4px 0; padding-left: 6px;
  border-left: 4px solid #ccc; list-style: none; }
ul.summary li.critical { border-color: #d62728; } ul.summary li.warning { border-color: #ff7f0e; }
ul.summary li.watch { border-color: #e6c700; } ul.summary li.ok { border-color: #2ca02c; }
ul.summary li.oversized { border-color: #4c78a8; }
.asof { color: #666; font-size: 12px; }
.scroll { overflow-x: auto; max-width: 100%; margin: 8px 0; }
table { border-collapse: collapse; margin: 0; font-size: 13px; }
th, td { border-bottom: 1px solid #e4e4e4; padding: 4px 8px; text-align: left;
         vertical-align: top; }
th { background: #f6f6f6; font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.date, th.date { white-space: nowrap; }
table.headroom td:first-child { min-width: 13em; }
td.critical { background: #f8c9c9; font-weight: 600; } td.warning { background: #fde2c2; }
td.watch { background: #fbf3c0; } td.ok { background: #e3f3e1; } td.missing { background: #e4e4e4;
  color: #555; } td.na { background: #fff; }
.legend span { display: inline-block; padding: 2px 8px; margin: 0 6px 4px 0; font-size: 12px; }
.legend .critical { background: #f8c9c9; } .legend .warning { background: #fde2c2; }
.legend .watch { background: #fbf3c0; } .legend .ok { background: #e3f3e1; }
.legend .missing { background: #e4e4e4; }
td.oversized, .legend .oversized { background: #dbe8f6; }
.charts { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 12px; }
.chart { min-height: 260px; min-width: 0; }
.finding { min-width: 0; }
/* vega-embed makes its element inline-block: inside .finding it must still take the width. */
.finding .chart { display: block; width: 100%; }
.finding .accuracy, .ranges { color: #444; font-size: 0.9em; margin: 4px 0 0; }
@media (max-width: 1100px) { .charts { grid-template-columns: minmax(0, 1fr); } }
@media (max-width: 700px) { body { padding: 8px 12px; } }
"""


def page(body: str, specs: list[tuple[str, dict]]) -> str:
    """The page: the stylesheet, the body and, inline, the Vega libraries and the charts.
    Each chart's element gets ``data-rendered`` once drawn (``data-error`` if it failed), and
    the body ``data-charts="done"`` once every chart has settled.

    >>> page("<p>hi</p>", [])[:16]
    '<!DOCTYPE html>\\n'
    """
    scripts = ""
    if specs:
        import vl_convert as vlc

        bundle = vlc.javascript_bundle()
        payload = json.dumps(dict(specs)).replace("</", "<\\/")
        scripts = (
            f'<script type="module">{bundle}</script>\n'
            '<script type="module">\n'
            f"const specs = {payload};\n"
            "const drawn = Object.entries(specs).map(([id, spec]) => {\n"
            "  const el = document.getElementById(id);\n"
            '  return window.vegaEmbed(el, spec, {renderer: "svg", actions: false})\n'
            '    .then(() => el.setAttribute("data-rendered", "1"))\n'
            '    .catch((err) => el.setAttribute("data-error", String(err)));\n'
            "});\n"
            'Promise.allSettled(drawn).then(() => document.body.setAttribute("data-charts", '
            '"done"));\n'
            "</script>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Capacity: what runs out first</title><style>{CSS}</style></head>"
        f"<body>\n{body}\n{scripts}\n</body></html>\n"
    )
