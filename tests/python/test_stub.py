"""The stub, the Python classes and the list frames all come from each model's one field list
(`crate::models::<model>_fields!`): the classes expose it as `_fields`, the stub's field bases
are generated from it (`.ci/stubs.py`), and this test holds the stub and the frames to it. The
stub's shared bases (`_twins.pyi`, `_Model`, `_ModelList`, the generated ones) exist only in
the stub: each class that inherits one has every name of it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import opsapi
from opsapi import _native

STUB = Path(opsapi.__file__).with_name("_native.pyi")
TWINS = Path(opsapi.__file__).with_name("_twins.pyi")
GENERATED = Path(opsapi.__file__).with_name("_generated.pyi")
MODELS = [
    name
    for name in dir(_native)
    if isinstance(getattr(_native, name), type) and hasattr(getattr(_native, name), "_fields")
]


def stub_properties() -> dict[str, set[str]]:
    """Each stub class's properties, its stub-only bases' (``_HostFields``) included."""
    nodes = {
        node.name: node
        for stub in (STUB, GENERATED)
        for node in ast.parse(stub.read_text()).body
        if isinstance(node, ast.ClassDef)
    }

    def properties(node: ast.ClassDef) -> set[str]:
        own = {
            f.name
            for f in node.body
            if isinstance(f, ast.FunctionDef)
            and any(isinstance(d, ast.Name) and d.id == "property" for d in f.decorator_list)
        }
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id.endswith("Fields") and base.id in nodes:
                own |= properties(nodes[base.id])
        return own

    return {name: properties(node) for name, node in nodes.items()}


def test_every_model_class_is_covered():
    assert set(MODELS) >= {
        "AccessListEntry",
        "Alert",
        "AlertConfig",
        "CurrentValue",
        "Event",
        "EventDiff",
        "EventDiffParam",
        "Group",
        "Host",
        "Link",
        "SystemInfo",
    }


@pytest.mark.parametrize("name", MODELS)
def test_the_stub_lists_exactly_the_fields(name):
    cls = getattr(_native, name)
    assert stub_properties()[name] == set(cls._fields)
    for field in cls._fields:
        assert isinstance(getattr(cls, field), type(_native.Alert.id)), field


@pytest.mark.parametrize(
    "list_of,model", [("global_alerts", "Alert"), ("hosts", "Host"), ("events", "Event")]
)
def test_list_frames_have_a_column_per_scalar_field_in_field_order(sim, list_of, model):
    client = sim.client()
    items = (
        client.global_alerts.list()
        if list_of == "global_alerts"
        else getattr(client, list_of).list(sim.group_ids[0])
    )
    frame = items.to_polars()
    fields = getattr(_native, model)._fields
    columns = frame.columns
    # Every column is a field, or a part of a nested one (`current_value_number`).
    owners = [next(f for f in fields if c == f or c.startswith(f + "_")) for c in columns]
    assert owners == sorted(owners, key=fields.index)
    assert frame.height == len(items)
    # Fields without a column: lists, links and free-form JSON only.
    skipped = set(fields) - set(owners)
    assert skipped <= {"tags", "links", "aliases", "diffs", "raw"}, skipped


def _classes(*stubs: Path) -> dict[str, ast.ClassDef]:
    return {
        node.name: node
        for stub in stubs
        for node in ast.parse(stub.read_text()).body
        if isinstance(node, ast.ClassDef)
    }


def _names_of_bases(classes: dict[str, ast.ClassDef], node: ast.ClassDef) -> set[str]:
    """The names the stub-only bases of ``node`` declare (methods, properties, class variables),
    theirs included."""
    out: set[str] = set()
    for base in node.bases:
        base = base.value if isinstance(base, ast.Subscript) else base
        if isinstance(base, ast.Name) and base.id.startswith("_") and base.id in classes:
            parent = classes[base.id]
            out |= _names_of_bases(classes, parent)
            for item in parent.body:
                if isinstance(item, ast.FunctionDef):
                    out.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    out.add(item.target.id)
    return out


def test_the_generated_stub_is_what_the_declarations_give():
    """python/opsapi/_generated.pyi is written from the native module's declarations
    (.ci/stubs.py: the models' field lists, the twins! entries that name their arguments'
    kinds, the resources): a declaration changed without it fails here."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / ".ci" / "stubs.py"
    spec = importlib.util.spec_from_file_location("stubs", path)
    assert spec and spec.loader
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert generator.STUB.read_text(encoding="utf-8") == generator.generate(), (
        "python/opsapi/_generated.pyi differs from the native module's declarations; "
        "regenerate it: "
        ".venv/bin/python .ci/stubs.py --write"
    )


def test_every_name_of_a_shared_base_is_on_each_class():
    """stubtest checks each name a class has at runtime against the stub, bases included, but
    not that a base's name is there at runtime: this does."""
    classes = _classes(STUB, TWINS, GENERATED)
    checked = {}
    for name, node in classes.items():
        if name.startswith("_"):
            continue
        cls = getattr(_native, name)
        names = _names_of_bases(classes, node)
        missing = sorted(n for n in names if not hasattr(cls, n))
        assert not missing, f"{name} lacks what the stub's base gives it: {missing}"
        checked[name] = names
    # Both clients, the handles not written from argument kinds and every model share a base.
    assert {"host", "disk", "fleet", "sync"} <= checked["AsyncMeasurementsApi"]
    assert {"atlas", "from_env", "from_profile", "base_url"} <= checked["AsyncClient"]
    assert {"_fields", "to_dict"} <= checked["Host"]
    assert {"total_count", "to_polars", "__getitem__"} <= checked["EventList"]
