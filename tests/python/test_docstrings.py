"""Every public class, function and method of the package has a docstring, and every public
function and method shows an example (`>>>`), as `help()` and Jupyter's `?` display them
(issue 16). Model attributes are documented by their class and `_fields`; the walk covers the
rest of the surface, found by introspection so that a new method without a docstring fails."""

from __future__ import annotations

import inspect
import types

import pytest

import opsapi
import opsapi.capacity
import opsapi.config
import opsapi.testing

MODULES = [opsapi, opsapi.capacity, opsapi.config, opsapi.testing]
try:  # the Dask extra is optional
    import opsapi.dask

    MODULES.append(opsapi.dask)
except ImportError:  # pragma: no cover - without dask installed
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


def _resources():
    """The resource classes (client.hosts, ...), which are not exported by name."""
    from opsapi.testing import Simulator

    with Simulator() as sim:
        for client in (sim.client(), sim.async_client()):
            for name in _public(dir(client)):
                value = getattr(client, name)
                if not callable(value) and type(value).__module__.startswith("opsapi"):
                    cls = type(value)
                    for attr in _public(vars(cls)):
                        member = getattr(cls, attr)
                        if callable(member):
                            yield f"{cls.__name__}.{attr}", member


@pytest.mark.parametrize(("name", "obj", "example"), SURFACE, ids=[q for q, _, _ in SURFACE])
def test_public_surface_is_documented(name, obj, example):
    doc = inspect.getdoc(obj)
    assert doc, f"{name} has no docstring"
    if example:
        assert ">>>" in doc, f"{name}'s docstring shows no example (>>>)"


def test_resource_methods_are_documented():
    missing = [
        name for name, member in _resources() if not (inspect.getdoc(member) or "").count(">>>")
    ]
    assert not missing, f"no docstring with an example: {missing}"
