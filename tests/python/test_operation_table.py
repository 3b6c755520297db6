"""Every operation of the flavour table (src/flavour.rs's ``Operation::ALL``, exposed as
``opsapi._native.OPERATIONS``: its name and the flavours that have it) is everywhere it must
be, and a forgotten place fails a test named by the operation: a method of both clients'
resource objects (sync and async), whose classes the native module exports and the API
reference documents; in the stub, for both classes; a row of the README's operation table,
with its Rust call. The other way round, every method of the clients' resource objects is an
operation of the table or built on some (an operation forgotten in ``Operation::ALL`` fails
there). Its request on each
flavour that has it, and its refusal before any request on the others, are the table of calls'
(tests/fixtures/calls.json), which tests/python/test_flavours.py
(``test_every_operation_of_the_table_is_called_here``), tests/it/flavours.rs and the fault
matrix run."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from test_operations import CALLS, calls_in

import opsapi
from opsapi import _native
from opsapi._native import OPERATIONS

ROOT = Path(__file__).resolve().parents[2]
STUBS = [
    Path(opsapi.__file__).with_name(n) for n in ("_native.pyi", "_twins.pyi", "_generated.pyi")
]
FLAVOURS = ("ops-manager", "cloud-manager", "atlas")
CLIENTS = (opsapi.Client, opsapi.AsyncClient)


def test_the_table_is_rusts():
    """Named ``resource.method``, in the table's order, each on at least Ops Manager."""
    assert len(OPERATIONS) >= 21
    for name, flavours in OPERATIONS.items():
        assert re.fullmatch(r"[a-z_]+\.[a-z_]+", name), name
        assert flavours and set(flavours) <= set(FLAVOURS), (name, flavours)
        assert list(flavours) == [f for f in FLAVOURS if f in flavours], name
    assert OPERATIONS["hosts.list"] == FLAVOURS
    assert OPERATIONS["access_list.delete"] == ("ops-manager",)


# The clients' methods that are no operation of the table themselves, and the operations they
# send (their requests: tests/python/test_operations.py).
_MEASUREMENTS = ["measurements.host", "measurements.disk", "measurements.database"]
_LISTINGS = ["groups.list", "hosts.list", "hosts.partitions", "hosts.databases"]
BUILT_ON = {
    "alerts.iter": ["alerts.list"],
    "alerts.list_all": ["groups.list", "alerts.list"],
    "clusters.list_all": ["groups.list", "clusters.list"],
    "alerts.unacknowledge": ["alerts.acknowledge"],
    "alerts.acknowledge_many": ["alerts.acknowledge"],
    "alerts.unacknowledge_many": ["alerts.acknowledge"],
    "alerts.context": [*_LISTINGS[1:], "hosts.get", "alert_configs.list", "events.list"]
    + _MEASUREMENTS,
    "global_alerts.iter": ["global_alerts.list"],
    "global_alerts.unacknowledge": ["global_alerts.acknowledge"],
    "global_alerts.acknowledge_many": ["global_alerts.acknowledge"],
    "global_alerts.unacknowledge_many": ["global_alerts.acknowledge"],
    "measurements.fleet": _MEASUREMENTS,
    "measurements.fleet_to_parquet": _MEASUREMENTS,
    "measurements.sync": _LISTINGS + _MEASUREMENTS,
}


def _client_methods(cls: type) -> set[str]:
    client = cls("http://127.0.0.1:9", "p", "k")
    out = set()
    for resource in dir(client):
        value = getattr(client, resource)
        if resource.startswith("_") or callable(value):
            continue
        if type(value).__module__.startswith("opsapi"):
            out |= {f"{resource}.{m}" for m in dir(type(value)) if not m.startswith("_")}
    return out


def test_every_client_method_is_an_operation_or_built_on_them():
    for cls in CLIENTS:
        methods = _client_methods(cls)
        assert "hosts.databases" in methods  # the introspection sees them
        unknown = methods - set(OPERATIONS) - set(BUILT_ON)
        assert not unknown, (
            f"{cls.__name__}'s methods that are no operation of the flavour table "
            f"(Operation::ALL) and not in BUILT_ON: {sorted(unknown)}"
        )
        assert not set(BUILT_ON) - methods, "BUILT_ON names methods the client does not have"
    for method, ops in BUILT_ON.items():
        assert set(ops) <= set(OPERATIONS), method


def _handle(cls: type, op: str) -> object:
    resource, _ = op.split(".")
    client = cls("http://127.0.0.1:9", "p", "k")
    return getattr(client, resource)


