"""Both notebooks execute headless against the simulator (what CI runs), and the demo."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")
for _module in ("nbclient", "nbformat", "ipykernel", "altair"):
    pytest.importorskip(_module, reason=f"{_module} is not installed (pip install {_module})")

import nbformat  # noqa: E402
import polars as pl  # noqa: E402
from conftest import FIXED_NOW  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

from opsapi.testing import Simulator  # noqa: E402

# Left out of the runs on the other CPythons (.ci/other-pythons): they test the report.
pytestmark = pytest.mark.slow


@pytest.fixture
def nsim(monkeypatch, tmp_path):
    with Simulator(seed=0, projects=2, hosts_per_project=5, now=FIXED_NOW) as s:
        monkeypatch.setenv("OPSAPI_BASE_URL", s.base_url)
        monkeypatch.setenv("OPSAPI_PUBLIC_KEY", s.public_key)
        monkeypatch.setenv("OPSAPI_PRIVATE_KEY", s.private_key)
        monkeypatch.delenv("OPSAPI_CA_FILE", raising=False)
        monkeypatch.setenv("OPSAPI_OUT", str(tmp_path / "out"))
        monkeypatch.setenv("OPSAPI_ALERTS_DRY_RUN", "0")
        yield s


def execute(name: str, cwd: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    # A failing cell raises CellExecutionError, failing the test.
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    ).execute()
    return nb


def test_committed_notebooks_have_no_outputs() -> None:
    for path in NOTEBOOKS.glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, path.name


def test_capacity_notebook(nsim, tmp_path) -> None:
    execute("capacity.ipynb", tmp_path)
    out = tmp_path / "out"
    forecast = pl.read_parquet(out / "forecast.parquet")
    disks = pl.read_parquet(out / "disk_measurements.parquet")
    hosts = pl.read_parquet(out / "host_measurements.parquet")
    assert forecast.height == disks.select("host_id", "partition_name").unique().height > 0
    assert hosts.height > 0 and (out / "disk_chart.html").is_file()
    # The headroom of every host of the fixture's world, with its seeded findings.
    headroom = pl.read_parquet(out / "headroom.parquet")
    for t in nsim.headroom_truth():
        row = headroom.filter(
            pl.col("scope_kind") == "host",
            pl.col("scope") == t["members"][0],
            pl.col("resource") == t["resource"],
        )
        assert row["status"].to_list() in (["critical"], ["warning"], ["watch"]), t
    # It pulled from the fixture's simulator, not a simulator of its own.
    assert any(r["path"].endswith("/measurements") for r in nsim.requests())


def test_alerts_notebook_acks_and_unacks(nsim, tmp_path) -> None:
    execute("alerts.ipynb", tmp_path)
    patches = [r for r in nsim.requests() if r["method"] == "PATCH" and r["status"] < 300]
    assert patches, "the rule matched no alert of the seeded simulator"
    # Every acknowledged alert was un-acknowledged again: two PATCHes per alert.
    paths = [r["path"] for r in patches]
    assert all(paths.count(p) == 2 for p in paths)
    # The noise cell read every project's alerts and events, the context cell a measurement.
    gets = {r["path"].split("/api/public/v1.0")[1] for r in nsim.requests() if r["status"] == 200}
    for g in nsim.group_ids:
        assert {f"/groups/{g}/alerts", f"/groups/{g}/events"} <= gets
    assert any(p.endswith("/measurements") for p in gets)


def _run_demo(out: Path) -> tuple[str, str, object]:
    """``python -m opsapi.demo --out <out>`` in this process, on the simulator whatever
    ``OPSAPI_*`` the shell holds: what it printed on stdout and stderr, and what it loaded."""
    import contextlib
    import io

    from opsapi import demo

    printed, errors, loaded = io.StringIO(), io.StringIO(), []
    load = demo.load

    def keep(*args, **kwargs):
        loaded.append(load(*args, **kwargs))
        return loaded[-1]

    with pytest.MonkeyPatch.context() as mp:
        for k in ("OPSAPI_BASE_URL", "OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY"):
            mp.setenv(k, "must-not-be-used")  # the demo runs on the simulator
        mp.setattr(demo, "load", keep)
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
            assert demo.main(["--out", str(out)]) == 0
    (data,) = loaded
    return printed.getvalue(), errors.getvalue(), data


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory):
    """``python -m opsapi.demo`` once for the tests below: (out folder, what it printed on
    stdout and stderr, what it loaded)."""
    out = tmp_path_factory.mktemp("demo") / "out"
    return (out, *_run_demo(out))


@pytest.fixture(scope="module")
def demo_again(demo_out):
    """The demo a second time into the same folder (its store synced by the first run): what
    it printed, what it loaded, and the first run's report as it was."""
    out = demo_out[0]
    first = (out / "capacity.html").read_text()
    return (*_run_demo(out), first)


def sync_line(printed: str, out: Path) -> str:
    """The demo's first line, what its sync did, without the store's path that ends it."""
    line, where = printed.splitlines()[0], f" (store: {out / 'store'})"
    assert line.startswith("synced ") and line.endswith(where), line
    return line[: -len(where)]


