"""The capacity report checked the way a person sees it: opened in headless Chromium.

Chromium loads ``out/capacity.html`` (written by ``python -m opsapi.demo``), its DOM after
loading (``--dump-dom``) is checked, and a full-page screenshot is saved as
``out/capacity-report.png`` for people to look at. Checked:

- no stderr or error output box (the red boxes of a notebook);
- every chart has marks: each image loads as SVG, each disk panel has its used, trend and
  capacity lines drawn with real points, each database panel its stacked bands (none of which
  drops to nothing where a data point is missing), each heatmap has its cells;
- the disk panels come in forecast order (soonest full first), the order of the final table;
- the database section lists the five disks closest to full in that order, each with its
  growing databases or a line saying it has none, and charts those with databases in that
  order;
- the closing table is an HTML table with no cell cut short.

Needs Debian's ``chromium`` (``.ci/run`` installs it); skipped, saying so, without it.
"""

from __future__ import annotations

import base64
import html.parser
import os
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"
# The flags of a quiet, isolated headless browser: no network of its own, no profile reuse.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
    "--hide-scrollbars",
]

pytestmark = pytest.mark.slow
pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")
for _module in ("nbclient", "nbformat", "nbconvert", "ipykernel", "altair", "vl_convert"):
    pytest.importorskip(_module, reason=f"{_module} is not installed (the demo needs it)")


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does)")


