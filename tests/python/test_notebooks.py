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
from nbclient import NotebookClient  # noqa: E402

from opsapi.testing import Simulator  # noqa: E402


@pytest.fixture
def nsim(monkeypatch, tmp_path):
    with Simulator(seed=0, projects=2, hosts_per_project=5) as s:
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
    # It pulled from the fixture's simulator, not a simulator of its own.
    assert any(r["path"].endswith("/measurements") for r in nsim.requests())


def test_alerts_notebook_acks_and_unacks(nsim, tmp_path) -> None:
    execute("alerts.ipynb", tmp_path)
    patches = [r for r in nsim.requests() if r["method"] == "PATCH" and r["status"] < 300]
    assert patches, "the rule matched no alert of the seeded simulator"
    # Every acknowledged alert was un-acknowledged again: two PATCHes per alert.
    paths = [r["path"] for r in patches]
    assert all(paths.count(p) == 2 for p in paths)


def test_demo_writes_the_report(monkeypatch, tmp_path, capsys) -> None:
    from opsapi import demo

    for name in ("OPSAPI_BASE_URL", "OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY"):
        monkeypatch.setenv(name, "must-not-be-used")  # the demo runs on the simulator
    assert demo.main(["--out", str(tmp_path / "out")]) == 0
    report = (tmp_path / "out" / "capacity.html").read_text()
    # Plots are inline SVG: the report needs no network to show them.
    assert "data:image/svg+xml" in report and "days_to_full" in report
    assert "cdn.jsdelivr.net/npm/vega" not in report
    printed = capsys.readouterr().out
    assert "five partitions closest to full" in printed
