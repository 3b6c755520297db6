"""The capacity report checked the way a person sees it: opened in headless Chromium.

``python -m opsapi.demo`` writes ``out/capacity.html``; Chromium loads it with every request
that would leave the machine sent to a proxy of this test's that refuses it and keeps its
address, lets its scripts run, and its DOM (``--dump-dom``) is checked; a full-page screenshot
is saved as ``out/capacity-report.png`` for people to look at. Checked (issue 23, §4):

- the summary is the first thing on the page, and names every seeded finding
  (``sim.headroom_truth()``) with its resource and member;
- no request leaves the machine (none reaches the proxy, the file names no remote script,
  stylesheet or image), and the charts still render: each has its marks, one per finding, in
  urgency order;
- no table is wider than the page at 1280 px, and no cell is cut short;
- no cell shows a dtype row, a quoted string or a hex id where a host name exists;
- the headroom table's cells are coloured by the status of their resource, and the databases
  behind the disks closest to full are listed in forecast order.

Needs Debian's ``chromium`` (``.ci/run`` installs it); skipped, saying so, without it.
"""

from __future__ import annotations

import html.parser
import os
import re
import shutil
import socket
import struct
import subprocess
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The flags of a quiet, isolated headless browser: no network of its own, no profile reuse;
# scripts get 30 s of virtual time to draw the charts before the DOM is dumped.
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
    "--virtual-time-budget=30000",
]

# The hosts of the services Chromium calls on its own (component updates, sign-in, network
# time): not the page's requests.
_CHROMIUM_OWN = (".google.com", ".googleapis.com", ".gvt1.com")

pytestmark = pytest.mark.slow
pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")
for _module in ("altair", "vl_convert"):
    pytest.importorskip(_module, reason=f"{_module} is not installed (the demo needs it)")


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does)")


class _RefusingProxy:
    """A proxy on a loopback port that answers every request 403 and keeps what was asked
    (the request line: ``GET http://...`` or ``CONNECT host:443``)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.asked: list[str] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                try:
                    self.asked.append(conn.recv(4096).split(b"\r\n")[0].decode("latin-1"))
                    conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(scope="module")
def proxy():
    p = _RefusingProxy()
    yield p
    p.close()


def _run_chromium(tmp_path: Path, proxy: _RefusingProxy, name: str, *args: str):
    profile = tmp_path / f"profile-{name}"  # a fresh --user-data-dir per run
    return subprocess.run(
        [
            _chromium(),
            *FLAGS,
            f"--user-data-dir={profile}",
            # Every request through the refusing proxy, loopback included.
            f"--proxy-server=http://127.0.0.1:{proxy.port}",
            "--proxy-bypass-list=<-loopback>",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
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
def dom(report, proxy, tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("chromium")
    r = _run_chromium(tmp, proxy, "dom", "--dump-dom", (report / "capacity.html").as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    assert "<html" in r.stdout[:500].lower()
    return r.stdout


@pytest.fixture(scope="module")
def truth():
    from opsapi.demo import DEMO_NOW
    from opsapi.testing import Simulator

    with Simulator(seed=0, now=DEMO_NOW) as sim:
        return sim.headroom_truth()


class _Page(html.parser.HTMLParser):
    """The body's elements in order, the visible text (no scripts, no attributes), the
    summary's items, the tables as rows of (text, class) cells and the charts."""

    def __init__(self) -> None:
        super().__init__()
        self.body_tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.summary: list[tuple[str, str]] = []
        self.tables: list[list[list[tuple[str, str]]]] = []
        self.charts: list[dict] = []
        self._in_body = self._script = False
        self._li: list[str] | None = None
        self._li_class = ""
        self._cell: list[str] | None = None
        self._cell_class = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self._in_body = True
            return
        if self._in_body and tag not in ("script",):
            self.body_tags.append((tag, a))
        if tag == "script":
            self._script = True
        elif tag == "li" and "summary" in self._parents():
            self._li, self._li_class = [], a.get("class", "")
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell, self._cell_class = [], a.get("class") or ""
        elif tag == "div" and "chart" in (a.get("class") or "").split():
            self.charts.append(a)

    def _parents(self) -> str:
        return " ".join(a.get("class", "") for t, a in self.body_tags if t == "ul")

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = False
        elif tag == "li" and self._li is not None:
            self.summary.append(("".join(self._li).strip(), self._li_class))
            self._li = None
        elif tag in ("td", "th") and self._cell is not None and self.tables:
            self.tables[-1][-1].append(("".join(self._cell).strip(), self._cell_class))
            self._cell = None

    def handle_data(self, data):
        if self._script or not self._in_body:
            return
        self.text.append(data)
        for buf in (self._li, self._cell):
            if buf is not None:
                buf.append(data)


