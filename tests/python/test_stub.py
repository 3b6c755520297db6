"""The stub, the Python classes and the list frames all come from each model's one field list
(`crate::models::<model>_fields!`): the classes expose it as `_fields`; this test holds the
hand-written stub and the frames to it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import opsapi
from opsapi import _native

STUB = Path(opsapi.__file__).with_name("_native.pyi")
MODELS = [
    name
    for name in dir(_native)
    if isinstance(getattr(_native, name), type) and hasattr(getattr(_native, name), "_fields")
]


def stub_properties() -> dict[str, set[str]]:
    out = {}
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = {
                f.name
                for f in node.body
                if isinstance(f, ast.FunctionDef)
                and any(isinstance(d, ast.Name) and d.id == "property" for d in f.decorator_list)
            }
    return out


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
