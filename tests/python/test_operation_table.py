"""Every operation of the flavour table (src/flavour.rs's ``Operation::ALL``, exposed as
``opsapi._native.OPERATIONS``: its name and the flavours that have it) is everywhere it must
be, and a forgotten place fails a test named by the operation: a method of both clients'
resource objects (sync and async), whose classes the native module exports; in the stub, for
both classes; a row of the README's operation table, with its Rust call. Its request on each
flavour that has it, and its refusal before any request on the others, are
tests/python/test_flavours.py's (``test_every_operation_of_the_table_is_called_here``) and
tests/it/flavours.rs's."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from test_operations import ROWS, calls_in

import opsapi
from opsapi import _native
from opsapi._native import OPERATIONS

ROOT = Path(__file__).resolve().parents[2]
STUBS = [Path(opsapi.__file__).with_name(n) for n in ("_native.pyi", "_twins.pyi")]
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
    rows = [r for r in ROWS if (resource, method) in calls_in(r["sync_cell"])]
    assert rows, f"no row of the README's operation table calls client.{resource}.{method}(...)"
    rust = f"client.{resource}().{method}("
    assert any(rust in r["rust"] for r in rows), f"no row names the Rust call {rust}...)"
