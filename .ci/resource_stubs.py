"""Writes ``python/opsapi/_resources.pyi``: the stub of every resource class whose methods
``twins!`` writes from argument kinds (src/python/api/<resource>.rs), from the entries
themselves (``opsapi._native._twin_stubs()``: each method's parameters, their kinds' types and
what it returns), the sync class and its async twin. A method is declared once, in its
``twins!`` entry; stubtest (``make stubtest``) still checks the stub against the module, and
``tests/python/test_stub.py`` that the file is what the entries give::

    .venv/bin/python .ci/resource_stubs.py --write
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

STUB = Path(__file__).resolve().parents[1] / "python" / "opsapi" / "_resources.pyi"

HEAD = """\
# The resource classes whose methods src/python/api/<resource>.rs writes with twins! from
# argument kinds: generated from those entries by .ci/resource_stubs.py (do not edit; run
# `.venv/bin/python .ci/resource_stubs.py --write`). _native.pyi re-exports them; stubtest
# checks them against the module.
"""

TYPING = {"Optional", "Union", "Any"}
ABC = {"Awaitable", "Iterable", "Sequence"}
BUILTINS = {"str", "int", "bool", "float", "list", "dict", "tuple", "None"}


def _method(name: str, params: list[tuple[str, str, bool]], returns: str) -> str:
    required = [f"{p}: {t}" for p, t, optional in params if not optional]
    optional = [f"{p}: Optional[{t}] = None" for p, t, opt in params if opt]
    parts = ["self", *required] + (["*", *optional] if optional else [])
    line = f"    def {name}({', '.join(parts)}) -> {returns}: ..."
    if len(line) <= 100:
        return line
    inner = "".join(f"        {p},\n" for p in parts)
    return f"    def {name}(\n{inner}    ) -> {returns}: ..."


Param = tuple[str, str, bool]


def render(rows: list[tuple[str, str, str, list[Param], str]]) -> str:
    classes: dict[tuple[str, str], list[tuple[str, list[Param], str]]] = {}
    for cls, async_cls, method, params, returns in rows:
        classes.setdefault((cls, async_cls), []).append((method, params, returns))
    words = set()
    body = []
    for (cls, async_cls), methods in classes.items():
        for twin, wrap in ((cls, "{}"), (async_cls, "Awaitable[{}]")):
            body.append(f"\n@final\nclass {twin}:")
            for method, params, returns in methods:
                ret = wrap.format(returns)
                body.append(_method(method, params, ret))
                words |= set(
                    re.findall(r"[A-Za-z_]\w*", " ".join([ret, *(t for _, t, _ in params)]))
                )
    native = sorted(w for w in words - TYPING - ABC - BUILTINS if w not in ("final",))
    imports = [
        f"from collections.abc import {', '.join(sorted(words & ABC | {'Awaitable'}))}",
        f"from typing import {', '.join(sorted((words & TYPING) | {'Optional', 'final'}))}",
        "",
        "from opsapi._native import (\n" + "".join(f"    {n},\n" for n in native) + ")",
    ]
    return HEAD + "\n".join(imports) + "\n" + "\n".join(body) + "\n"


def generate() -> str:
    from opsapi import _native

    return render(_native._twin_stubs())


if __name__ == "__main__":
    text = generate()
    if "--write" in sys.argv[1:]:
        STUB.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
