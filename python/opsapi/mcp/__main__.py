"""``python -m opsapi.mcp``: ``opsapi mcp`` (the same options)."""

from __future__ import annotations

import sys

from opsapi.cli import main

if __name__ == "__main__":
    sys.exit(main(["mcp", *sys.argv[1:]]))
