"""Griffe extension behind the API reference (mkdocs.yml, ``make docs``).

- ``opsapi._native`` is compiled: griffe reads its signatures from the stub
  (``python/opsapi/_native.pyi``), which has no docstrings. They live in the Rust source
  (``src/python``) and reach Python as ``__doc__``: this extension imports the built module and
  gives every class, method, property and function of the stub its docstring from there.
- The docstrings are written for ``help()`` and doctest (reST literals, roles, doctest and
  ``::`` blocks): they are turned into Markdown here, so the site shows code as code.

Needs the compiled package importable (``make docs`` builds it when it is not).
"""

from __future__ import annotations

import importlib
import inspect
import re
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


def _walk(obj: griffe.Object):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)
