"""The capacity report's parts (``opsapi.report``) on the shared simulator's headroom, without
a browser (``test_report_browser.py`` opens the whole page): each finding's chart shows its
date (the crossing day inside the plot, now, every threshold its sentence names, day ticks
that carry the month, evenly apart), the flagged hosts' table says which way is worse and
colours no empty cell, and a disk under which no database grows says why."""

from __future__ import annotations

import html.parser
import sys
from datetime import datetime, timedelta, timezone

import polars as pl
import pytest

from opsapi import capacity

pytest.importorskip("altair", reason="the report's charts need Altair")

from opsapi.report import charts, sections  # noqa: E402


@pytest.fixture(scope="module")
def pulled(sim):
    return capacity.headroom_inputs(sim.client())


@pytest.fixture(scope="module")
def h(pulled, fixed_now) -> pl.DataFrame:
    return capacity.headroom(*pulled, now=fixed_now)


def _chart(row: dict, pulled, fixed_now) -> dict:
    topo = capacity.topology(pulled.hosts)
    series = charts.series_of(row, pulled.host_frame, pulled.disk_frame, topo)
    assert series.height > 24 * 7
    spec = charts.finding_chart({**row, "deployment": "d"}, series, fixed_now).to_dict()
    return spec


def _layers(spec: dict) -> dict[str, dict]:
    """The named layers (the labels) with their one datum each, by name."""
    data = spec["datasets"]
    return {
        layer["name"]: data[layer["data"]["name"]][0] for layer in spec["layer"] if "name" in layer
    }


def _ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def _when(datum: dict) -> datetime:
    return datetime.fromisoformat(datum["timestamp"].replace("Z", "+00:00"))


def test_every_findings_chart_shows_now_its_limit_and_the_day_it_crosses(h, pulled, fixed_now):
    flagged = h.filter(
        pl.col("scope_kind") == "host",
        pl.col("status").is_in(["critical", "warning", "watch"]),
        pl.col("resource") != "shard_growth",
    )
    assert flagged.height >= 6
    dated = 0
    for row in flagged.iter_rows(named=True):
        spec = _chart(row, pulled, fixed_now)
        named = _layers(spec)
        # Now, and the limit the sentence names, each labelled.
        assert _when(named["now"]) == fixed_now
        assert named["limit"]["value"] == row["limit"]
        assert named["limit"]["label"].startswith(f"limit {row['limit']:,.4g}")
        line = spec["layer"][-1]["encoding"]["x"]
        lo, hi = line["scale"]["domain"]
        assert lo < _ms(fixed_now) < hi
        if row["days_left"]:
            # The day it crosses: a rule and its label, inside the time the plot shows.
            crossing = named["crossing"]
            assert crossing["label"] == f"crosses {row['date']:%b %-d}"
            assert lo < _ms(_when(crossing)) <= hi
            dated += 1
        else:
            assert "crossing" not in named
        assert spec["width"] == "container"
    assert dated >= 4


def test_the_cpu_chart_shows_the_mark_its_sentence_cites(h, pulled, fixed_now, sim):
    (cpu,) = [t for t in sim.headroom_truth() if t["resource"] == "cpu"]
    row = h.filter(
        pl.col("scope_kind") == "host", pl.col("member") == cpu["members"][0],
        pl.col("resource") == "cpu",
    ).row(0, named=True)  # fmt: skip
    assert row["note"] == "p95 above 90 %" and row["high_mark"] == 90.0
    named = _layers(_chart(row, pulled, fixed_now))
    assert named["high_mark"]["value"] == 90.0 and named["high_mark"]["label"] == "p95 mark 90 %"
    assert named["limit"]["value"] == 100.0


def test_day_ticks_carry_the_month_evenly_apart():
    start = datetime(2026, 2, 16, 10, tzinfo=timezone.utc)
    for days in (3, 16, 40, 59):
        axis = charts._axis(start, start + timedelta(days=days)).to_dict()
        assert axis["format"] == "%b %-d" and axis["labelOverlap"] == "greedy"
        ticks = axis["values"]
        steps = {b - a for a, b in zip(ticks, ticks[1:])}
        assert len(steps) == 1 and 3 <= len(ticks) <= 9, (days, ticks)
        # Each at midnight, so that a label names its day.
        assert all(t % 86_400_000 == 0 for t in ticks)


