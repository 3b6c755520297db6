"""The capacity report checked the way a person sees it: opened in headless Chromium.

Chromium loads ``out/capacity.html`` (written by ``python -m opsapi.demo``), its DOM after
loading (``--dump-dom``) is checked, and a full-page screenshot is saved as
``out/capacity-report.png`` for people to look at. Checked:

- no stderr or error output box (the red boxes of a notebook);
- every chart has marks: each image loads as SVG, each disk panel has its used, trend and
  capacity lines drawn with real points, each heatmap has its cells;
- the disk panels come in forecast order (soonest full first), the order of the final table.

Needs Debian's ``chromium`` (``.ci/run`` installs it); skipped, saying so, without it.
"""

from __future__ import annotations

import base64
import html.parser
import os
import re
import shutil
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
    db_titles = [
        "".join(t.itertext())
        for g in _svgs(dom)[1].iter()
        if _class(g) == "mark-group role-title"
        for t in g.iter(f"{SVG}text")
    ][1:]
    every = pl.read_parquet(report / "forecast_view.parquet")
    order = [f"{r['host']} {r['partition_name']}" for r in every.iter_rows(named=True)]
    assert db_titles and "null" not in db_titles
    assert db_titles == [t for t in order if t in db_titles]


def test_closing_table_is_an_html_table(dom) -> None:
    heading = dom.find("Five partitions closest to full")
    assert heading != -1
    tail = dom[heading:]
    # A real table (polars' HTML), not a text table wrapped in a narrow <pre>.
    assert "<table" in tail and "days_to_full" in tail
    assert "┌" not in tail
