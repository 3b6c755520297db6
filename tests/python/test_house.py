"""The house stays quick to change (issue 32): no import circle between the Rust source files,
and no source file too long to read without its reason.

- A circle is counted file to file, by the `crate::`, `super::` and `self::` paths a file
  names (its `use` lines, its code and its doc links alike), a module and its own parent
  aside (a parent declares and re-exports its children); and module to module, each child of
  a module with everything below it as one (issue 39: a parent that uses its children, whose
  children use a sibling that uses the parent, is a circle), re-exports aside.
- A file over 600 lines says why in its first 20 lines ("(Over 600 lines: ...)"); none is
  over 800.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"


def _modules() -> dict[tuple[str, ...], Path]:
    out = {}
    for f in SRC.rglob("*.rs"):
        parts = f.relative_to(SRC).with_suffix("").parts
        if parts[-1] in ("mod", "lib"):
            parts = parts[:-1]
        out[parts] = f
    return out


def _resolve(modules, path: list[str]):
    """The module file a path names: its longest prefix that is one."""
    for n in range(len(path), 0, -1):
        if tuple(path[:n]) in modules:
            return tuple(path[:n])
    return None


def _names(text: str, prefix: str):
    """Each path after `prefix` (`crate::`, `super::`), a `{a, b::c}` group expanded."""
    for m in re.finditer(
        rf"\b{prefix}::((?:[A-Za-z_][A-Za-z0-9_]*::)*)(\{{[^}}]*\}}|[A-Za-z_]\w*)", text
    ):
        head = [p for p in m.group(1).split("::") if p]
        tail = m.group(2)
        if tail.startswith("{"):
            for item in tail[1:-1].split(","):
                item = item.strip()
                if item and item != "self":
                    yield head + [p for p in item.split("::") if p and p != "self"]
        else:
            yield [*head, tail]


def _deps(modules, module: tuple[str, ...], text: str) -> set:
    """The modules `text` (the file of `module`) names by `crate::`, `super::` and `self::`
    paths (None where a path names no module of src/)."""
    deps = set()
    for path in _names(text, "crate"):
        deps.add(_resolve(modules, path))
    for path in _names(text, "super"):
        deps.add(_resolve(modules, list(module[:-1]) + path))
    for path in _names(text, "self"):
        deps.add(_resolve(modules, list(module) + path))
    return deps


def _graph() -> dict[tuple[str, ...], set[tuple[str, ...]]]:
    modules = _modules()
    edges = {}
    for module, f in modules.items():
        text = f.read_text(encoding="utf-8")
        deps = _deps(modules, module, text)
        edges[module] = {
            d
            for d in deps
            if d is not None
            and d != module
            and d != module[: len(d)]
            and module != d[: len(module)]
        }
    return edges


def _circles(edges) -> list[list[tuple[str, ...]]]:
    """Tarjan's strongly connected components of more than one file."""
    index: dict = {}
    low: dict = {}
    stack: list = []
    on: set = set()
    found = []
    counter = [0]

    def visit(v) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in edges:
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_between_source_files() -> None:
    edges = _graph()
    assert len(edges) > 100  # every file of src/ was read
    # The graph sees what it must: the store's sync reaches the measurement targets.
    assert ("api", "measurements", "target") in edges[("store", "sync")]
    said = [
        " <-> ".join(sorted("/".join(m) for m in c))
        + ": "
        + "; ".join(f"{'/'.join(a)} -> {'/'.join(b)}" for a in c for b in edges[a] if b in c)
        for c in _circles(edges)
    ]
    assert not said, said


def _subtree_graphs() -> dict[tuple[str, ...], dict[tuple[str, ...], set[tuple[str, ...]]]]:
    """For each module, the graph between its children's subtrees (a child and everything
    below it as one node): an edge where a file of one names anything of another. A re-export
    (`pub use`) is no dependency of the module that makes it."""
    modules = _modules()
    levels: dict = {}
    for module, f in modules.items():
        text = re.sub(r"(?m)^\s*pub(\([^)]*\))? use [^;]*;", "", f.read_text(encoding="utf-8"))
        deps = _deps(modules, module, text)
        for d in deps - {None, module}:
            n = 0
            while n < min(len(module), len(d)) and module[n] == d[n]:
                n += 1
            if n in (len(module), len(d)):
                continue  # a module and its own ancestor
            levels.setdefault(module[:n], {}).setdefault(module[: n + 1], set()).add(d[: n + 1])
    return levels


def test_no_import_circle_between_modules() -> None:
    """The circle a module and its children hide from the file check: the world's alerts
    using the measurements' catalog while the catalog used the world's hosts was one (issue
    39). Below each module, its children's subtrees form no circle."""
    levels = _subtree_graphs()
    assert ("sim", "world") in levels[("sim",)][("sim", "metrics")]  # the graph sees it
    said = [
        "/".join(parent) + ": " + " <-> ".join(sorted("/".join(m) for m in c))
        for parent, edges in levels.items()
        for c in _circles(edges)
    ]
    assert not said, said


def test_a_circle_is_found() -> None:
    edges = {("a",): {("b",)}, ("b",): {("c",)}, ("c",): {("a",)}, ("d",): {("a",)}}
    assert [sorted(c) for c in _circles(edges)] == [[("a",), ("b",), ("c",)]]


SOURCES = ("src", "python", "tests", "bench", ".ci", "docs/_ext")


def test_long_files_say_why_and_none_is_over_800_lines() -> None:
    long, too_long = [], []
    for top in SOURCES:
        for f in (REPO / top).rglob("*"):
            if f.suffix not in (".rs", ".py", ".pyi") or "fixtures" in f.parts:
                continue
            lines = f.read_text(encoding="utf-8").splitlines()
            if len(lines) > 800:
                too_long.append(f"{f.relative_to(REPO)}: {len(lines)}")
            elif len(lines) > 600 and "over 600 lines" not in "\n".join(lines[:20]).lower():
                long.append(f"{f.relative_to(REPO)}: {len(lines)}")
    assert not too_long, too_long
    assert not long, f"over 600 lines without saying why at the top: {long}"
