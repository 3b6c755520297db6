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
- at 1280 px and at 800 px (issue 34): the page does not scroll sideways, no table's box is
  wider than the window and no cell is cut short, every chart is drawn whole in its box (one
  column below about 1 100 px), and every crossing day's label is inside its plot;
- no cell shows a dtype row, a quoted string or a hex id where a host name exists;
- the headroom table's cells are coloured by the status of their resource, and the databases
  behind the disks closest to full are listed in forecast order, each on a data-bearing
  member, and where none grows beside a growing disk, the reason;
- no finding on a config server's or a mongos's disk is called a cluster's: the cluster's,
  shard's and replica set's rows are data-bearing members', and the page names the role.

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
    statuses = ("critical", "warning", "watch", "ok", "oversized")
    assert items and all(cls in statuses for _, cls in page.summary)
    # An oversized deployment is said as such (issue 33 §4).
    assert (
        [text for text, cls in page.summary if cls == "oversized"]
        == [text for text in items if ": oversized: CPU, cache, disk space and IOPS" in text]
        != []
    )

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


def test_each_chart_marks_its_deployments_events(dom, report) -> None:
    """The events the report marked (``events.parquet``: each finding's deployment's
    elections, restarts, auto-scaling ... over the window) are drawn on that deployment's
    charts, each labelled."""
    import polars as pl

    from opsapi.report.charts import EVENT_LABELS

    marks = pl.read_parquet(report / "events.parquet")
    assert marks.height > 0
    svgs = dict(re.findall(r'id="(finding-[\w-]+)"(.*?)</svg>', dom, flags=re.S))
    marked = 0
    for chart in _page(dom).charts:
        if chart["id"] == "finding-shards":
            continue
        mine = marks.filter(pl.col("deployment") == chart["data-title"].split(": ")[0])
        labels = set(re.findall(r"<text[^>]*>([^<]*)</text>", svgs[chart["id"]]))
        assert {EVENT_LABELS[k] for k in mine["kind"]} <= labels, (chart["data-title"], labels)
        marked += not mine.is_empty()
    assert marked >= 1


def test_each_disk_chart_names_the_database_that_grows_it(dom) -> None:
    """Under a disk finding's chart, the seeded database that makes most of its partition's
    growth, first, with its share."""
    from opsapi.demo import DEMO_NOW
    from opsapi.testing import Simulator

    with Simulator(seed=0, now=DEMO_NOW) as sim:
        truth = {(d["process_id"].split(".")[0], d["partition_name"]): d
                 for d in sim.database_truth() if d["drives_growth"]}  # fmt: skip
    # Within one finding's box: a disk chart's title, then its drivers' line.
    named = re.findall(r'data-title="[^"]*: Disk space \(([\w-]+), (\w+)\)"'
                       r'(?:(?!class="finding").)*?<p class="drivers">([^<]*)</p>', dom,
                       flags=re.S)  # fmt: skip
    checked = 0
    for host, part, said in named:
        t = truth.get((host, part))
        if t is not None:
            assert said.startswith(f"Growing on {host} {part}: {t['database_name']} "), said
            checked += 1
    assert checked >= 1, named


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
    # Under each disk: its growing databases with their numbers, or one line saying none,
    # and why where the disk grows.
    growing = dict(zip(five, view["trend"] == "growing"))
    disk = None
    for r in rows:
        disk = r[1] or disk
        assert r[3] and (r[3].startswith("none") or r[4]), r
        if r[3].startswith("none") and growing[disk]:
            assert ": " in r[3], r


def test_every_database_on_a_data_bearing_member(dom, report) -> None:
    import polars as pl

    topo = pl.read_parquet(report / "topology.parquet")
    growth = pl.read_parquet(report / "database_growth.parquet")
    # What the analysis read: no database on a mongos, an application's on no config server.
    roles = growth.join(topo.select("host_id", "role"), on="host_id")
    assert roles.height and "mongos" not in roles["role"].to_list()
    system = pl.col("database_name").cast(pl.String).is_in(["admin", "config", "local"])
    assert set(roles.filter(~system)["role"]) == {"data"}
    # What the page lists under each disk: growing databases only where data lives.
    i = dom.find("Databases behind the growth")
    p = _Page()
    p.feed("<body>" + dom[i : dom.find("</section>", i)])
    (table,) = p.tables
    disk = None
    for r in [[t for t, _ in r] for r in table[1:]]:
        disk = r[1] or disk  # the host's label, with its role where it holds no data
        if not r[3].startswith("none"):
            assert "(mongos)" not in disk, r
            assert "(config server)" not in disk or r[3] in ("admin", "config", "local"), r


def test_no_config_server_or_mongos_finding_is_called_a_clusters_disk(dom, report) -> None:
    import polars as pl

    h = pl.read_parquet(report / "headroom.parquet")
    topo = pl.read_parquet(report / "topology.parquet")
    # A cluster's, shard's and replica set's rows (the table's columns) are data-bearing
    # members'; the config servers and mongos are scopes of their own.
    data = h.filter(pl.col("scope_kind").is_in(["cluster", "shard", "replica_set"]))
    assert data.height and set(data["role"]) == {"data"}
    kinds = set(h.filter(pl.col("role").is_in(["config", "mongos"]))["scope_kind"])
    assert kinds == {"host", "config_servers", "mongos"}
    # Wherever the page names a config server or a mongos in a finding, it says which it is.
    others = {
        m.split(".")[0]: r
        for m, r in zip(topo["member"], topo["role"])
        if r in ("config", "mongos")
    }
    page = _page(dom)
    clauses = [c for text, _ in page.summary for c in text.split(": ", 1)[1].split("; ")]
    titles = [c["data-title"] for c in page.charts]
    for said in clauses + titles:
        for short, role in others.items():
            if f"({short}" in said:
                name = "config server" if role == "config" else "mongos"
                assert name in said.lower(), said


