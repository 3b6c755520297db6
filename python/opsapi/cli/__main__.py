"""``python -m opsapi.cli``: the ``opsapi`` command."""

from . import run

run()
