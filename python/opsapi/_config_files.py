"""Writing the files of :mod:`opsapi.config`: profiles as flat TOML (no library needed for
this much TOML), and files of mode 0600 replaced atomically, whatever was there before."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_str(key)


def _toml_str(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, dict):  # rate_limit per endpoint set
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"a profile setting is a str, bool or number, not {type(v).__name__}")


def dumps(profiles: dict[str, dict[str, Any]]) -> str:
    """Flat TOML tables, one per profile (no library needed for this much TOML).

    >>> print(dumps({"prod": {"base_url": "https://om", "private_key_keyring": True}}), end="")
    [prod]
    base_url = "https://om"
    private_key_keyring = true
    """
    parts = []
    for name, table in profiles.items():
        lines = [f"[{_toml_key(name)}]"]
        lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in table.items()]
        parts.append("\n".join(lines) + "\n")
    return "\n".join(parts)


def write_private(path: Path, text: str) -> None:
    """Replaces ``path`` with ``text`` in a file of mode 0600, atomically.

    The text goes first to a temporary file that this call creates itself (``mkstemp``:
    ``O_EXCL``, mode 0600): a file left over at any name, or a symbolic link planted there,
    is never opened, so it cannot lend the result its mode nor send the text elsewhere.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(name, 0o600)  # mkstemp's already; said here, where it is promised
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