# Measured in the page itself, once every chart is drawn: the page's width against the
# window's, where each table's box ends on the right and whether any of its cells holds more
# text than it shows, each chart's box and drawing, and each crossing label against its
# chart's plot. Chromium's virtual time runs the charts' scripts and this one's waits.
_MEASURE = """<script>
function box(el) {
  const r = el.getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom].map((v) => Math.round(v)).join(",");
}
function measure() {
  if (document.body.getAttribute("data-charts") !== "done") { setTimeout(measure, 50); return; }
  const root = document.documentElement;
  document.body.setAttribute("data-viewport", root.clientWidth);
  document.body.setAttribute("data-page-width", root.scrollWidth);
  document.querySelectorAll("table").forEach((t) => {
    const scroll = t.closest(".scroll") || t;
    t.setAttribute("data-right", Math.ceil(scroll.getBoundingClientRect().right));
    const cut = [...t.querySelectorAll("td, th")].filter((c) => c.scrollWidth > c.clientWidth + 1);
    t.setAttribute("data-cut-cells", cut.length);
  });
  document.querySelectorAll(".chart").forEach((c) => {
    const svg = c.querySelector("svg");
    c.setAttribute("data-box", box(c));
    if (!svg) return;
    c.setAttribute("data-svg", box(svg));
    c.setAttribute("data-plot", box(svg.querySelector("path.background")));
    const labels = [...svg.querySelectorAll("g.crossing_marks text")];
    c.setAttribute("data-crossing", labels.map((t) => box(t) + ":" + t.textContent).join("|"));
  });
  document.body.setAttribute("data-measured", "1");
}
measure();
</script>"""


def _rect(text: str) -> tuple[int, int, int, int]:
    left, top, right, bottom = (int(v) for v in text.split(","))
    return left, top, right, bottom


@pytest.mark.parametrize("width", [1280, 800])
def test_the_page_fits_the_window_at_1280_and_800_px(report, proxy, tmp_path, width) -> None:
    page = tmp_path / "measured.html"
    head, tail = (report / "capacity.html").read_text().rsplit("</body>", 1)
    page.write_text(head + _MEASURE + "</body>" + tail, encoding="utf-8")
    r = _run_chromium(
        tmp_path, proxy, "measure", f"--window-size={width},6000", "--dump-dom", page.as_uri()
    )
    assert r.returncode == 0, r.stderr[-2000:]
    body = re.search(r"<body[^>]*>", r.stdout).group(0)
    assert 'data-measured="1"' in body, body
    viewport = int(re.search(r'data-viewport="(\d+)"', body).group(1))
    assert viewport == width
    # No horizontal scroll of the page: what does not fit scrolls in its own box.
    assert int(re.search(r'data-page-width="(\d+)"', body).group(1)) <= viewport
    laid_out = re.sub(r"<script\b[^>]*>.*?</script>", "", r.stdout, flags=re.S)
    tables = re.findall(r"<table[^>]*>", laid_out)
    assert len(tables) >= 4
    for t in tables:
        right = int(re.search(r'data-right="(\d+)"', t).group(1))
        cut = int(re.search(r'data-cut-cells="(\d+)"', t).group(1))
        assert right <= viewport and cut == 0, (t, right, cut)
    # Every chart drawn whole inside its box, its box inside the window: one column below
    # about 1 100 px, two above.
    charts = [dict(re.findall(r'(data-[a-z]+)="([^"]*)"', c))
              for c in re.findall(r'<div class="chart\b[^>]*>', laid_out)]  # fmt: skip
    assert len(charts) >= 6
    lefts = set()
    for c in charts:
        chart, svg, plot = (_rect(c[k]) for k in ("data-box", "data-svg", "data-plot"))
        assert chart[2] <= viewport and svg[0] >= chart[0] - 1 and svg[2] <= chart[2] + 1, c
        assert plot[2] - plot[0] > 0.6 * (chart[2] - chart[0]), c  # the plot takes the width
        lefts.add(chart[0])
        # Each crossing day's label inside its plot.
        for label in filter(None, c["data-crossing"].split("|")):
            where, text = label.split(":", 1)
            x0, y0, x1, y1 = _rect(where)
            assert text.startswith("crosses ")
            assert plot[0] - 1 <= x0 and x1 <= plot[2] + 1, (c["data-title"], label, plot)
            assert plot[1] - 1 <= y0 and y1 <= plot[3] + 1, (c["data-title"], label, plot)
    assert len(lefts) == (2 if width > 1100 else 1), lefts
    crossing = [c for c in charts if c["data-crossing"]]
    assert len(crossing) >= 4  # the disks', the oplog window's, the connections'


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