def test_demo_writes_the_report(demo_out) -> None:
    out, printed, _, _ = demo_out
    report = (out / "capacity.html").read_text()
    # It opens with the answer; the Vega libraries are inline: no network to show the charts
    # (test_report_browser.py opens it with the network refused).
    assert report.index('<section id="summary">') < report.index("<table")
    assert "cdn.jsdelivr.net" not in report and "vegaEmbed" in report
    summary = pl.read_parquet(out / "summary.parquet")["summary"].to_list()
    assert printed.splitlines()[1:] == [f"report: {out / 'capacity.html'}"] + [
        f"  {line}" for line in summary
    ]


@pytest.fixture(scope="module")
def demo_world():
    """The demo's simulator (seed 0 on the demo's clock): its targets (every host, partition
    and database) and its seeded alert history."""
    from opsapi.demo import DEMO_NOW

    with Simulator(seed=0, now=DEMO_NOW) as s:
        hosts = s.world()["hosts"]
        targets = len(hosts) + sum(len(h["partitions"]) for h in hosts)
        yield s, targets + len(s.database_truth()), s.alert_truth()


def spaced(count: int) -> str:
    """A count as the demo prints it: thousands apart by a space."""
    return f"{count:,}".replace(",", " ")


def test_demo_syncs_the_store_then_reads_it(demo_out, demo_world) -> None:
    out, printed, _, data = demo_out
    _, targets, _ = demo_world
    n, report = spaced(targets), data.sync
    # The first run: every target new, one request for data each, and says so.
    assert len(report.new) == targets and report.data_requests == targets
    assert sync_line(printed, out) == (
        f"synced {n} targets: {n} new, 0 updated, 0 unchanged, 0 failed; {n} requests for "
        f"data ({spaced(report.requests)} in all), {spaced(report.points_added)} points added"
    )
    assert report.points_added > 0 and (out / "store" / "MANIFEST.json").is_file()


def test_a_second_demo_asks_nothing_new_and_reports_the_same(demo_out, demo_world, demo_again):
    out = demo_out[0]
    printed, errors, data, first = demo_again
    _, targets, _ = demo_world
    n = spaced(targets)
    # The simulator's clock stands still: every target unchanged, not one request for data.
    assert data.sync.data_requests == 0 and data.sync.points_added == 0
    assert len(data.sync.unchanged) == targets
    assert sync_line(printed, out) == (
        f"synced {n} targets: 0 new, 0 updated, {n} unchanged, 0 failed; 0 requests for data "
        f"({data.sync.requests} in all), 0 points added"
    )
    assert errors == "loading measurements ...\n"
    # The same report as the first run's, as a person sees it: the findings, the tables and
    # the charts in the same order (their series agree to the last digit or two: polars'
    # sums do not always add in the same order).
    assert visible((out / "capacity.html").read_text()) == visible(first)


def visible(page: str) -> str:
    """The report without its scripts (the Vega libraries and the charts' data)."""
    return re.sub(r"<script\b[^>]*>.*?</script>", "", page, flags=re.S)


def test_the_store_gives_the_headroom_a_fleet_pull_gives(demo_out, demo_world) -> None:
    # The report read from the store is the one the fleet pulls it replaced gave.
    from polars.testing import assert_frame_equal

    from opsapi import capacity
    from opsapi.demo import DEMO_NOW

    out = demo_out[0]
    pulled = capacity.headroom_inputs(demo_world[0].client(), window="14d")
    want = capacity.headroom(*pulled, now=DEMO_NOW, clusters=pulled.clusters)
    got = pl.read_parquet(out / "headroom.parquet")
    assert_frame_equal(got, want, check_row_order=False, check_exact=False, rel_tol=1e-9)
    forecast = capacity.disk_forecast(pulled.disk_frame, window="14d", now=DEMO_NOW)
    assert_frame_equal(
        pl.read_parquet(out / "forecast.parquet"), forecast, check_exact=False, rel_tol=1e-9
    )


def test_the_demo_report_says_which_alerts_are_noise(demo_out, demo_world) -> None:
    # The simulator's seeded flapping configuration and noisy host, by their host names, in
    # the report's alert section (tests/python/test_report_alerts.py checks it closely).
    out, _, _, data = demo_out
    truth = demo_world[2]
    report = (out / "capacity.html").read_text()
    section = report[report.index('<section id="alerts">') : report.index('<section id="details">')]
    flapper = truth["flapping"]["hostname_and_port"].split(".example.net")[0]
    noisy = truth["noisy_host"]["hostname_and_port"].split(".example.net")[0]
    assert f"<b>{flapper}</b>" in section and "Connections outside its threshold flaps" in section
    assert f"<b>{noisy}</b>" in section and f"<td>{noisy}</td>" in section
    assert data.alerts is not None and data.alerts.height > 0
    assert pl.read_parquet(out / "alert_hosts.parquet")["noisy"][0]


def test_headless_run_has_no_stray_output(demo_out) -> None:
    # One line of progress on stderr, no bar, no warning: nobody is there to see them.
    _, _, errors, _ = demo_out
    assert errors == "loading measurements ...\n"
