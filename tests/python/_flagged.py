"""What the tests of the report's whys share (``test_report_events.py``,
``test_report_drivers.py``): a simulator of one flavour on the suite's clock, with its headroom's
flagged deployment rows and its hosts' topology, as the report computes them."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime
from typing import Any, Iterator

import polars as pl

from opsapi import capacity
from opsapi.testing import Simulator

FLAGGED = ["critical", "warning", "watch"]


@contextmanager
def flagged_world(flavour: str, now: datetime) -> Iterator[dict[str, Any]]:
    """The simulator (``sim``), a client, the pulled inputs, the project names, the headroom
    (``h``), its flagged deployment rows (``rows``) and the topology (``topo``); the request
    log cleared."""
    with Simulator(seed=0, now=now, flavour=flavour) as sim:
        client = sim.client(max_retries=0)
        inputs = capacity.headroom_inputs(client)
        names = {g.id: g.name for g in client.groups.list()}
        h = capacity.headroom(*inputs, now=now, clusters=inputs.clusters)
        rows = capacity.deployment_rows(h, names).filter(pl.col("status").is_in(FLAGGED))
        topo = capacity.topology(inputs.hosts, inputs.clusters)
        sim.clear_requests()
        yield {"sim": sim, "client": client, "flavour": flavour, "inputs": inputs,
               "names": names, "h": h, "rows": rows, "topo": topo}  # fmt: skip