def _page(dom: str) -> _Page:
    p = _Page()
    p.feed(dom)
    return p


def test_the_summary_comes_first_and_names_every_seeded_finding(dom, truth) -> None:
    page = _page(dom)
    # The first element of the page is the summary, and its heading the first text.
    assert page.body_tags[0] == ("section", {"id": "summary"})
    assert "".join(page.text).strip().startswith("What runs out first")
    items = [text for text, _ in page.summary]
    assert items and all(cls in ("critical", "warning", "watch", "ok") for _, cls in page.summary)

    def said(*words: str) -> bool:
        return any(all(w in item for w in words) for item in items)

    short = {t["resource"]: t["members"][0].split(".")[0] for t in truth}
    assert said("oplog window below 24 h in ~", f"({short['oplog_window']})")
    assert said("CPU p95 9", f"above 90 % ({short['cpu']})")
    assert said("connections at 5,000 in ~", f"({short['connections']})")
    assert said(f"dirty cache above 20 % now ({short['cache']})")
    shards = next(t for t in truth if t["resource"] == "shard_growth")
    assert said(f"{shards['shard_name']} grows 4.0× as fast as the other shards")


def test_no_request_leaves_the_machine_and_the_charts_render(dom, report, proxy) -> None:
    # The page's own markup (the inline libraries' code aside) loads nothing from elsewhere.
    page_file = re.sub(r"<script\b[^>]*>.*?</script>", "", (report / "capacity.html").read_text(),
                       flags=re.S)  # fmt: skip
    assert "<script" not in page_file and page_file.count("<table") >= 4
    assert not re.search(r"<(script|img|iframe)[^>]+src=", page_file)
    assert not re.search(r"<link[^>]+href=", page_file)
    # Chromium itself still calls its own services (updates, sign-in, network time) at
    # start, whatever the flags: those hosts are its own; the page asks for nothing.
    asked = {re.split(r"[:/ ]", line.split(" ")[1].removeprefix("http://"))[0]
             for line in proxy.asked}  # fmt: skip
    assert not [h for h in asked if not h.endswith(_CHROMIUM_OWN)], proxy.asked
    charts = _page(dom).charts
    # A chart per finding of the disk, the oplog window, CPU, connections and the cache, and
    # the shards' growth: each drawn (as SVG, with its lines) without the network.
    assert len(charts) >= 6
    for chart in charts:
        assert chart.get("data-rendered") == "1", chart
        assert "data-error" not in chart
    drawn = dom.split('id="finding-')[1:]
    assert len(drawn) == len(charts)
    for svg in drawn:
        assert "<svg" in svg
        # The series: a line through the window's hourly points.
        lines = re.findall(r'<path[^>]*d="(M[^"]*L[^"]*)"', svg)
        assert max(d.count("L") for d in lines) > 24 * 7, svg[:300]


def test_charts_in_urgency_order(dom, report) -> None:
    import polars as pl

    summary = pl.read_parquet(report / "summary.parquet")["deployment"].to_list()
    titles = [c["data-title"] for c in _page(dom).charts if c["id"] != "finding-shards"]
    deployments = [t.split(": ")[0] for t in titles]
    order = [summary.index(d) for d in deployments]
    assert order == sorted(order), titles
    # The seeded findings each have their chart.
    for resource in ("Oplog window", "CPU", "Connections", "Cache (dirty)", "Disk space"):
        assert any(f": {resource} (" in t for t in titles), resource


