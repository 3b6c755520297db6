"""Every public class, function and method of the package has a docstring, and every public
function and method shows an example (`>>>`), as `help()` and Jupyter's `?` display them
(issue 16). Model attributes are documented by their class and `_fields`; the walk covers the
rest of the surface, found by introspection so that a new method without a docstring fails.

The examples run, as doctests, against a simulator of their own on the suite's fixed clock
(``sim``, ``client`` and the ids the examples name are given to them): every example without a
``+SKIP`` marker must show what it prints, and the marked ones whose markers are in files this
suite does not own but that run as written are run all the same (``MARKED_BUT_RUN``)."""

from __future__ import annotations

import ast
import asyncio
import datetime as dt
import doctest
import inspect
import types

import polars as pl
import pytest

import opsapi
import opsapi.alerts_analysis
import opsapi.capacity
import opsapi.config
import opsapi.testing
from opsapi.testing import Simulator

MODULES = [opsapi, opsapi.alerts_analysis, opsapi.capacity, opsapi.config, opsapi.testing]
try:  # the Dask extra is optional
    import opsapi.dask

    MODULES.append(opsapi.dask)
except ImportError:  # pragma: no cover - without dask installed
    pass
try:  # the MCP SDK too (CPython 3.10 or later)
    import mcp  # noqa: F401

    import opsapi.mcp

    MODULES.append(opsapi.mcp)
except ImportError:  # pragma: no cover - without the SDK
    pass

# Python's own protocol methods, documented by the language.
PROTOCOL = {"__init__", "__new__"}


def _public(names):
    return [n for n in names if not n.startswith("_")]


def _surface():
    """(qualified name, object, needs an example) for everything public."""
    seen: set[int] = set()
    for module in MODULES:
        names = getattr(module, "__all__", None) or _public(dir(module))
        for name in names:
            obj = getattr(module, name)
            if id(obj) in seen or isinstance(obj, types.ModuleType):
                continue
            if getattr(obj, "__module__", "").split(".")[0] not in ("opsapi",):
                continue
            seen.add(id(obj))
            qual = f"{module.__name__}.{name}"
            if inspect.isclass(obj):
                yield qual, obj, False
                if issubclass(obj, BaseException):
                    continue
                for attr in _public(vars(obj)):
                    member = inspect.getattr_static(obj, attr)
                    if isinstance(member, (staticmethod, classmethod)):
                        member = member.__func__
                    if callable(member):
                        yield f"{qual}.{attr}", member, True
            elif callable(obj):
                yield qual, obj, True


SURFACE = sorted(_surface(), key=lambda t: t[0])


def test_the_walk_finds_the_surface():
    names = {q for q, _, _ in SURFACE}
    for expected in (
        "opsapi.Client",
        "opsapi.Client.from_env",
        "opsapi.AsyncClient",
        "opsapi.Host.to_dict",
        "opsapi.AlertList.to_polars",
        "opsapi.capacity.disk_forecast",
        "opsapi.testing.Simulator.inject",
    ):
        assert expected in names, expected
    assert len(SURFACE) > 80


@pytest.mark.parametrize(("name", "obj", "example"), SURFACE, ids=[q for q, _, _ in SURFACE])
def test_public_surface_is_documented(name, obj, example):
    doc = inspect.getdoc(obj)
    assert doc, f"{name} has no docstring"
    if example:
        assert ">>>" in doc, f"{name}'s docstring shows no example (>>>)"


def test_resource_methods_are_documented():
    members = [
        (f"{cls.__name__}.{attr}", getattr(cls, attr))
        for cls in _resource_classes()
        for attr in _public(vars(cls))
        if callable(getattr(cls, attr))
    ]
    assert len(members) > 40  # both clients' resource methods
    missing = [name for name, member in members if not (inspect.getdoc(member) or "").count(">>>")]
    assert not missing, f"no docstring with an example: {missing}"


# ---- the examples run ------------------------------------------------------------------------


def _resource_classes():
    """The resource classes of both clients (``Hosts``, ``AsyncHosts``, ...), without a server."""
    for cls in (opsapi.Client, opsapi.AsyncClient):
        client = cls("http://127.0.0.1:1", "p", "k", verify=False)
        for name in _public(dir(client)):
            value = getattr(client, name)
            if not callable(value) and type(value).__module__.startswith("opsapi"):
                yield type(value)


def _docstrings():
    """(name, docstring, module globals) of every docstring with an example: the walk's
    surface, the resource classes' methods and the modules themselves."""
    out = {}
    for name, obj, _ in SURFACE:
        out[name] = obj
    for cls in _resource_classes():
        for attr in _public(vars(cls)):
            out[f"{cls.__name__}.{attr}"] = getattr(cls, attr)
    for module in MODULES:
        out[module.__name__] = module
    for name, obj in sorted(out.items()):
        doc = inspect.getdoc(obj) or ""
        if ">>>" in doc:
            module = inspect.getmodule(obj) if not isinstance(obj, types.ModuleType) else obj
            if module is None or module.__name__.startswith("opsapi._native"):
                module = opsapi
            yield name, doc, module


