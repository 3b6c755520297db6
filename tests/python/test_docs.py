"""Every python block of the documentation site (docs/) runs, against the simulator.

A page's blocks run in order in one namespace, as a reader would paste them, in a fresh
working folder. The simulators they start stand on the suite's fixed clock (``FIXED_NOW``)
unless a block gives ``now=`` itself, so what a page prints does not depend on the hour. A
``text`` block titled ``Output`` right after a python block is what that block prints, and
is compared with it. A page that needs an optional package that is not installed (Dask,
DuckDB, Altair for ``AlertContext.chart()``, the MCP SDK) is skipped, saying which.

New pages need nothing here: every ``docs/**/*.md`` is found, and each guide must have at
least one python block.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest
from conftest import FIXED_NOW

import opsapi.testing

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_ext" not in p.parts)
# ```python ... ``` (any attributes after the language), at the start of a line.
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```\s*$", re.S | re.M)
# Optional packages, and what in a page's code needs each: a page without one is skipped.
OPTIONAL = {
    "distributed": r"^\s*(from|import) distributed\b",
    "dask": r"^\s*(from|import) dask\b",
    "duckdb": r"^\s*(from|import) duckdb\b",
    "altair": r"\.chart\(",  # AlertContext.chart() draws with Altair
    "mcp": r"^\s*(from|import) mcp\b",  # opsapi mcp's SDK (CPython 3.10 or later)
}


def blocks(page: Path) -> list[tuple[int, str, str, str]]:
    """(line, language, attributes, code) of each fenced block of ``page``."""
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2).strip(), m.group(3))
        for m in FENCE.finditer(text)
    ]


class _OnTheFixedClock(opsapi.testing.Simulator):
    """The docs' simulators, on the suite's clock unless the page sets ``now=``."""

    def __init__(self, *args, now=FIXED_NOW, **kwargs):
        super().__init__(*args, now=now, **kwargs)


def test_every_page_is_found_and_every_guide_has_code() -> None:
    assert DOCS / "getting-started.md" in PAGES
    guides = [p for p in PAGES if p.parent.name == "guides"]
    assert len(guides) >= 5
    for page in guides:
        assert [b for b in blocks(page) if b[1] == "python"], f"{page.name} shows no python"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_python_blocks_run(page, monkeypatch, tmp_path) -> None:
    found = blocks(page)
    code = [(i, b) for i, b in enumerate(found) if b[1] == "python"]
    if not code:
        pytest.skip("no python block")
    for needed, pattern in OPTIONAL.items():
        if any(re.search(pattern, b[3], re.M) for _, b in code):
            pytest.importorskip(needed, reason=f"{page.name} needs {needed} (pip install {needed})")
    monkeypatch.chdir(tmp_path)
    for var in ("OPSAPI_BASE_URL", "OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY", "OPSAPI_CA_FILE"):
        monkeypatch.delenv(var, raising=False)
    # A page may set the environment as a user's script does (the TLS guide's OPSAPI_*):
    # nothing it sets outlives the page (monkeypatch restores only what it changed itself).
    environ = dict(os.environ)
    monkeypatch.setattr(opsapi.testing, "Simulator", _OnTheFixedClock)
    namespace: dict = {"__name__": "__docs__"}
    started: list[opsapi.testing.Simulator] = []
    real_init = _OnTheFixedClock.__init__

    def tracked(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        started.append(self)

    monkeypatch.setattr(_OnTheFixedClock, "__init__", tracked)
    try:
        for index, (line, _, _, source) in code:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(source, f"{page.relative_to(DOCS)}:{line}", "exec"), namespace)
            following = found[index + 1] if index + 1 < len(found) else None
            if following and following[1] == "text" and 'title="Output"' in following[2]:
                assert out.getvalue() == following[3], f"{page.name}:{following[0]}"
        left_open = [s for s in started if not s.closed]
    finally:
        for name in set(os.environ) - set(environ):
            del os.environ[name]
        os.environ.update(environ)
        for sim in started:
            sim.close()
    # Every simulator a page starts, it stops: readers copy the pattern.
    assert not left_open, f"{page.name} leaves {len(left_open)} simulator(s) running"


def test_one_install_block_everywhere() -> None:
    """The README, the home page and Getting started install the same way, line for line."""
    readme = DOCS.parent / "README.md"
    found = {}
    for page in (readme, DOCS / "index.md", DOCS / "getting-started.md"):
        text = page.read_text(encoding="utf-8").split("\n## Install\n", 1)[1]
        found[page.name] = FENCE.search(text).group(0)  # its first fenced block
    assert len(set(found.values())) == 1, found
    assert "pip install opsapi " in found["README.md"]
