"""Griffe extension behind the API reference (mkdocs.yml, ``make docs``).

- ``opsapi._native`` is compiled: griffe reads its signatures from the stub
  (``python/opsapi/_native.pyi``), which has no docstrings. They live in the Rust source
  (``src/python``) and reach Python as ``__doc__``: this extension imports the built module and
  gives every class, method, property and function of the stub its docstring from there.
- What the sync and the async class of a resource share is written once in the stub, on a
  stub-only base generic in what it returns (``python/opsapi/_twins.pyi``: ``Hosts`` is
  ``_Hosts[Host, HostList, list[str]]``), and griffe merges only a class's own stub members
  into the inspected module: this extension gives each class the annotations of its bases'
  members, with the base's type variables replaced by the class's arguments (and ``Self`` by
  the class).
- The docstrings are written for ``help()`` and doctest (reST literals, roles, doctest and
  ``::`` blocks): they are turned into Markdown here, so the site shows code as code.

Needs the compiled package importable (``make docs`` builds it when it is not).
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Any

import griffe

_ROLE = re.compile(r":(?:meth|class|attr|func|data|mod|exc|obj):`~?\.?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
_DIRECTIVE = re.compile(r"\s*#\s*doctest:.*$")


def to_markdown(text: str) -> str:
    """A docstring (reST literals and roles, doctest and ``::`` blocks) as Markdown."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            # A doctest block: prompts and their output, up to the next blank line.
            indent = len(line) - len(line.lstrip())
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(_DIRECTIVE.sub("", lines[i][indent:]))
                i += 1
            out += ["```pycon", *block, "```"]
            continue
        if line.rstrip().endswith("::") and i + 1 < len(lines) and not lines[i + 1].strip():
            # A literal block: the indented lines after the blank one.
            head = line.rstrip()[:-1]
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            base = len(line) - len(line.lstrip())
            block = []
            while j < len(lines) and (
                not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > base
            ):
                block.append(lines[j])
                j += 1
            while block and not block[-1].strip():
                block.pop()
            if block:
                first = block[0].strip()
                if first.startswith(">>>"):
                    lang = "pycon"
                elif first.startswith("[") and "=" not in first:
                    lang = "toml"
                else:
                    lang = "python"
                out += [_inline(head.rstrip(":") + ":"), ""]
                out += [f"```{lang}", *inspect.cleandoc("\n".join(block)).splitlines(), "```"]
                i = j
                continue
        out.append(_inline(line))
        i += 1
    return "\n".join(out)


def _inline(line: str) -> str:
    return _LITERAL.sub(r"`\1`", _ROLE.sub(r"`\1`", line))


def _runtime_doc(obj: Any) -> str | None:
    if obj is None:
        return None
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return None
    return inspect.cleandoc(doc)


class OpsapiDocstrings(griffe.Extension):
    """Docstrings for the stub from the compiled module; Markdown for every docstring."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **_: Any) -> None:
        if pkg.name != "opsapi":
            return
        native = importlib.import_module("opsapi._native")
        stub = pkg["_native"]
        _annotate_from_stub_bases(stub, Path(native.__file__).parent)
        for name, member in stub.members.items():
            if member.is_alias or not hasattr(native, name):
                continue
            runtime = getattr(native, name)
            if member.is_class:
                self._class(member, runtime)
            elif member.is_function:
                self._set(member, _runtime_doc(runtime))
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = to_markdown(obj.docstring.value)

    def _class(self, cls: griffe.Object, runtime: type) -> None:
        self._set(cls, _runtime_doc(runtime))
        for name, member in cls.members.items():
            if member.is_alias or name.startswith("_"):
                continue
            attr = inspect.getattr_static(runtime, name, None)
            self._set(member, _runtime_doc(attr))

    @staticmethod
    def _set(obj: griffe.Object, doc: str | None) -> None:
        if doc and obj.docstring is None:
            obj.docstring = griffe.Docstring(doc, parent=obj)


def _annotate_from_stub_bases(module: griffe.Object, package_dir: Path) -> None:
    """Annotations for the members a class of the stub inherits from a stub-only base."""
    loader = griffe.GriffeLoader(search_paths=[str(package_dir.parent)], allow_inspection=False)
    stubs = loader.load("opsapi")
    loader.resolve_aliases(implicit=False, external=None)
    for name, cls in stubs["_native"].members.items():
        if cls.is_alias or not cls.is_class or name not in module.members:
            continue
        target = module[name]
        own = set(cls.members)
        for member_name, member in cls.all_members.items():
            if member_name in own or member_name.startswith("_"):
                continue
            if member_name not in target.members:
                continue
            base = member.target.parent
            names = {"Self": griffe.ExprName(name, parent=cls)}
            names.update(_type_arguments(cls, base))
            _copy_annotations(member.target, target[member_name], names)


def _type_arguments(cls: griffe.Class, base: griffe.Class) -> dict[str, Any]:
    """``{"_HostT": Host, ...}``: the type variables of ``base`` (``Generic[_HostT, ...]``) and
    the arguments ``cls`` gives them (``_Hosts[Host, ...]``)."""
    params: list[str] = []
    for b in base.bases:
        if isinstance(b, griffe.ExprSubscript) and str(b.left) == "Generic":
            params = [str(e) for e in _elements(b.slice)]
    for b in cls.bases:
        if isinstance(b, griffe.ExprSubscript) and str(b.left) == base.name:
            return dict(zip(params, _elements(b.slice)))
    return {}


def _elements(expr: Any) -> list[Any]:
    return list(expr.elements) if isinstance(expr, griffe.ExprTuple) else [expr]


def _copy_annotations(source: griffe.Object, dest: griffe.Object, names: dict[str, Any]) -> None:
    def sub(annotation: Any) -> Any:
        return names.get(str(annotation), annotation) if annotation is not None else None

    if source.is_function and dest.is_function:
        dest.returns = sub(source.returns)
        for parameter in dest.parameters:
            if parameter.name in source.parameters:
                parameter.annotation = sub(source.parameters[parameter.name].annotation)
    elif source.is_attribute and dest.is_attribute:
        dest.annotation = sub(source.annotation)


def _walk(obj: griffe.Object):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)
