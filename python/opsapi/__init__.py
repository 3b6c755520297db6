"""opsapi: a client for the Deployment Operations Public API v1.0 (Ops Manager public API).

>>> import opsapi
>>> client = opsapi.Client("https://om.example.com:8443", "PUBLIC", "PRIVATE")  # doctest: +SKIP
>>> host = client.hosts.get(group_id, host_id)  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import logging

from . import _native, _store, exceptions
from . import config as _config

# Every class the native module exports (its `__all__`: one list, in src/python/mod.rs).
from ._native import *  # noqa: F403
from ._native import Alert, AsyncClient, Client, Store
from .exceptions import *  # noqa: F403 (every exception, as opsapi.exceptions lists them)

#: Global alerts and project alerts are the same class.
GlobalAlert = Alert

# Profiles live in Python (opsapi.config: TOML, file permissions, the keyring package); the
# classmethod goes onto the native classes themselves, so that opsapi.Client stays the one
# class every model, isinstance check and pickle refers to.
Client.from_profile = classmethod(_config.from_profile)  # type: ignore[attr-defined,assignment]
AsyncClient.from_profile = classmethod(_config.from_profile)  # type: ignore[attr-defined,assignment]
# The store's lazy reader is Python polars' (opsapi._store), set on the native class likewise.
Store.scan = _store.scan  # type: ignore[attr-defined,method-assign]

__version__: str = _native.__version__

__all__ = ["__version__"]
__all__ += _native.__all__
__all__ += ["GlobalAlert"]
# Every exception, as opsapi.exceptions lists them.
__all__ += exceptions.__all__

# The standard library's convention for libraries: nothing reaches stderr (through logging's
# last-resort handler) unless the program configures logging.
logging.getLogger("opsapi").addHandler(logging.NullHandler())

# Stop the shared tokio runtime before the interpreter finalizes: worker threads that touch
# Python during finalization can abort the process.
atexit.register(_native._shutdown)

_SUBMODULES = frozenset(
    {"alerts_analysis", "capacity", "cli", "config", "dask", "demo", "exceptions", "testing"}
)


def __getattr__(name: str) -> object:
    # `import opsapi` then `opsapi.testing.Simulator(...)` works without importing every
    # submodule up front.
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