@pytest.mark.parametrize("op", list(OPERATIONS))
def test_reachable_from_both_clients(op):
    resource, method = op.split(".")
    names = []
    for cls in CLIENTS:
        handle = _handle(cls, op)
        assert callable(getattr(handle, method, None)), f"{cls.__name__}.{resource}.{method}"
        # Exported by the native module under its own name (a forgotten add_class is not).
        name = type(handle).__name__
        assert getattr(_native, name, None) is type(handle), f"opsapi._native.{name}"
        names.append(name)
    assert names[1] == f"Async{names[0]}"


def _stub_classes() -> dict[str, ast.ClassDef]:
    return {
        node.name: node
        for stub in STUBS
        for node in ast.parse(stub.read_text(encoding="utf-8")).body
        if isinstance(node, ast.ClassDef)
    }


def _stub_names(classes: dict[str, ast.ClassDef], name: str) -> dict[str, ast.FunctionDef]:
    """The methods the stub gives class ``name``: its own and its bases' (``_Hosts[...]``)."""
    node = classes[name]
    out = {}
    for base in node.bases:
        base = base.value if isinstance(base, ast.Subscript) else base
        if isinstance(base, ast.Name) and base.id in classes:
            out.update(_stub_names(classes, base.id))
    out.update({f.name: f for f in node.body if isinstance(f, ast.FunctionDef)})
    return out


@pytest.mark.parametrize("op", list(OPERATIONS))
def test_in_the_stub(op):
    resource, method = op.split(".")
    classes = _stub_classes()
    for cls in CLIENTS:
        getter = _stub_names(classes, cls.__name__).get(resource)
        assert getter is not None, f"the stub's {cls.__name__} has no {resource}"
        returns = ast.unparse(getter.returns)
        assert returns == type(_handle(cls, op)).__name__, (cls.__name__, returns)
        assert method in _stub_names(classes, returns), f"the stub's {returns} has no {method}"


@pytest.mark.parametrize("op", list(OPERATIONS))
def test_has_a_row_in_the_readme(op):
    resource, method = op.split(".")
    rows = [c for c in CALLS if (resource, method) in calls_in(f"`{c.python}`")]
    assert rows, f"no row of the README's operation table calls client.{resource}.{method}(...)"
    assert all(c.operation == op for c in rows), f"a call of {op} is another operation's row"
    rust = f"client.{resource}().{method}("
    assert any(rust in c.rust for c in rows), f"no row names the Rust call {rust}...)"


@pytest.mark.parametrize("resource", sorted({op.split(".")[0] for op in OPERATIONS}))
def test_the_api_reference_documents_the_resource(resource):
    name = type(_handle(opsapi.Client, f"{resource}.x")).__name__
    page = (ROOT / "docs" / "reference" / "resources.md").read_text(encoding="utf-8")
    assert f"::: opsapi._native.{name}" in page, f"docs/reference/resources.md lacks {name}"


def test_the_models_reference_documents_every_model():
    """Every model and list class ``opsapi`` exports (what an operation returns) has its
    entry in docs/reference/models.md: a new endpoint's model forgotten there fails here,
    by name (the clusters endpoint's count found GlobalAlert missing)."""
    page = (ROOT / "docs" / "reference" / "models.md").read_text(encoding="utf-8")
    models = [
        n for n in opsapi.__all__
        if isinstance(getattr(opsapi, n), type)
        and (hasattr(getattr(opsapi, n), "to_dict") or hasattr(getattr(opsapi, n), "to_polars"))
    ]  # fmt: skip
    assert "Cluster" in models and "ClusterList" in models
    missing = [n for n in models if f"::: opsapi.{n}\n" not in page + "\n"]
    assert not missing, f"docs/reference/models.md lacks {missing}"


def test_the_reference_pages_are_the_generators():
    """docs/reference/resources.md and models.md are written from the native module's lists
    (docs/_ext/reference_pages.py): a resource or model added there is on its page."""
    import importlib.util

    path = ROOT / "docs" / "_ext" / "reference_pages.py"
    spec = importlib.util.spec_from_file_location("reference_pages", path)
    assert spec and spec.loader
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    for page, text in generator.pages().items():
        assert page.read_text(encoding="utf-8") == text, (
            f"{page.name} is not what the module's lists give; regenerate it: "
            ".venv/bin/python docs/_ext/reference_pages.py --write"
        )