def _run_chromium(tmp_path: Path, name: str, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{name}"  # a fresh --user-data-dir per run
    return subprocess.run(
        [_chromium(), *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    from opsapi import demo

    _chromium()  # skip before the demo's cost
    out = tmp_path_factory.mktemp("report")
    saved = {k: os.environ.pop(k, None) for k in ("OPSAPI_BASE_URL", "OPSAPI_PRIVATE_KEY")}
    try:
        assert demo.main(["--out", str(out)]) == 0
    finally:
        os.environ.update({k: v for k, v in saved.items() if v is not None})
    return out


@pytest.fixture(scope="module")
def dom(report, tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("chromium")
    r = _run_chromium(tmp, "dom", "--dump-dom", (report / "capacity.html").as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    assert "<html" in r.stdout[:500].lower()
    return r.stdout


class _Outputs(html.parser.HTMLParser):
    """Output boxes by MIME type, and the images' sources."""

    def __init__(self) -> None:
        super().__init__()
        self.mime_types: list[str] = []
        self.classes: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("data-mime-type"):
            self.mime_types.append(a["data-mime-type"])
        self.classes += (a.get("class") or "").split()
        if tag == "img":
            self.images.append(a.get("src") or "")


def _parsed(dom: str) -> _Outputs:
    p = _Outputs()
    p.feed(dom)
    return p


def _svgs(dom: str) -> list[ET.Element]:
    out = []
    for src in _parsed(dom).images:
        assert src.startswith("data:image/svg+xml;base64,"), src[:80]
        out.append(ET.fromstring(base64.b64decode(src.split(",", 1)[1])))
    return out


def _class(e: ET.Element) -> str:
    return e.get("class", "")


def _points(d: str) -> int:
    """Vertices of a path's ``d``: a line with fewer than two draws nothing."""
    return len(re.findall(r"[ML]\s*-?[\d.]+", d or ""))


def _vertices(d: str) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in re.findall(r"[ML]\s*(-?[\d.]+)[ ,](-?[\d.]+)", d)]


def _band_thickness(d: str) -> list[float]:
    """The thickness at each x of a stacked area's band: Vega draws it as its upper edge left
    to right, then its lower edge back."""
    v = _vertices(d)
    n = len(v) // 2
    upper, lower = v[:n], v[n:][::-1]
    assert [x for x, _ in upper] == [x for x, _ in lower], "not an area band"
    return [lo - up for (_, up), (_, lo) in zip(upper, lower)]


class _Tables(html.parser.HTMLParser):
    """The text of every table cell, as tables of rows."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self.tables:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _tables(dom: str, start: str, end: str | None = None) -> list[list[list[str]]]:
    """The tables of the report between the headings ``start`` and ``end``."""
    i = dom.find(start)
    assert i != -1, start
    j = dom.find(end, i) if end else len(dom)
    p = _Tables()
    p.feed(dom[i:j])
    return p.tables


def _titles(svg: ET.Element) -> list[str]:
    return [
        "".join(t.itertext())
        for g in svg.iter()
        if _class(g) == "mark-group role-title"
        for t in g.iter(f"{SVG}text")
    ]


def test_screenshot_saved_under_out(report, tmp_path) -> None:
    shot = REPO / "out" / "capacity-report.png"
    shot.parent.mkdir(exist_ok=True)
    shot.unlink(missing_ok=True)
    r = _run_chromium(
        tmp_path,
        "shot",
        "--window-size=1280,6000",
        f"--screenshot={shot}",
        (report / "capacity.html").as_uri(),
    )
    assert r.returncode == 0, r.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    # The IHDR chunk comes first: the image is the window asked for (times the device scale
    # factor), 8-bit RGB or RGBA, not a sliver or a crash page's thumbnail.
    length, kind, width, height, depth, color = struct.unpack(">I4sIIBB", data[8:26])
    assert (length, kind) == (13, b"IHDR")
    scale = width / 1280
    assert scale in (1, 1.5, 2, 3) and height == 6000 * scale, (width, height)
    assert depth == 8 and color in (2, 6), (depth, color)


def test_no_stderr_or_error_output(dom) -> None:
    p = _parsed(dom)
    assert "text/html" in p.mime_types  # the checks below look at real output boxes
    assert "application/vnd.jupyter.stderr" not in p.mime_types
    assert not [c for c in p.classes if c in ("jp-OutputArea-error", "output_error")]
    text = re.sub(r'src="data:[^"]*"', "", dom)  # base64 may hold anything
    for bad in ("Traceback", "TqdmWarning", "IProgress not found", "0/10", "0%|"):
        assert bad not in text, bad


def test_every_chart_has_marks(dom) -> None:
    svgs = _svgs(dom)
    assert len(svgs) == 3  # the disk panels, the databases behind them, the load heatmaps
    disk, databases, load = svgs
    panels = [e for e in disk.iter() if "child_pathgroup" in _class(e)]
    assert len(panels) == 6
    for i, panel in enumerate(panels):
        lines = [e for e in panel.iter() if "mark-line" in _class(e)]
        # used, trend, capacity: each drawn with at least two points
        drawn = [max((_points(p.get("d")) for p in g.iter(f"{SVG}path")), default=0) for g in lines]
        assert len(drawn) == 3 and min(drawn) >= 2, (i, drawn)
        assert drawn[0] > 24, (i, drawn)  # the used line: the window's hourly points
    db_panels = [e for e in databases.iter() if "child_pathgroup" in _class(e)]
    assert 1 <= len(db_panels) <= 5
    for i, panel in enumerate(db_panels):
        areas = [e for e in panel.iter() if "mark-area" in _class(e)]
        drawn = [max((_points(p.get("d")) for p in g.iter(f"{SVG}path")), default=0) for g in areas]
        assert drawn and min(drawn) >= 2, (i, drawn)  # stacked bands with their points
        # No band drops to nothing at a point and back (a missing point drawn as 0): its
        # thickness stays within half of its usual one (sizes change slowly).
        bands = [p.get("d") for g in areas for p in g.iter(f"{SVG}path") if _points(p.get("d"))]
        for d in bands:
            thick = sorted(_band_thickness(d))
            usual = thick[len(thick) // 2]
            if usual >= 2.0:  # a band of a pixel or two has no shape to check
                assert thick[0] >= 0.5 * usual, (i, thick[0], usual)
    heatmaps = [e for e in load.iter() if _class(e).startswith("mark-rect role-mark")]
    assert len(heatmaps) == 2
    for g in heatmaps:
        cells = [p for p in g.iter(f"{SVG}path") if _points(p.get("d")) >= 1]
        assert len(cells) >= 24, len(cells)


def test_disk_panels_in_forecast_order(dom, report) -> None:
    import polars as pl

    disk = _svgs(dom)[0]
    titles = [
        "".join(t.itertext())
        for g in disk.iter()
        if _class(g) == "mark-group role-title"
        for t in g.iter(f"{SVG}text")
    ]
    assert titles[0] == "Disks closest to full"
    shown = titles[1:]
    view = pl.read_parquet(report / "forecast_view.parquet").head(6)
    expected = [f"{r['host']} {r['partition_name']}" for r in view.iter_rows(named=True)]
    assert shown == expected
    # Forecast order: days to full never decreases along the panels (nulls last).
    days = view.get_column("days_to_full").to_list()
    known = [d for d in days if d is not None]
    assert known == sorted(known) and days[: len(known)] == known
    # The database panels follow the same order.
    db_titles = _titles(_svgs(dom)[1])[1:]
    every = pl.read_parquet(report / "forecast_view.parquet")
    order = [f"{r['host']} {r['partition_name']}" for r in every.iter_rows(named=True)]
    assert db_titles and "null" not in db_titles
    assert db_titles == [t for t in order if t in db_titles]


def test_database_section_lists_the_five_fullest_disks_in_forecast_order(dom, report) -> None:
    import polars as pl

    view = pl.read_parquet(report / "forecast_view.parquet").head(5)
    five = [f"{r['host']} {r['partition_name']}" for r in view.iter_rows(named=True)]
    (table,) = _tables(dom, "Databases behind the growth", "Load by hour of day")
    header, rows = table[0], table[1:]
    assert header[:4] == ["#", "disk", "disk full on", "database"]
    # Each disk once, on its first line, in forecast order: all five, ranked 1 to 5.
    assert [r[1] for r in rows if r[1]] == five
    assert [r[0] for r in rows if r[0]] == ["1", "2", "3", "4", "5"]
    assert all(bool(r[0]) == bool(r[1]) == bool(r[2]) for r in rows)
    # Under each: its growing databases with their numbers, or one line saying it has none.
    disks, disk = {}, None
    for r in rows:
        disk = r[1] or disk
        disks.setdefault(disk, []).append(r)
    with_databases = []
    for name, lines in disks.items():
        sized = [r for r in lines if r[4]]
        if sized:
            assert sized == lines and all(r[3] and r[5] for r in lines), lines
            with_databases.append(name)
        else:
            assert len(lines) == 1 and lines[0][3].startswith(("no", "none")), lines
    # The chart: a panel for each disk with growing databases, in the same order.
    assert _titles(_svgs(dom)[1]) == ["Growing databases on the disks closest to full"] + (
        with_databases
    )


def test_closing_table_is_an_html_table(dom, report) -> None:
    import polars as pl

    heading = dom.find("Five partitions closest to full")
    assert heading != -1
    tail = dom[heading:]
    # A real table, not a text table wrapped in a narrow <pre>.
    assert "<table" in tail and "days_to_full" in tail
    assert "┌" not in tail
    (table,) = _tables(dom, "Five partitions closest to full")
    header, rows = table[0], table[1:]
    assert header[-1] == "full_on" and "days_to_full" in header
    # Host names whole (no "…"), in forecast order, and no quotes around text.
    view = pl.read_parquet(report / "forecast_view.parquet").head(5)
    assert [r[0] for r in rows] == view["host"].cast(pl.String).to_list()
    assert not [c for r in rows for c in r if "…" in c or c.startswith('"')]


# Measured in the page itself, laid out at 1280 px: where each table ends on the right, and
# whether any of its cells holds more text than it shows.
_MEASURE = """<script>
document.querySelectorAll("table").forEach((t) => {
  t.setAttribute("data-right", Math.ceil(t.getBoundingClientRect().right));
  const cut = [...t.querySelectorAll("td, th")].filter((c) => c.scrollWidth > c.clientWidth + 1);
  t.setAttribute("data-cut-cells", cut.length);
});
document.body.setAttribute("data-viewport", document.documentElement.clientWidth);
</script>"""


def test_the_database_and_closing_tables_fit_a_1280px_window(report, tmp_path) -> None:
    page = tmp_path / "measured.html"
    page.write_text(
        (report / "capacity.html").read_text().replace("</body>", _MEASURE + "</body>"),
        encoding="utf-8",
    )
    r = _run_chromium(tmp_path, "measure", "--window-size=1280,6000", "--dump-dom", page.as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    viewport = int(re.search(r'data-viewport="(\d+)"', r.stdout).group(1))
    assert viewport == 1280
    for heading, end in [
        ("Databases behind the growth", "Load by hour of day"),
        ("Five partitions closest to full", None),
    ]:
        i = r.stdout.find(heading)
        section = r.stdout[i : r.stdout.find(end, i) if end else None]
        (table,) = re.findall(r"<table[^>]*>", section)
        right = int(re.search(r'data-right="(\d+)"', table).group(1))
        cut = int(re.search(r'data-cut-cells="(\d+)"', table).group(1))
        assert right <= viewport and cut == 0, (heading, right, cut)