DOCS = list(_docstrings())

# Examples marked +SKIP in files this suite does not own (the Rust docstrings under
# src/python/, opsapi/config.py) that run as written against the simulator: run here all the
# same, so that they are known to work; ``test_marked_but_run_still_carry_the_marker`` asks for
# an entry to go once its marker is removed.
MARKED_BUT_RUN = {
    "AsyncAlertConfigs.list",
    "AsyncAlertConfigs.open_alerts",
    "AsyncEvents.list",
    "AsyncGlobalAlerts.acknowledge_many",
    "AsyncGlobalAlerts.get",
    "AsyncGlobalAlerts.list",
    "AsyncGlobalAlerts.unacknowledge_many",
    "AsyncHosts.get",
    "AsyncHosts.list",
    "AsyncMeasurementsApi.database",
    "AsyncMeasurementsApi.disk",
    "AsyncMeasurementsApi.fleet",
    "AsyncMeasurementsApi.fleet_to_parquet",
    "AsyncMeasurementsApi.host",
    "GlobalAlerts.acknowledge_many",
    "GlobalAlerts.get",
    "GlobalAlerts.unacknowledge",
    "GlobalAlerts.unacknowledge_many",
    "Hosts.get",
    "MeasurementsApi.database",
    "MeasurementsApi.disk",
    "MeasurementsApi.fleet",
    "opsapi.AccessListEntry.to_dict",
    "opsapi.Alert.to_dict",
    "opsapi.AlertConfig.to_dict",
    "opsapi.AsyncClient.from_env",
    "opsapi.AsyncClient.from_profile",
    "opsapi.Client.from_env",
    "opsapi.Client.from_profile",
    "opsapi.Event",
    "opsapi.Event.to_dict",
    "opsapi.Group.to_dict",
    "opsapi.Host.to_dict",
    "opsapi.Measurements.to_dict",
    "opsapi.config",
    "opsapi.config.Profile.private_key",
    "opsapi.config.client_arguments",
    "opsapi.config.load_profile",
    "opsapi.config.load_profiles",
}

# Docstrings whose unmarked examples cannot run as written (opsapi/capacity.py's, not this
# suite's to change): each prints a frame or a chart without showing it, and names inputs
# (``frame``, ``client``, ``db_targets``, ``disk_frame``, ``STORAGE_SIZE``, ``alt``) it does not
# define. ``test_cannot_run_is_still_true`` asks for an entry to go once its example runs.
_PRINTS = "prints a frame without showing it; `{}` undefined"
CANNOT_RUN = {
    "opsapi.capacity.busiest_hours": _PRINTS.format("frame"),
    "opsapi.capacity.database_growth": _PRINTS.format(
        "client, db_targets, STORAGE_SIZE, INDEX_SIZE, disk_frame"
    ),
    "opsapi.capacity.disk_forecast": _PRINTS.format("frame"),
    "opsapi.capacity.hour_of_day_profile": "prints an Altair chart; `frame`, `alt` undefined",
    "opsapi.capacity.metric_summary": _PRINTS.format("frame"),
}


# Docstrings whose examples draw a chart: run where Altair is installed (an optional
# dependency, not on the other CPythons of `make python-test-versions`).
NEEDS_ALTAIR = {"opsapi.alerts_analysis.context_chart"}


def _is_async(name: str) -> bool:
    return name.startswith("Async") or name.startswith("opsapi.AsyncClient")


