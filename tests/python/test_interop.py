"""Results where users already work (issue 16, section 2): the Arrow PyCapsule interface
(pyarrow, DuckDB, pandas through them) and `_repr_html_` in Jupyter, checked against the
polars frames of the same objects."""

from __future__ import annotations

import html.parser

import polars as pl
import pytest

pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def results(sim, ids):
    g, hosts, alerts = ids["group"], ids["hosts"], ids["alerts"]
    m = sim.client().measurements.host(
        g, hosts[0].id, granularity="PT1H", period="P1D", metrics=["CONNECTIONS", "OPCOUNTER_CMD"]
    )
    return hosts, alerts, m


def test_pyarrow_takes_lists_and_measurements_as_their_frames(results):
    for obj in results:
        table = pa.table(obj)
        frame = obj.to_polars()
        assert table.num_rows == frame.height > 0
        assert table.column_names == frame.columns
        # The same values: back through polars, key columns as text.
        back = pl.from_arrow(table)
        assert back.select(pl.all().cast(pl.String)).equals(frame.select(pl.all().cast(pl.String)))
    hosts, alerts, m = results
    assert pa.table(m).column("value").null_count == m.to_polars()["value"].null_count()
    assert pa.types.is_dictionary(pa.table(hosts).schema.field("id").type)


def test_a_requested_schema_is_passed_on(results):
    _, _, m = results
    capsule = m.__arrow_c_stream__(None)
    assert type(capsule).__name__ == "PyCapsule"
    reader = pa.RecordBatchReader.from_stream(m)
    assert reader.read_all().num_rows == m.to_polars().height


def test_duckdb_queries_the_objects_by_name(results):
    hosts, alerts, m = results
    con = duckdb.connect()
    per_status = dict(
        con.sql("select status, count(*) from alerts group by status").fetchall()  # noqa: S608
    )
    expected = alerts.to_polars().group_by("status").len()
    assert per_status == dict(zip(expected["status"], expected["len"]))
    rows = con.sql(
        "select measurement, count(value), count(*) from m group by measurement order by 1"
    ).fetchall()
    # A day of hours ending at the fixed clock, which stands on the hour: 25 points, none
    # missed there (conftest.FIXED_NOW), and the rate series' first point null.
    assert rows == [("CONNECTIONS", 25, 25), ("OPCOUNTER_CMD", 24, 25)]
    names = {r[0] for r in con.sql("select hostname from hosts").fetchall()}
    assert names == {h.hostname for h in hosts}


def test_pandas_through_pyarrow(results):
    pytest.importorskip("pandas")
    _, alerts, _ = results
    df = pa.table(alerts).to_pandas()
    assert len(df) == len(alerts)
    assert set(df["id"].astype(str)) == {a.id for a in alerts}


class _Cells(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        if data.strip():
            self.cells.append(data.strip())


def _parse(markup: str) -> _Cells:
    p = _Cells()
    p.feed(markup)
    return p


def test_models_show_their_fields_as_a_table(results):
    hosts, alerts, _ = results
    host = hosts[0]
    page = _parse(host._repr_html_())
    assert "table" in page.tags
    cells = page.cells
    assert cells[0] == "Host"
    assert cells[cells.index("hostname") + 1] == host.hostname
    assert cells[cells.index("port") + 1] == str(host.port)
    assert cells[cells.index("created") + 1] == host.created.isoformat()
    # Fields the server left out are not shown.
    for field in host._fields:
        if getattr(host, field) is None:
            assert field not in cells
    alert = next(a for a in alerts if a.current_value is not None)
    assert _parse(alert._repr_html_()).cells[0] == "Alert"
    part = _parse(alert.current_value._repr_html_()).cells
    assert part[:3] == ["CurrentValue", "number", repr(alert.current_value.number)]


def test_html_is_escaped(sim):
    # An access-list entry's description is free text.
    entry = sim.client().access_list.list()[0]
    assert "<script" not in entry._repr_html_().replace("&lt;script", "")


def test_lists_and_measurements_show_a_table(results):
    hosts, alerts, m = results
    page = _parse(alerts._repr_html_())
    assert page.cells[0] == "AlertList"
    assert f"{len(alerts)} of total_count {alerts.total_count}" in page.cells[1]
    assert "table" in page.tags
    page = _parse(m._repr_html_())
    assert page.cells[0] == "Measurements"
    rows = page.cells[page.cells.index("last") + 1 :]
    assert rows[:4] == ["CONNECTIONS", m.series[0].units, "25", "0"]
    assert rows[6:10] == ["OPCOUNTER_CMD", m.series[1].units, "25", "1"]
    assert rows[10] == "null", "the rate series' first point stays null"
