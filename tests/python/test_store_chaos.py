"""The measurement store's chaos run, short (issue 31, "Done when"): random syncs, syncs
killed with SIGKILL, files truncated, filled with noise or deleted, the server's clock a year
ahead, readers in other processes throughout; the store it leaves checked against a clean
reference (tests/python/_chaos.py says how). ``make test-stress`` runs it for 20 minutes."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import _chaos  # noqa: E402

# About a minute of chaos in `make test`.
SECONDS = float(os.environ.get("OPSAPI_CHAOS_SECONDS", "45"))


@pytest.mark.timeout(600)
def test_chaos_loses_no_point_and_names_every_corruption(tmp_path):
    f = _chaos.run(SECONDS, seed=31, root=tmp_path)
    assert f.problems == [], f.problems[:5]
    assert f.named == f.corruptions
    # The run did what it is for (a short run still meets every kind of trouble).
    assert f.actions.keys() >= {"advance", "sync", "kill", "corrupt", "skew"}, f.actions
    assert f.kills > 0 and f.corruptions > 0 and f.scans > 0
