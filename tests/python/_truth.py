"""What a test compares with: the requests that reached the simulator's application, and the
simulator's seeded truth (``sim.world()``, ``sim.partition_truth()``, ``sim.database_truth()``)
in the shape of the models the client returns.

Plain functions, imported by the resource tests (``from _truth import ...``)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Optional

API = "/api/public/v1.0"
# Every listing asks for its first page with the documented maximum page size.
PAGE1 = "pageNum=1&itemsPerPage=500"


def sent(sim: Any, method: Optional[str] = None) -> list[dict[str, Any]]:
    """The requests that reached the application (not the Digest challenge round trip)."""
    return [
        r for r in sim.requests() if r["authorized"] and (method is None or r["method"] == method)
    ]


def request(r: dict[str, Any]) -> tuple[str, str, Optional[str], bytes]:
    """One logged request as (method, path, query, body)."""
    return r["method"], r["path"], r["query"], r["body"]


def requests_of(sim: Any) -> list[tuple[str, str, Optional[str], bytes]]:
    """Every request that reached the application, as (method, path, query, body)."""
    return [request(r) for r in sent(sim)]


def get(path: str, query: Optional[str] = None) -> tuple[str, str, Optional[str], bytes]:
    """The GET a call is expected to send (``path`` without the API prefix)."""
    return "GET", API + path, query, b""


def body(r: dict[str, Any]) -> Any:
    """A logged request's JSON body."""
    return json.loads(r["body"])


def timestamp(text: str) -> dt.datetime:
    """An ISO 8601 instant as sent (``...Z``)."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def view(obj: Any, like: dict[str, Any]) -> dict[str, Any]:
    """A model's attributes named by the keys of a truth row (which uses the models'
    snake_case names), to compare whole rows at once."""
    return {k: getattr(obj, k) for k in like}


def views(objs: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """:func:`view` of each object against the row of the same position (lengths checked)."""
    objs = list(objs)
    assert len(objs) == len(rows), (len(objs), len(rows))
    return [view(o, r) for o, r in zip(objs, rows)]


def world_rows(sim: Any, kind: str, **where: Any) -> list[dict[str, Any]]:
    """The seeded rows of one kind (``hosts``, ``alerts``, ...) whose fields equal ``where``,
    in the world's order; ``partitions`` (hosts only) is not a model attribute and is left
    out."""
    rows = [r for r in sim.world()[kind] if all(r[k] == v for k, v in where.items())]
    return [{k: v for k, v in r.items() if k != "partitions"} for r in rows]


def host_row(sim: Any, host_id: str) -> dict[str, Any]:
    """The seeded host, with its ``partitions``."""
    return next(h for h in sim.world()["hosts"] if h["id"] == host_id)


def a_mongod(sim: Any) -> dict[str, Any]:
    """A seeded host with databases and partitions: group_id, host_id, process_id,
    partitions (the partition truth rows) and databases (the database truth rows)."""
    dbs = sim.database_truth()
    first = dbs[0]
    mine = {"group_id": first["group_id"], "host_id": first["host_id"]}
    return {
        **mine,
        "process_id": first["process_id"],
        "partitions": [p for p in sim.partition_truth() if all(p[k] == v for k, v in mine.items())],
        "databases": [d for d in dbs if all(d[k] == v for k, v in mine.items())],
    }


def window(end: dt.datetime, period: dt.timedelta, step: dt.timedelta) -> list[dt.datetime]:
    """The timestamps of a ``period`` window ending at ``end`` (the simulator's fixed clock),
    one per ``step``, both ends included."""
    n = int(period / step)
    return [end - period + i * step for i in range(n + 1)]


def series(m: Any) -> dict[str, tuple[str, list[dt.datetime], list[Optional[float]]]]:
    """A Measurements' series by name: (units, timestamps, values)."""
    return {s.name: (s.units, list(s.timestamps), list(s.values)) for s in m.series}


def served(sim: Any, path: str, **params: Any) -> Any:
    """The JSON the simulator answers to a GET of ``path`` (without the API prefix), asked
    by a plain Digest client of its own (``requests``), not by opsapi: what ``to_dict()``
    must give back as it was sent."""
    import requests
    from requests.auth import HTTPDigestAuth

    with requests.Session() as session:
        session.auth = HTTPDigestAuth(sim.public_key, sim.private_key)
        r = session.get(sim.base_url.rstrip("/") + API + path, params=params, timeout=30)
        r.raise_for_status()
        return r.json()


def measurement_path(target: tuple[str, ...], kind: Optional[str] = None) -> str:
    """The measurements path of a fleet target (without the API prefix): (g, h) a host,
    (g, h, p) a partition, or (g, h, d) a database with ``kind="database"``."""
    g, h, *rest = target
    if not rest:
        return f"/groups/{g}/hosts/{h}/measurements"
    if kind == "database":
        return f"/groups/{g}/hosts/{h}/databases/{rest[0]}/measurements"
    return f"/groups/{g}/hosts/{h}/disks/{rest[0]}/measurements"


LONG = [
    "group_id", "host_id", "process_id", "partition_name", "database_name", "measurement",
    "units", "timestamp", "value",
]  # fmt: skip


def served_rows(sim: Any, targets: Any, kind: Optional[str] = None, **params: Any) -> list:
    """The long frame's rows (:data:`LONG`) the server's answers for ``targets`` make, read
    from its JSON by :func:`served`, sorted."""
    out = []
    for target in targets:
        doc = served(sim, measurement_path(target, kind), **params)
        for m in doc["measurements"]:
            for p in m["dataPoints"]:
                out.append(
                    (
                        doc["groupId"],
                        doc["hostId"],
                        doc.get("processId"),
                        doc.get("partitionName"),
                        doc.get("databaseName"),
                        m["name"],
                        m["units"],
                        timestamp(p["timestamp"]),
                        p["value"],
                    )
                )
    return sorted(out, key=_order)


def _order(row: tuple) -> tuple:
    return tuple((v is None, v if v is not None else 0) for v in row[:8])


def frame_rows(frame: Any) -> list:
    """A long frame's rows (:data:`LONG`, key columns as plain strings), sorted."""
    import polars as pl

    assert frame.columns == LONG, frame.columns
    keys = [c for c in LONG if frame.schema[c] == pl.Categorical]
    return sorted(frame.with_columns(pl.col(keys).cast(pl.String)).rows(), key=_order)