class _Cells(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, str]]] = []
        self._cell: list[str] | None = None
        self._cls = ""

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell, self._cls = [], dict(attrs).get("class") or ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(("".join(self._cell).strip(), self._cls))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_flagged_hosts_say_which_way_is_worse_and_colour_no_empty_cell(h):
    body, _ = sections._details_section(h)
    page = _Cells()
    page.feed(body)
    header = [t for t, _ in page.rows[0]]
    assert header[4:7] == ["p95 toward the limit", "worst", "worse when"]
    rows = page.rows[1:]
    statuses = ("critical", "warning", "watch")
    for r in rows:
        for text, cls in r:
            if set(cls.split()) & set(statuses):
                assert text, r  # coloured, never empty: "high" where there is no date
    by = {(r[0][0], r[1][0]): [t for t, _ in r] for r in rows}
    oplog = [v for k, v in by.items() if k[1] == "Oplog window"]
    assert oplog and all(v[4].endswith("(p5)") and v[5].endswith("(min)") for v in oplog)
    assert all(v[6] == "lower" for v in oplog)
    cpu = [v for k, v in by.items() if k[1] == "CPU"]
    assert cpu and all(v[9] == "high" and v[6] == "higher" for v in cpu)
    conns = [v for k, v in by.items() if k[1] == "Connections"]
    assert conns and all(v[4].endswith("(p99)") for v in conns)


@pytest.mark.parametrize(
    ("disk", "matched", "has_dbs", "said"),
    [
        ({"role": "mongos", "trend": "growing", "growth_bytes_per_day": 1e9,
          "partition_name": "root"}, None, False,
         "none: a mongos holds no data; the growth is its system's"),
        ({"role": "data", "trend": "growing", "growth_bytes_per_day": 1e9,
          "partition_name": "xvdb"}, "data", True,
         "none here: its databases are on data; the growth is not theirs (journal, logs)"),
        ({"role": "data", "trend": "growing", "growth_bytes_per_day": 1e9,
          "partition_name": "data"}, "data", True,
         "none growing: the growth is outside the databases (journal, logs)"),
        ({"role": "data", "trend": "flat", "growth_bytes_per_day": 0.0,
          "partition_name": "data"}, "data", True, "none growing"),
        ({"role": "data", "trend": "growing", "growth_bytes_per_day": 1e9,
          "partition_name": "data"}, None, False, "none measured on this host"),
    ],
)  # fmt: skip
def test_a_growing_disk_without_growing_databases_says_why(disk, matched, has_dbs, said):
    assert sections._no_growth(disk, matched, has_dbs) == said


@pytest.fixture(scope="module")
def long(sim):
    """The shared world with 63 days of history before now (the window stays 14 days)."""
    return capacity.headroom_inputs(sim.client(), window="14d", history="63d")


@pytest.fixture(scope="module")
def long_h(long, fixed_now):
    return capacity.headroom(*long, now=fixed_now), capacity.backtest(*long, now=fixed_now)


def test_each_dated_finding_shows_its_range_and_how_close_past_forecasts_came(
    long, long_h, fixed_now
):
    h, bt = long_h
    dated = h.filter(
        pl.col("scope_kind") == "host",
        pl.col("status").is_in(["critical", "warning", "watch"]),
        pl.col("days_left") > 0,
    )
    assert dated.height >= 4
    for row in dated.iter_rows(named=True):
        caption = sections._caption(row, bt)
        span = capacity.range_text(row["days_low"], row["days_high"])
        # The range, its level and what it rests on (issue 37), then how close past ones came.
        said = f"In ~{row['days_left']:.0f} days ({span}, {row['rests_on']})"
        assert caption.startswith(said) and "80 %, backtested on 63 days" in said, caption
        assert "past forecasts of this kind on this fleet were within ±" in caption
        assert "9 times out of 10" in caption
        # The chart shades the range, inside the time it shows.
        spec = _chart(row, long, fixed_now)
        band = _layers(spec).get("range")
        assert band is not None, row["resource"]
        lo, hi = spec["layer"][-1]["encoding"]["x"]["scale"]["domain"]
        assert (
            lo
            <= _ms(_when(band))
            < _ms(datetime.fromisoformat(band["t2"].replace("Z", "+00:00")))
            <= hi
        )


def test_the_summary_says_where_the_ranges_come_from(long, long_h, pulled, h, fixed_now, sim):
    names = {g.id: g.name for g in sim.client().groups.list()}
    short = (h, capacity.backtest(*pulled, now=fixed_now))
    for inputs, (hh, bt), words in (
        (long, long_h, "calibrated on forecasts made the same way on its own last 63 days"),
        (pulled, short, "each range comes from the fit"),
    ):
        data = sections.ReportData(*inputs, names, "14d", now=fixed_now)
        said = sections._ranges_said(hh, bt, data)
        assert (
            said.startswith("The figures in brackets are each date's 80 % range") and words in said
        )


@pytest.mark.parametrize("missing", ["altair", "vl_convert"])
def test_without_the_charts_extra_the_report_names_it(missing, pulled, fixed_now, monkeypatch):
    monkeypatch.setitem(sys.modules, missing, None)  # `import` raises ImportError
    data = sections.ReportData(*pulled, {}, "14d", now=fixed_now)
    with pytest.raises(ImportError, match=r"pip install 'opsapi\[charts\]'") as e:
        sections.render(data)
    assert e.value.name == missing and f"({missing} is missing)" in str(e.value)