def test_no_dtype_rows_quotes_or_hex_ids(dom) -> None:
    page = _page(dom)
    cells = [text for table in page.tables for row in table for text, _ in row]
    assert len(page.tables) >= 4 and cells
    dtypes = re.compile(r"^(str|cat|f64|f32|i64|i32|u32|bool|date|datetime\[.*\]|list\[.*\])$")
    rows = [[t for t, _ in row] for table in page.tables for row in table]
    assert not [r for r in rows if all(dtypes.match(c) for c in r)]  # a dtype row
    assert not [c for c in cells if dtypes.match(c) and c != "date"]
    assert not [c for c in cells if c and (c[0] in "\"'" or c[-1] in "\"'")]
    assert not [c for c in cells if "…" in c]
    text = " ".join(page.text)
    assert not re.findall(r"\b[0-9a-f]{24}\b|\b[0-9a-f]{32}\b", text)
    assert "null" not in cells and "None" not in text


def test_headroom_table_coloured_by_status(dom, report) -> None:
    import polars as pl

    table = pl.read_parquet(report / "headroom_table.parquet")
    page = _page(dom)
    head = page.tables[0]
    header = [t for t, _ in head[0]]
    assert header[0] == "Deployment" and "Oplog window" in header and "CPU" in header
    rows = head[1:]
    assert [r[0][0] for r in rows] == table["deployment"].to_list()
    keys = {"Disk space": "disk", "Oplog window": "oplog_window", "CPU": "cpu",
            "Cache (dirty)": "cache", "Connections": "connections"}  # fmt: skip
    for row, want in zip(rows, table.iter_rows(named=True)):
        for name, key in keys.items():
            text, cls = row[header.index(name)]
            status = want[f"{key}_status"]
            assert cls.split()[0] == (status or "na"), (want["deployment"], name, cls)
            if status == "missing":
                assert text == "missing"


def test_databases_behind_the_five_disks_closest_to_full(dom, report) -> None:
    import polars as pl

    view = pl.read_parquet(report / "forecast_view.parquet").head(5)
    five = [f"{r['host']} {r['partition_name']}" for r in view.iter_rows(named=True)]
    i = dom.find("Databases behind the growth")
    assert i != -1
    p = _Page()
    p.feed("<body>" + dom[i : dom.find("</section>", i)])
    (table,) = p.tables
    header, rows = [t for t, _ in table[0]], [[t for t, _ in r] for r in table[1:]]
    assert header[:4] == ["#", "disk", "disk full on", "database"]
    assert [r[1] for r in rows if r[1]] == five
    assert [r[0] for r in rows if r[0]] == ["1", "2", "3", "4", "5"]
    # Under each disk: its growing databases with their numbers, or one line saying none.
    for r in rows:
        assert r[3] and (r[4] or r[3] == "none growing"), r


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


def test_every_table_fits_a_1280px_window(report, proxy, tmp_path) -> None:
    page = tmp_path / "measured.html"
    head, tail = (report / "capacity.html").read_text().rsplit("</body>", 1)
    page.write_text(head + _MEASURE + "</body>" + tail, encoding="utf-8")
    r = _run_chromium(
        tmp_path, proxy, "measure", "--window-size=1280,6000", "--dump-dom", page.as_uri()
    )
    assert r.returncode == 0, r.stderr[-2000:]
    viewport = int(re.search(r'data-viewport="(\d+)"', r.stdout).group(1))
    assert viewport == 1280
    laid_out = re.sub(r"<script\b[^>]*>.*?</script>", "", r.stdout, flags=re.S)
    tables = re.findall(r"<table[^>]*>", laid_out)
    assert len(tables) >= 4
    for t in tables:
        right = int(re.search(r'data-right="(\d+)"', t).group(1))
        cut = int(re.search(r'data-cut-cells="(\d+)"', t).group(1))
        assert right <= viewport and cut == 0, (t, right, cut)


def test_screenshot_saved_under_out(report, proxy, tmp_path) -> None:
    shot = REPO / "out" / "capacity-report.png"
    shot.parent.mkdir(exist_ok=True)
    shot.unlink(missing_ok=True)
    r = _run_chromium(
        tmp_path,
        proxy,
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