@pytest.fixture
def doc_world(fixed_now, tmp_path, monkeypatch):
    """A simulator of the examples' own (they acknowledge, close and rate-limit it), the ids
    they name, a working folder (``out/m``) and the environment and profiles the client
    constructors read."""
    with Simulator(seed=0, now=fixed_now) as sim:
        w = sim.world()
        c = sim.client()
        primary = next(h for h in w["hosts"] if h["type_name"] == "REPLICA_PRIMARY")
        group_id, host_id = primary["group_id"], primary["id"]
        # A host with an "orders" database on its "data" partition, as the examples use.
        orders = next(d for d in sim.database_truth() if d["database_name"] == "orders")
        g, h = orders["group_id"], orders["host_id"]
        open_alerts = [a for a in w["alerts"] if a["status"] == "OPEN"]
        monkeypatch.chdir(tmp_path)
        # "~" is this test's too: an example that writes under it writes here.
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
        monkeypatch.setenv("OPSAPI_BASE_URL", sim.base_url)
        monkeypatch.setenv("OPSAPI_PUBLIC_KEY", sim.public_key)
        monkeypatch.setenv("OPSAPI_PRIVATE_KEY", sim.private_key)
        monkeypatch.delenv("OPSAPI_CA_FILE", raising=False)
        monkeypatch.setenv("PROD_KEY", sim.private_key)
        # The profiles the examples name, in the config file of this test (conftest's).
        config = opsapi.config
        config.write_profile(config.Profile("default", sim.base_url, sim.public_key, "PROD_KEY"))
        prod = "https://om.example.com:8443"
        config.write_profile(config.Profile("prod", prod, sim.public_key, "PROD_KEY"))
        globs = {
            "opsapi": opsapi,
            "pl": pl,
            "polars": pl,
            "Simulator": Simulator,
            "timedelta": dt.timedelta,
            "sim": sim,
            "group_id": group_id,
            "host_id": host_id,
            "g": g,
            "h": h,
            "host_ids": [x["id"] for x in w["hosts"] if x["group_id"] == g],
            "targets": [(x["group_id"], x["id"]) for x in w["hosts"] if x["group_id"] == g],
            "alert_id": open_alerts[0]["id"],
            "ids": [a["id"] for a in open_alerts[:3]],
            "config_id": next(
                a["alert_config_id"] for a in open_alerts if a["group_id"] == group_id
            ),
            "event_id": next(
                e["id"]
                for e in w["events"]
                if e["group_id"] == group_id and e["event_type_name"] == "JOINED_GROUP"
            ),
            "host": c.hosts.get(group_id, host_id),
            "alert": c.global_alerts.get(open_alerts[0]["id"]),
            "m": c.measurements.host(
                group_id,
                host_id,
                granularity="PT1H",
                start="2026-01-01T00:00:00Z",
                end="2026-01-01T02:00:00Z",
            ),  # fmt: skip
        }
        sim.clear_requests()
        yield sim, globs


def _run(name: str, doc: str, module: types.ModuleType, globs: dict, *, marked: bool):
    """Runs a docstring's examples (the +SKIP-marked ones too with ``marked``); returns the
    number run and the runner's report."""
    loop = asyncio.new_event_loop()
    globs = {**vars(module), **globs}
    if "client" not in globs or isinstance(globs["client"], types.ModuleType):
        sim = globs["sim"]
        globs["client"] = sim.async_client() if _is_async(name) else sim.client()

    def await_(source: str) -> None:
        # Top-level await and async for, as in an asyncio REPL.
        code = compile(source, name, "single", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(code, test.globs)  # noqa: S307 (the docstring's own example)
        if inspect.iscoroutine(result):
            loop.run_until_complete(result)

    globs["_await_"] = await_
    test = doctest.DocTestParser().get_doctest(doc, globs, name, None, 0)
    run = 0
    for example in test.examples:
        if marked:
            example.options.pop(doctest.SKIP, None)
        if example.options.get(doctest.SKIP):
            continue
        run += 1
        if "await " in example.source or "async for " in example.source:
            example.source = f"_await_({example.source!r})\n"
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    try:
        runner.run(test, out=report.append, clear_globs=False)
    finally:
        loop.close()
    return run, runner.failures, "".join(report)


RUNNABLE = [(n, d, m) for n, d, m in DOCS if n not in CANNOT_RUN]


@pytest.mark.parametrize(("name", "doc", "module"), RUNNABLE, ids=[n for n, _, _ in RUNNABLE])
def test_examples_run(name, doc, module, doc_world):
    if name in NEEDS_ALTAIR:
        pytest.importorskip("altair", reason="the example draws a chart")
    sim, globs = doc_world
    run, failures, report = _run(name, doc, module, globs, marked=name in MARKED_BUT_RUN)
    assert failures == 0, report


@pytest.mark.parametrize("name", sorted(CANNOT_RUN))
def test_cannot_run_is_still_true(name, doc_world):
    """An entry of CANNOT_RUN goes once its docstring's examples run."""
    sim, globs = doc_world
    doc, module = next((d, m) for n, d, m in DOCS if n == name)
    run, failures, _ = _run(name, doc, module, globs, marked=False)
    assert run and failures, f"{name} runs now: drop its CANNOT_RUN entry"


def test_marked_but_run_still_carry_the_marker():
    """An entry of MARKED_BUT_RUN goes once its example has lost its +SKIP marker."""
    docs = {n: d for n, d, _ in DOCS}
    for name in MARKED_BUT_RUN:
        assert "+SKIP" in docs[name], f"{name}: the marker is gone, drop the entry"


def test_examples_that_run():
    """How many examples run: all but the +SKIP-marked ones outside MARKED_BUT_RUN, and
    at least those of opsapi.testing (whose markers this suite owns: there are none)."""
    parser = doctest.DocTestParser()
    testing = [d for n, d, _ in DOCS if n.startswith("opsapi.testing")]
    assert testing and not any("+SKIP" in d for d in testing)
    run = sum(
        1
        for name, doc, _ in RUNNABLE
        for e in parser.get_examples(doc)
        if name in MARKED_BUT_RUN or not e.options.get(doctest.SKIP)
    )
    assert run >= 95  # of 158; before, none ran
