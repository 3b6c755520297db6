"""``python -m opsapi.demo --out out/``: the capacity report, headless, against the simulator.

Executes ``notebooks/capacity.ipynb`` with nbclient, writes the HTML report (tables and plots,
code hidden) to ``<out>/capacity.html`` next to the Parquet files the notebook writes, and
prints the five partitions closest to full.

Needs ``nbclient``, ``nbformat``, ``nbconvert``, ``ipykernel``, ``altair`` and
``vl-convert-python``.

Example::

    $ python -m opsapi.demo --out out/
    $ python -m opsapi.demo --live          # OPSAPI_* kept: the report of a real deployment
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

_CREDENTIALS = ("OPSAPI_BASE_URL", "OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY", "OPSAPI_CA_FILE")


def _notebook_candidates() -> list[Path]:
    # From a checkout (``make demo`` runs in the repository), or next to the sources when the
    # package is installed in editable mode: python/opsapi/demo.py -> <repo>/notebooks/.
    return [
        Path.cwd() / "notebooks" / "capacity.ipynb",
        Path(__file__).resolve().parents[2] / "notebooks" / "capacity.ipynb",
    ]


def _default_notebook() -> Optional[Path]:
    return next((p for p in _notebook_candidates() if p.is_file()), None)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the demo; returns the exit code (0 on success, 1 when a cell fails)."""
    p = argparse.ArgumentParser(prog="python -m opsapi.demo", description=__doc__.splitlines()[0])
    p.add_argument("--out", default="out", help="output directory (default: out)")
    p.add_argument("--notebook", type=Path, default=_default_notebook())
    p.add_argument(
        "--live", action="store_true", help="keep OPSAPI_* (default: the built-in simulator)"
    )
    p.add_argument("--timeout", type=int, default=900, help="seconds per cell")
    args = p.parse_args(list(argv) if argv is not None else None)

    try:
        import nbformat
        import polars as pl
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError
        from nbconvert import HTMLExporter
    except ImportError as e:
        print(
            f"error: {e.name} is missing; install nbclient nbformat nbconvert ipykernel "
            "altair vl-convert-python",
            file=sys.stderr,
        )
        return 2
    if args.notebook is None or not args.notebook.is_file():
        tried = [args.notebook] if args.notebook else _notebook_candidates()
        print(
            "error: notebook not found (tried "
            + ", ".join(str(p) for p in tried)
            + "); run from the repository or pass --notebook",
            file=sys.stderr,
        )
        return 2

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    # The kernel inherits this environment: without --live it must not see real credentials.
    if not args.live:
        for name in _CREDENTIALS:
            os.environ.pop(name, None)
    os.environ["OPSAPI_OUT"] = str(out)

    nb = nbformat.read(args.notebook, as_version=4)
    client = NotebookClient(
        nb, timeout=args.timeout, kernel_name="python3", resources={"metadata": {"path": str(out)}}
    )
    failed: Optional[CellExecutionError] = None
    print(f"running {args.notebook.name} ...", file=sys.stderr, flush=True)
    try:
        client.execute()
    except CellExecutionError as e:
        failed = e
    nbformat.write(nb, out / "capacity.executed.ipynb")

    exporter = HTMLExporter()
    exporter.exclude_input = True
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    body, _ = exporter.from_notebook_node(nb)
    report = out / "capacity.html"
    report.write_text(body, encoding="utf-8")

    if failed is not None:
        print(f"error: a cell failed; partial report in {report}\n{failed}", file=sys.stderr)
        return 1
    print(f"report: {report}")
    table = out / "forecast_view.parquet"
    if table.is_file():
        with pl.Config(
            tbl_cols=-1, tbl_width_chars=240, fmt_str_lengths=48, tbl_hide_dataframe_shape=True
        ):
            print("five partitions closest to full:")
            print(pl.read_parquet(table).head(5))
    return 0


if __name__ == "__main__":
    sys.exit(main())
