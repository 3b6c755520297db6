"""``python -m opsapi``: the ``opsapi`` command line (``python -m opsapi sim`` runs the
simulator, with the same flags as the Rust ``opsapi-sim`` binary)."""

from __future__ import annotations

from .cli import run

if __name__ == "__main__":
    run()
