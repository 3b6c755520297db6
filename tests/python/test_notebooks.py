"""Both notebooks execute headless against the simulator (what CI runs), and the demo."""

from __future__ import annotations

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


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory):
    """``python -m opsapi.demo`` once for the tests below: (out folder, what it printed)."""
    import contextlib
    import io
    import os

    from opsapi import demo

    out = tmp_path_factory.mktemp("demo") / "out"
    printed, errors = io.StringIO(), io.StringIO()
    saved = {
        k: os.environ.get(k) for k in ("OPSAPI_BASE_URL", "OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY")
    }
    os.environ.update({k: "must-not-be-used" for k in saved})  # the demo runs on the simulator
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(errors):
            assert demo.main(["--out", str(out)]) == 0
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return out, printed.getvalue(), errors.getvalue()


def test_demo_writes_the_report(demo_out) -> None:
    out, printed, _ = demo_out
    report = (out / "capacity.html").read_text()
    # It opens with the answer; the Vega libraries are inline: no network to show the charts
    # (test_report_browser.py opens it with the network refused).
    assert report.index('<section id="summary">') < report.index("<table")
    assert "cdn.jsdelivr.net" not in report and "vegaEmbed" in report
    summary = pl.read_parquet(out / "summary.parquet")["summary"].to_list()
    assert printed.splitlines() == [f"report: {out / 'capacity.html'}"] + [
        f"  {line}" for line in summary
    ]


def test_headless_run_has_no_stray_output(demo_out) -> None:
    # One line of progress on stderr, no bar, no warning: nobody is there to see them.
    _, _, errors = demo_out
    assert errors == "loading measurements ...\n"
